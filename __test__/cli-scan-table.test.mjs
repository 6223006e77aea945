// `toolguard scan` runs the active table a second time with every rule
// `when: always` (to list rules the output's failure status silenced). That
// table must be the rules as the engine decodes them, key for key: a rule
// key dropped on the way (`reason` was; a key added to the rule shape later
// would be) makes the second run a different table.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';

import { activeTable } from '../dist/ts/cli/rules.mjs';
import { alwaysTable } from '../dist/ts/cli/scan.mjs';

const require = createRequire(import.meta.url);
const { GuardEngine } = require('../index.js');

/** The rule keys the engine's decoder accepts, from its own error message. */
function ruleKeys() {
  try {
    // @ts-expect-error an unknown rule key is the point
    new GuardEngine({ loudFailure: { rules: [{ id: 'x', pattern: 'a', message: 'm', notAKey: 1 }] } });
  } catch (e) {
    const listed = /expected one of: ([^)]*)\)/.exec(e.message);
    assert.ok(listed, e.message);
    return listed[1].split(', ');
  }
  assert.fail('an unknown rule key was accepted');
}

test("the when-always table keeps every rule key but the listing's source", () => {
  const keys = ruleKeys();
  const table = activeTable([
    {
      id: 'deploy-refused',
      pattern: '^deploy: refused',
      flags: 'm',
      action: 'context',
      message: 'The deploy was refused.',
      reason: 'Our deploy script prints it on refusal.',
    },
  ]);
  const always = alwaysTable(table);
  assert.equal(always.length, table.length);
  for (const [i, rule] of always.entries()) {
    const { source, ...row } = table[i];
    assert.ok(source);
    assert.deepEqual(rule, { ...row, when: 'always' }, row.id);
    for (const key of Object.keys(rule)) assert.ok(keys.includes(key), `${row.id}: ${key} is not a rule key`);
  }
  // Every built-in row carries a reason, and so does the config rule.
  assert.ok(always.every((r) => typeof r.reason === 'string' && r.reason.length > 0));
  // The engine takes the table as it is.
  new GuardEngine({ loudFailure: { rules: always } });
});
