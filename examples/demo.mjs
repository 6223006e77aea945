// A few tool calls through the engine, printing what the guard says about each.
// Run: npm run demo
import { createRequire } from 'node:module';

const { GuardEngine } = createRequire(import.meta.url)('../index.js');
const engine = new GuardEngine({ repeat: { thresholds: [3, 5] } });

const calls = [
  ['grep', { pattern: 'TODO', path: 'src' }, 'no matches'],
  ['grep', { path: 'src', pattern: 'TODO' }, 'no matches'],
  ['grep', { pattern: 'TODO', path: 'src' }, 'no matches'],
  [
    'bash',
    { command: 'python train.py | tail -3' },
    'Traceback (most recent call last):\n  File "train.py", line 3, in <module>\nZeroDivisionError: division by zero',
  ],
  ['bash', { command: 'ls; frobnicate --all' }, 'README.md\nsrc\nbash: line 1: frobnicate: command not found'],
  [
    'bash',
    { command: 'make' },
    "cc -c main.c\nmain.c:3:5: error: expected ';' before '}' token\nmake: *** [Makefile:2: main.o] Error 1\n[exit code: 2]",
  ],
];

for (const [name, args, text] of calls) {
  const verdict = engine.observe({ agentId: 'demo', name, argumentsJson: JSON.stringify(args) }, { text });
  console.log(`\n> ${name} ${JSON.stringify(args)}`);
  if (!verdict) {
    console.log('  (nothing to say)');
    continue;
  }
  if (verdict.reminder) console.log(`  reminder [${verdict.reminder.summary}]: ${verdict.reminder.text}`);
  if (verdict.failure)
    console.log(`  ${verdict.failure.action} [${verdict.failure.summary}]:\n${verdict.failure.text.replace(/^/gm, '    ')}`);
}
