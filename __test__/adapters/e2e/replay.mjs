// What `toolguard hook` says on its own to each recorded PostToolUse payload
// of an e2e run (replayed in order, in a fresh state dir): the e2e scripts
// check that exactly this reached the model, so they follow the hook's
// defaults instead of restating them.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The hook's parsed stdout (or null when it printed nothing) per payload of
 * the given events (default PostToolUse) in `payloads` (JSON lines), in order.
 */
export function replayPostToolUse(root, payloads, stateDir, events = ['PostToolUse']) {
  return readFileSync(payloads, 'utf8')
    .trim()
    .split('\n')
    .filter((line) => events.includes(JSON.parse(line).hook_event_name))
    .map((line) => {
      const r = spawnSync(process.execPath, [join(root, 'bin/toolguard.mjs'), 'hook'], {
        input: line,
        encoding: 'utf8',
        env: { ...process.env, TOOLGUARD_STATE_DIR: stateDir },
      });
      return r.stdout.trim() ? JSON.parse(r.stdout) : null;
    });
}
