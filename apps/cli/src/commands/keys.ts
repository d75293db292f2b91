/**
 * `parley keys mint`
 * `parley keys create --principal ID --role ROLE [--role ROLE…] [--agent PATTERN…] [--scenario PATTERN…] [--description TEXT] [--expires ISO]`
 * `parley keys list [--principal ID] [--all]`
 * `parley keys revoke KEY_ID`
 *
 * API keys (draft-zhou §7: hashed at rest, scoped, revocable). `mint`
 * makes a key locally (libs/auth `mintApiKey`, no gateway): the value for
 * PARLEY_DEV_KEY or PARLEY_BOOTSTRAP_OPERATOR_KEY, which the registry makes
 * valid at start. `create`, `list` and `revoke` go through the gateway's
 * `create_api_key`, `list_api_keys` and `revoke_api_key` and need a key with
 * the `operator` role. A created key is printed once: the registry keeps only
 * its hash.
 */
import { mintApiKey, parseApiKey } from '@parley/auth';
import type { ApiKey, CreateApiKeyResponse, ListApiKeysResponse, RevokeApiKeyResponse } from '@parley/contracts';
import { clip, defined, noPositional, onePositional, required, runSubcommand, table, UsageError, type Parsed, type Subcommand } from './rpc-client';

const SUMMARY = 'API keys: mint one locally; create, list and revoke them at the gateway (operator role)';

/** Roles a key may carry (`service` is the services' own credential, never a key). */
export const KEY_ROLES = ['operator', 'server_agent', 'client_agent'] as const;

const list = (xs: readonly string[] | undefined): string => (xs && xs.length > 0 ? xs.join(',') : '-');

/** `active`, `revoked <when>` or `expired <when>` as of `now`. */
export function keyStatus(k: ApiKey, now: number = Date.now()): string {
  if (k.revoked_at) return `revoked ${k.revoked_at}`;
  if (k.expires_at && Date.parse(k.expires_at) <= now) return `expired ${k.expires_at}`;
  return 'active';
}

/** One line of what a key grants: roles, agents, scenarios, expiry. */
function scopeText(k: ApiKey): string {
  const words = (xs: readonly string[]) => (xs.length > 0 ? xs.join(', ') : '-');
  return `roles ${words(k.roles)}; agents ${words(k.agents)}; scenarios ${words(k.scenarios)}; expires ${k.expires_at || 'never'}`;
}

/** What `keys mint` says about the key, on stderr: stdout holds the key alone, for `$(parley keys mint)`. */
export function mintedNote(keyId: string): string {
  return [
    `A new API key (key id ${keyId}), made locally: nothing was stored and no gateway was called.`,
    'It becomes valid when the registry starts with it:',
    '  PARLEY_DEV_KEY=<key>                 npm start: the development key, every role, principal "dev"',
    '  PARLEY_BOOTSTRAP_OPERATOR_KEY=<key>  the registry service: an operator key, principal "operator"',
    'Keep it secret: whoever holds it acts with its roles.',
  ].join('\n');
}

export function createdText(r: CreateApiKeyResponse): string {
  const k = r.api_key;
  if (!k || !r.key) return 'no key in the response';
  return [
    `created API key ${k.key_id} for ${k.principal} (${scopeText(k)})`,
    '',
    `  ${r.key}`,
    '',
    'Store it now; it is not shown again (Parley keeps only its hash).',
    `Use it as PARLEY_API_KEY (or --key); revoke it with \`parley keys revoke ${k.key_id}\`.`,
  ].join('\n');
}

export function keysText(r: ListApiKeysResponse, opts: { principal?: string; all: boolean }, now: number = Date.now()): string {
  const n = r.api_keys.length;
  const head = `${n}${opts.all ? '' : ' active'} API key${n === 1 ? '' : 's'}${opts.principal ? ` of ${opts.principal}` : ''}${opts.all ? ' (revoked ones included)' : ''}`;
  if (n === 0) return head;
  const rows = r.api_keys.map((k) => [
    k.key_id,
    k.principal,
    list(k.roles),
    list(k.agents),
    list(k.scenarios),
    k.created_at || '-',
    k.created_by || '-',
    k.expires_at || 'never',
    keyStatus(k, now),
    k.description ? clip(k.description, 40) : '-',
  ]);
  return `${head}\n${table(['KEY ID', 'PRINCIPAL', 'ROLES', 'AGENTS', 'SCENARIOS', 'CREATED', 'BY', 'EXPIRES', 'STATUS', 'DESCRIPTION'], rows)}`;
}

export function revokedText(r: RevokeApiKeyResponse): string {
  const k = r.api_key;
  if (!k) return 'no key in the response';
  return [
    `API key ${k.key_id} of ${k.principal} revoked at ${k.revoked_at || '?'}`,
    'Services stop accepting it once their credential cache expires (PARLEY_AUTH_CACHE_MS, default 2 s).',
  ].join('\n');
}

/** The roles of --role, each one of KEY_ROLES (a usage error otherwise). */
function roles(p: Parsed): string[] {
  const rs = p.lists.role ?? [];
  if (rs.length === 0) throw new UsageError(`--role is required (one or more of ${KEY_ROLES.join(', ')})`);
  for (const r of rs) {
    if (!(KEY_ROLES as readonly string[]).includes(r)) throw new UsageError(`--role must be one of ${KEY_ROLES.join(', ')}, got "${r}"`);
  }
  return [...new Set(rs)];
}

const SUBS: Record<string, Subcommand> = {
  mint: {
    summary: 'print a new API key made locally (no gateway) for PARLEY_DEV_KEY or PARLEY_BOOTSTRAP_OPERATOR_KEY; stdout holds the key alone',
    usage: 'mint',
    flags: {},
    local: true,
    async run(p) {
      noPositional(p);
      const { key, key_id } = mintApiKey();
      if (!p.switches.has('json')) process.stderr.write(`${mintedNote(key_id)}\n`);
      return { result: { key, key_id }, text: key };
    },
  },
  create: {
    summary: 'create a key for a principal; the key is printed once (operator role)',
    usage: 'create --principal ID --role ROLE [--role ROLE…] [--agent PATTERN…] [--scenario PATTERN…] [--description TEXT] [--expires ISO]',
    flags: { principal: 'value', role: 'list', agent: 'list', scenario: 'list', description: 'value', expires: 'value' },
    async run(p, gw) {
      noPositional(p);
      const principal = required(p, 'principal', 'the client id the key stands for, e.g. acme');
      const params = defined({
        principal,
        roles: roles(p),
        agents: p.lists.agent,
        scenarios: p.lists.scenario,
        description: p.values.description,
        expires_at: p.values.expires,
      });
      const result = (await gw.call('create_api_key', params)) as CreateApiKeyResponse;
      return { result, text: createdText(result) };
    },
  },
  list: {
    summary: 'list the keys (never their secrets); --all includes revoked keys (operator role)',
    usage: 'list [--principal ID] [--all]',
    flags: { principal: 'value', all: 'switch' },
    async run(p, gw) {
      noPositional(p);
      const principal = p.values.principal;
      const all = p.switches.has('all');
      const result = (await gw.call('list_api_keys', defined({ principal, include_revoked: all }))) as ListApiKeysResponse;
      return { result, text: keysText(result, { ...(principal !== undefined ? { principal } : {}), all }) };
    },
  },
  revoke: {
    summary: 'revoke a key at once, by its key id (the 16 hex digits after pk_) or the whole key (operator role)',
    usage: 'revoke KEY_ID',
    flags: {},
    async run(p, gw) {
      const arg = onePositional(p, 'KEY_ID (the 16 hex digits after pk_)');
      const key_id = parseApiKey(arg)?.key_id ?? arg;
      const result = (await gw.call('revoke_api_key', { key_id })) as RevokeApiKeyResponse;
      return { result, text: revokedText(result) };
    },
  },
};

export function run(argv: string[]): Promise<number> {
  return runSubcommand('keys', SUMMARY, SUBS, argv);
}
