// Why a module did not load, as toolguard reports it (main.js's fallback
// warning, the hook and config readers in dist/ts/native.mjs): CommonJS so
// main.js requires it before anything else may have loaded.
'use strict';

/** The first line of the innermost cause: what actually failed (a missing file, a dlopen error). */
function rootCause(error) {
  let e = error;
  while (e !== null && typeof e === 'object' && e.cause) e = e.cause;
  const message = e !== null && typeof e === 'object' && typeof e.message === 'string' && e.message ? e.message : String(e);
  return message.split('\n')[0];
}

module.exports = { rootCause };
