'use strict';
// The package entry point: the native engine, or — when the native binary
// cannot be loaded on this platform — the pure-TypeScript reference engine,
// announced by one warning. "Same API and verdicts" there means: the same
// `GuardEngine` methods and verdict objects — repeat reminders,
// silent-failure verdicts, loop alarms (`loops`) and `check` refusals — call
// by call, as the differential tests hold them (__test__/reference.test.mjs,
// __test__/reference-loops.test.mjs: the loop corpus and random sequences);
// reference/index.mts lists what differs (rule regex dialect, engine-specific
// saved-state digests, no Auditor).
//
// Exports are assigned one by one (not `module.exports = binding`) so that
// ESM `import { GuardEngine } from 'toolguard'` can see their names; the
// names are exactly the value exports of main.d.ts (a test compares them).

const { rootCause } = require('./root-cause.js');

let binding;
let native = true;
let loadFailure;
try {
  binding = require('./index.js');
} catch (error) {
  native = false;
  loadFailure = rootCause(error);
  process.emitWarning(
    `toolguard: no native binary for ${process.platform}-${process.arch} could be loaded (${loadFailure}); ` +
      'using the pure-TypeScript reference engine: same API and verdicts, slower; `toolguard audit` needs the native binary',
    { code: 'TOOLGUARD_FALLBACK' },
  );
  try {
    // require() of an ES module: Node >= 20.19 (package.json engines).
    binding = require('./dist/reference/index.mjs');
  } catch (fallbackError) {
    if (fallbackError && fallbackError.code === 'MODULE_NOT_FOUND') {
      // A source checkout whose build never ran (an install from git with install scripts off, or no Rust).
      throw new Error(
        `toolguard: this copy is not built (no native binary, no dist/ in ${__dirname}): ` +
          'run `npm run build` there (it needs a Rust toolchain), or install a packed tarball',
        { cause: fallbackError },
      );
    }
    throw fallbackError;
  }
}

module.exports.GuardEngine = binding.GuardEngine;
module.exports.canonicalize = binding.canonicalize;
module.exports.observeCall = binding.observeCall;
module.exports.observeCallValue = binding.observeCallValue;
// Session-log auditing exists only natively (zstd and streaming live in Rust):
// without it the class is there and its constructor says why it cannot work.
module.exports.Auditor = native
  ? binding.Auditor
  : class Auditor {
      constructor() {
        throw new Error(
          `toolguard: auditing needs the native binary, which could not be loaded on ${process.platform}-${process.arch} (${loadFailure})`,
        );
      }
    };
/** The log format of a file by its content (`--format auto`'s pick), or null; native only. */
module.exports.detectLogFormat = native ? binding.detectLogFormat : () => null;
/** Every `--format` name the audit reads, `auto` first; native only (none without it). */
module.exports.logFormats = native ? binding.logFormats : () => [];
/** Whether the native engine is in use (false: the reference fallback). */
module.exports.native = native;
