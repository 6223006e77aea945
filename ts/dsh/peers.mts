/**
 * The DSH packages the toolguard DSH plugins load, found before they are
 * imported. They are optional peer dependencies of toolguard; a static import
 * of a missing one fails with Node's bare ERR_MODULE_NOT_FOUND, which names
 * neither toolguard nor what to install, so every plugin module takes them
 * from here and a missing one is an error naming it and the install line.
 * @module toolguard/dsh/peers
 */
import type * as DshLlm from '@deepseek-ai/dsh-llm';
import type Schemastery from '@deepseek-ai/schemastery';

/** The plugins' peers: cordis hosts them, schemastery builds their config schemas, dsh-llm makes their notices. */
export const DSH_PEERS = ['@deepseek-ai/cordis', '@deepseek-ai/schemastery', '@deepseek-ai/dsh-llm'] as const;

/**
 * One line for an empty project: the plugins' peers and the DSH agent stack
 * (loop, tools, sessions) that examples/dsh-agent runs, at the versions
 * toolguard is tested with (package.json's devDependencies). docs/dsh.md shows it.
 */
export const DSH_INSTALL =
  'npm install @deepseek-ai/cordis@4.0.4 @deepseek-ai/schemastery@3.18.4 ' +
  [
    'dsh-llm',
    'dsh-agent',
    'dsh-agent-loop',
    'dsh-tools',
    'dsh-session',
    'dsh-system-prompt',
    'dsh-invariants',
    'dsh-scope',
    'dsh-settings',
    'dsh-session-persistence',
  ]
    .map((name) => `@deepseek-ai/${name}@0.1.0-rc.8`)
    .join(' ');

/** A DSH package the plugins need is not installed. */
export class MissingPeerError extends Error {
  readonly code = 'TOOLGUARD_DSH_PEER_MISSING';
  /** The package that could not be found. */
  readonly package: string;

  constructor(name: string) {
    super(
      `toolguard/dsh: the DSH plugins need the package ${name}, an optional peer dependency of toolguard that is not installed.\n` +
        `Install the DSH packages beside toolguard: ${DSH_INSTALL}`,
    );
    this.name = 'MissingPeerError';
    this.package = name;
  }
}

/** Throws MissingPeerError for the first of `names` that does not resolve from here. */
export function requirePeers(names: readonly string[] = DSH_PEERS): void {
  for (const name of names) {
    try {
      import.meta.resolve(name);
    } catch (error) {
      if ((error as { code?: unknown }).code === 'ERR_MODULE_NOT_FOUND') throw new MissingPeerError(name);
      throw error;
    }
  }
}

requirePeers();

/** schemastery's builder (its default export). */
export const z: typeof Schemastery = (await import('@deepseek-ai/schemastery')).default;
export const { boundContextSummary, createUserMessage }: typeof DshLlm = await import('@deepseek-ai/dsh-llm');
