// TOOLGUARD_DSH_DIST points the toolguard variants at another build of the
// dsh modules (a directory holding index.mjs, repeat-tool-reminder.mjs,
// loud-failure.mjs) instead of the package's own exports.
const dist = process.env.TOOLGUARD_DSH_DIST;
const ours = (specifier, file) => () => import(dist ? new URL(file, `file://${dist.replace(/\/?$/, '/')}`).href : specifier);

// The plugin modules the behaviour tests run against. The official pure-TS
// plugin comes first: a test that fails on it is a wrong test, not a bug in
// ours. `wrap` turns a repeat-tool-reminder config into the module's own
// config shape (the combined `toolguard` plugin nests it under `repeat`).
export const repeatVariants = [
  {
    label: 'official @deepseek-ai/dsh-repeat-tool-reminder',
    official: true,
    load: () => import('@deepseek-ai/dsh-repeat-tool-reminder'),
    wrap: (config) => config,
  },
  {
    label: 'toolguard/dsh/repeat-tool-reminder',
    load: ours('toolguard/dsh/repeat-tool-reminder', 'repeat-tool-reminder.mjs'),
    wrap: (config) => config,
  },
  {
    label: 'toolguard/dsh (combined)',
    load: ours('toolguard/dsh', 'index.mjs'),
    // DSH-exact mode: the loop detectors (on by default) replace the result-blind reminder.
    wrap: (config) => ({ repeat: config, loops: false }),
  },
];

// Silent-failure behaviour has no official implementation to compare with;
// both of our modules that carry it run the same tests.
export const loudFailureVariants = [
  {
    label: 'toolguard/dsh/loud-failure',
    load: ours('toolguard/dsh/loud-failure', 'loud-failure.mjs'),
    wrap: (config) => config,
  },
  {
    label: 'toolguard/dsh (combined)',
    load: ours('toolguard/dsh', 'index.mjs'),
    wrap: (config) => ({ loudFailure: config }),
  },
];

/** Restrict variants by label substring, e.g. TOOLGUARD_DSH_ONLY=official while the addon is not built. */
export function selected(variants) {
  const only = process.env.TOOLGUARD_DSH_ONLY;
  return only ? variants.filter((v) => v.label.includes(only)) : variants;
}
