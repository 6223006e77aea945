'use strict'
// The package entry point: the native engine, or — when the native binary
// cannot be loaded on this platform — the pure-TypeScript reference engine
// (same API and verdicts, slower), announced by one warning.
//
// Exports are assigned one by one (not `module.exports = binding`) so that
// ESM `import { GuardEngine } from 'toolguard'` can see their names.

let binding
let native = true
try {
  binding = require('./index.js')
} catch (error) {
  native = false
  const reason = String(error && error.message).split('\n')[0]
  process.emitWarning(
    `toolguard: the native binary could not be loaded (${reason}); using the pure-TypeScript reference engine`,
    { code: 'TOOLGUARD_FALLBACK' },
  )
  // require() of an ES module: Node >= 20.19 (package.json engines).
  binding = require('./dist/reference/index.mjs')
}

module.exports.GuardEngine = binding.GuardEngine
module.exports.canonicalize = binding.canonicalize
module.exports.observeCall = binding.observeCall
module.exports.observeCallValue = binding.observeCallValue
// Session-log auditing exists only natively (zstd and streaming live in Rust).
module.exports.Auditor = binding.Auditor
/** Whether the native engine is in use (false: the reference fallback). */
module.exports.native = native
