// `parley <command> [options]`: Parley's command line (main.ts runs it). Each command lives in
// src/commands/<name>.ts and exports `run(argv): Promise<number>` (the exit code).
// `--version` anywhere (before a `--`) prints the version of this package; `--help` every command handles.
import { cliVersion } from './version';

export const COMMANDS: Record<string, { summary: string; load: () => Promise<{ run(argv: string[]): Promise<number> }> }> = {
  ask: { summary: "from a user's words to an executed payload: scenario, template, mapping, confirmation (draft-zhou §6.1)", load: () => import('./commands/ask') },
  tokens: { summary: 'token counts of an MCP tools/list before and after each ADOL mechanism', load: () => import('./commands/tokens') },
  simulate: { summary: 'replay timed `other` fragments through schema self-evolution (draft-zhou §6.2)', load: () => import('./commands/simulate') },
  mcp: { summary: "serve Parley's MCP face over stdio, backed by a gateway", load: () => import('./commands/mcp') },
  pool: { summary: 'the Differential Semantic Pool: clusters, heat, raw fragments (operator)', load: () => import('./commands/pool') },
  patches: { summary: 'schema patches: list, show, approve/reject, pin/unpin, decisions', load: () => import('./commands/patches') },
  audits: { summary: 'semantic-alignment audit samples: list, judge', load: () => import('./commands/audits') },
  'dead-letters': { summary: 'events set aside so the rest flow on: list, retry, discard (operator)', load: () => import('./commands/dead-letters') },
  keys: { summary: 'API keys: mint one locally; create, list, revoke (operator)', load: () => import('./commands/keys') },
  events: { summary: 'webhooks for schema evolution events (patch.*, key.*, pool.matured): subscribe, list, delete (operator)', load: () => import('./commands/events') },
  whoami: { summary: 'who the gateway takes your API key for: principal, roles, namespaces', load: () => import('./commands/whoami') },
};

const AUTH_NOTE = `
Every gateway call carries your API key: --key KEY, or better the env
PARLEY_API_KEY (command-line arguments show in \`ps\`). \`npm start\` prints the
development key; operators create keys with \`parley keys create\`.
`;

/** Runs `parley <argv>`; returns the exit code. */
export async function main(argv: string[]): Promise<number> {
  const end = argv.indexOf('--');
  if ((end === -1 ? argv : argv.slice(0, end)).includes('--version')) {
    process.stdout.write(`${cliVersion()}\n`);
    return 0;
  }
  const [name, ...rest] = argv;
  const cmd = name && Object.prototype.hasOwnProperty.call(COMMANDS, name) ? COMMANDS[name] : undefined;
  if (!cmd) {
    const help = name === undefined || name === '--help' || name === '-h';
    const usage = `usage: parley <command> [options]\n\n${Object.entries(COMMANDS).map(([n, c]) => `  ${n.padEnd(10)} ${c.summary}`).join('\n')}\n\n\`parley <command> --help\` for its options; \`parley --version\` prints the version.\n${AUTH_NOTE}`;
    (name === '--help' || name === '-h' ? process.stdout : process.stderr).write(name === undefined || help ? usage : `parley: unknown command ${JSON.stringify(name)}\n${usage}`);
    return help ? 0 : 2;
  }
  return (await cmd.load()).run(rest);
}
