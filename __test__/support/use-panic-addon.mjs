// Import first: this process loads the test-panic addon (see panic-addon.mjs).
import { panicAddon } from './panic-addon.mjs';

process.env.NAPI_RS_NATIVE_LIBRARY_PATH = panicAddon;
