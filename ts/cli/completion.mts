// `toolguard completion bash|zsh|fish`: a completion script generated from the
// command table (commands, their long options, the values of choice options).

import { parseCommandLine, UsageError } from './args.mjs';

export const SHELLS = ['bash', 'zsh', 'fish'] as const;
export const COMPLETION_OPTIONS = { help: { type: 'boolean', short: 'h' } } as const;

export type CompletionSpec = { name: string; summary: string; options: string[]; choices: Record<string, readonly string[]> }[];

export const COMPLETION_HELP = `Usage: toolguard completion bash|zsh|fish

Prints a completion script for the shell. Load it from your shell's startup file:
  bash  (~/.bashrc)                    eval "$(toolguard completion bash)"
  zsh   (~/.zshrc)                     eval "$(toolguard completion zsh)"
  fish  (~/.config/fish/config.fish)   toolguard completion fish | source
`;

const flags = (options: string[]) => options.map((o) => `--${o}`).join(' ');
// Names come from our own table, but quote them anyway: they end up in shell source.
const shellWord = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

function bash(spec: CompletionSpec): string {
  const cases = spec.map((c) => {
    const choiceCases = Object.entries(c.choices).map(
      ([o, values]) => `        --${o}) COMPREPLY=($(compgen -W ${shellWord(values.join(' '))} -- "$cur")); return ;;`,
    );
    return [
      `    ${shellWord(c.name)})`,
      ...(choiceCases.length ? ['      case "$prev" in', ...choiceCases, '      esac'] : []),
      `      opts=${shellWord(flags(c.options))} ;;`,
    ].join('\n');
  });
  return `# toolguard completion for bash: eval "$(toolguard completion bash)"
_toolguard() {
  local cur=\${COMP_WORDS[COMP_CWORD]} prev=\${COMP_WORDS[COMP_CWORD-1]} opts=''
  if [ "$COMP_CWORD" -eq 1 ]; then
    COMPREPLY=($(compgen -W ${shellWord(spec.map((c) => c.name).join(' ') + ' --help --version')} -- "$cur"))
    return
  fi
  case "\${COMP_WORDS[1]}" in
${cases.join('\n')}
  esac
  if [[ $cur == -* ]]; then
    COMPREPLY=($(compgen -W "$opts" -- "$cur"))
  else
    COMPREPLY=()  # file names: -o default
  fi
}
complete -o default -F _toolguard toolguard
`;
}

function zsh(spec: CompletionSpec): string {
  // zsh runs bash completion functions through bashcompinit.
  return `# toolguard completion for zsh: eval "$(toolguard completion zsh)"
autoload -U +X compinit && compinit
autoload -U +X bashcompinit && bashcompinit
${bash(spec).split('\n').slice(1).join('\n')}`;
}

function fish(spec: CompletionSpec): string {
  const lines = ['# toolguard completion for fish: toolguard completion fish | source', 'complete -c toolguard -f'];
  for (const c of spec) {
    lines.push(`complete -c toolguard -n __fish_use_subcommand -a ${shellWord(c.name)} -d ${shellWord(c.summary)}`);
    for (const o of c.options) {
      const values = c.choices[o];
      const arg = values ? ` -x -a ${shellWord(values.join(' '))}` : '';
      lines.push(`complete -c toolguard -n ${shellWord(`__fish_seen_subcommand_from ${c.name}`)} -l ${shellWord(o)}${arg}`);
    }
    // Positionals are files for every command but completion itself.
    if (c.name === 'completion')
      lines.push(`complete -c toolguard -n '__fish_seen_subcommand_from completion' -a ${shellWord(SHELLS.join(' '))}`);
    else lines.push(`complete -c toolguard -n ${shellWord(`__fish_seen_subcommand_from ${c.name}`)} -F`);
  }
  return lines.join('\n') + '\n';
}

export function completion(argv: string[], spec: CompletionSpec): number {
  try {
    const { values, positionals } = parseCommandLine(argv, COMPLETION_OPTIONS);
    if (values.help) {
      process.stdout.write(COMPLETION_HELP);
      return 0;
    }
    const [shell, ...extra] = positionals;
    if (shell === undefined || extra.length) throw new UsageError('give one shell: bash, zsh or fish');
    if (shell === 'bash') process.stdout.write(bash(spec));
    else if (shell === 'zsh') process.stdout.write(zsh(spec));
    else if (shell === 'fish') process.stdout.write(fish(spec));
    else throw new UsageError(`unknown shell ${JSON.stringify(shell)} (bash, zsh or fish)`);
    return 0;
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    process.stderr.write(`toolguard completion: ${error.message}\n`);
    return 2;
  }
}
