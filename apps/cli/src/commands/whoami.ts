/**
 * `parley whoami [--json]`
 *
 * Who the gateway takes the caller for (draft-zhou §7): the principal, tenant, roles
 * and namespaces of the API key (or JWT) given with --key / PARLEY_API_KEY,
 * through the gateway's `whoami`. Any valid key may ask.
 */
import { noPositional, runCommand, type Subcommand } from './rpc-client';

export interface WhoamiResponse {
  principal: string;
  tenant: string;
  roles: string[];
  agents: string[];
  scenarios: string[];
  /** `api_key` or `jwt`. */
  via: string;
  /** ISO 8601; absent when the credential does not expire. */
  expires_at?: string;
}

const list = (xs: readonly string[] | undefined): string => (xs && xs.length > 0 ? xs.join(', ') : '-');

export function whoamiText(r: WhoamiResponse): string {
  const rows: [string, string][] = [
    ['principal', r.principal],
    ['tenant', r.tenant],
    ['roles', list(r.roles)],
    ['agents', list(r.agents)],
    ['scenarios', list(r.scenarios)],
    ['via', r.via],
    ['expires', r.expires_at ?? 'never'],
  ];
  return rows.map(([k, v]) => `${k.padEnd(10)} ${v}`).join('\n');
}

const WHOAMI: Subcommand = {
  summary: 'who the gateway takes your API key for: principal, tenant, roles, agents, scenarios',
  usage: 'whoami',
  flags: {},
  async run(p, gw) {
    noPositional(p);
    const result = (await gw.call('whoami', {})) as WhoamiResponse;
    return { result, text: whoamiText(result) };
  },
};

export function run(argv: string[]): Promise<number> {
  return runCommand('whoami', WHOAMI, argv);
}
