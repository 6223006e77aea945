// A tool's refusal that comes back as exit-0 shell output (SWE-agent's `edit`
// runs in the shell) is an `error` verdict, from the loop detectors' own
// rejection phrases (rules/loops.json); native engine and reference twin.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { GuardEngine } from 'toolguard';
import { GuardEngine as ReferenceEngine } from '../dist/reference/index.mjs';

const edit = { agentId: 'a', name: 'bash', arguments: { command: 'edit 287:295' } };
const text = (t) => ({ content: [{ type: 'text', text: t }] });
const refusal =
  "Your proposed edit has introduced new syntax error(s). Please understand the fixes and retry your edit commmand.\n\nERRORS:\n- E999 SyntaxError: unmatched ']'\n\nThis is how your edit would have looked if applied\n";

/** @param {string} label @param {typeof GuardEngine} Engine */
function suite(label, Engine) {
  describe(`tool-rejected (${label})`, () => {
    it('a refusal said first is an error; the same phrase further down is output', () => {
      const engine = new Engine();
      const failure = engine.observe(edit, text(refusal))?.failure;
      assert.equal(failure?.action, 'error');
      assert.equal(failure?.rules[0].id, 'tool-rejected');
      assert.equal(failure?.rules[0].line, 1);
      const noMatch = engine.observe(edit, text('  \nNo replacement was performed. Multiple occurrences of old_str'))?.failure;
      assert.equal(noMatch?.rules[0].id, 'tool-rejected');
      assert.equal(noMatch?.rules[0].line, 2);
      const cat = { agentId: 'a', name: 'bash', arguments: { command: 'cat notes.txt' } };
      assert.equal(engine.observe(cat, text('notes\nNo replacement was performed\n'))?.failure, undefined);
    });
  });
}

suite('native', GuardEngine);
suite('reference', ReferenceEngine);
