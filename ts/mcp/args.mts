// `toolguard mcp`'s arguments and usage, apart from the proxy: this module
// imports nothing from the MCP SDK (an optional peer dependency), so `--help`
// and usage errors answer where the SDK is not installed.

/** The package the proxy runs on: an optional peer dependency, so a `GuardEngine` user does not install it. */
export const MCP_SDK = '@modelcontextprotocol/sdk';
/** The install command `toolguard mcp` prints when the SDK is missing. */
export const MCP_SDK_INSTALL = `npm install ${MCP_SDK}@^1.32.2`;

export class McpUsageError extends Error {}

export const MCP_USAGE = `usage: toolguard mcp [--config FILE] [--otel] -- <command> [args...]
Starts the MCP server <command> (stdio) and relays it to the MCP client on
stdin/stdout, guarding tools/call: the loop detectors for the session (on
unless the config says loops: false; loops.deny refuses a call that goes on
with a loop), and the results of the tools named in loudFailure.shellTools
scanned for silent failures. --config (or TOOLGUARD_CONFIG): the guard config, JSON or YAML,
as for toolguard audit. --otel: write each call and its verdict as an OpenTelemetry
execute_tool span (needs @opentelemetry/api and an SDK registered in the process,
e.g. by NODE_OPTIONS=--import). Exit code: the server's (2: usage or config error,
1: the server could not be started). Needs the optional peer dependency
${MCP_SDK}, installed beside toolguard: ${MCP_SDK_INSTALL}
`;

export interface McpArgs {
  config?: string;
  /** Write each call and its verdict as an OpenTelemetry span. */
  otel: boolean;
  command: string;
  args: string[];
}

/** Options up to `--` (or the first non-option), then the server command line verbatim. */
export function parseMcpArgs(argv: readonly string[], env: NodeJS.ProcessEnv = process.env): McpArgs | 'help' {
  let config: string | undefined;
  let otel = false;
  let i = 0;
  for (; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--') {
      i++;
      break;
    }
    if (arg === '-h' || arg === '--help') return 'help';
    if (arg === '--config') {
      config = argv[++i];
      if (config === undefined) throw new McpUsageError('--config needs a file');
    } else if (arg.startsWith('--config=')) config = arg.slice('--config='.length);
    else if (arg === '--otel') otel = true;
    else if (arg.startsWith('-')) throw new McpUsageError(`unknown option ${arg}`);
    else break;
  }
  const [command, ...args] = argv.slice(i);
  if (command === undefined || command === '') throw new McpUsageError('no server command given');
  config ??= env.TOOLGUARD_CONFIG || undefined;
  // The proxy's standard input is the client's protocol stream.
  if (config === '-') throw new McpUsageError('--config - cannot be read: standard input carries the MCP protocol; give a file');
  return { config, otel, command, args };
}
