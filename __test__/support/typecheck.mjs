// The TypeScript compiler as the package's users run it (strict, NodeNext,
// ES2022), for the tests that check the published types against code.
import ts from 'typescript';

/**
 * The diagnostics of a strict NodeNext program over `files`.
 * @param {string[]} files
 * @param {{ types?: string[], skipLibCheck?: boolean }} [options] `types`: the global type packages (none by default)
 * @returns {readonly import('typescript').Diagnostic[]}
 */
export function strictDiagnostics(files, { types = [], skipLibCheck = false } = {}) {
  const program = ts.createProgram(files, {
    strict: true,
    noEmit: true,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    target: ts.ScriptTarget.ES2022,
    types,
    skipLibCheck,
  });
  return ts.getPreEmitDiagnostics(program);
}
