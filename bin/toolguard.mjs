#!/usr/bin/env node
// Launcher: the CLI is TypeScript compiled to dist/ts/cli (npm run build:ts).
import { main } from '../dist/ts/cli/main.mjs';

process.exitCode = main(process.argv.slice(2));
