/**
 * API keys in the registry (draft-zhou §7: hashed at rest, scoped, revocable), on
 * PGlite with a clock the test moves: what a key grants, what is stored, and
 * every way a key stops working.
 */
import { parseApiKey } from '@parley/auth';
import type { CallContext } from '@parley/contracts';
import { ParleyError } from '@parley/protocol';
import { createPgliteDb, migrate, type Db } from '@parley/storage';
import { Metadata } from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKeyStore, type ApiKeyStore } from '../src/index';

let db: Db;
let store: ApiKeyStore;
let now = Date.parse('2026-11-21T10:00:00Z');
const clock = { now: () => new Date(now) };
const asOps: CallContext = { metadata: new Metadata(), principal: { id: 'ops', tenant: 'acme', roles: ['operator'], agents: ['*'], scenarios: ['*'], via: 'api_key' } };
const req = (over: Partial<{ principal: string; roles: string[]; agents: string[]; scenarios: string[]; description: string; expires_at: string }> = {}) => ({
  principal: 'alice',
  roles: ['client_agent'],
  agents: [],
  scenarios: [],
  description: '',
  expires_at: '',
  ...over,
});
/** Creates a key as the operator; the stored row and the whole key. */
async function create(r: ReturnType<typeof req>) {
  const out = await store.api.createApiKey(r, asOps);
  if (!out.api_key) throw new Error('no api_key in the response');
  return { api_key: out.api_key, key: out.key };
}
const refusal = (p: Promise<unknown>) => p.then(() => undefined, (e: unknown) => e as ParleyError);

beforeAll(async () => {
  db = await createPgliteDb();
  await migrate(db, 'registry');
  store = createApiKeyStore({ db, clock, tenant: 'acme' });
}, 60_000);
afterAll(() => db.close());

describe('API keys', () => {
  it('a created key authenticates as its principal with its scope; only the hash of its secret is stored', async () => {
    const { api_key, key } = await create(req({ principal: 'acme-air', roles: ['server_agent'], agents: ['acme-*'], scenarios: ['flight_booking'], description: 'flights' }));
    expect(api_key).toMatchObject({ principal: 'acme-air', tenant: 'acme', roles: ['server_agent'], agents: ['acme-*'], scenarios: ['flight_booking'], created_by: 'ops', revoked_at: '', expires_at: '' });
    const parsed = parseApiKey(key);
    expect(parsed?.key_id).toBe(api_key.key_id);
    const p = await store.authenticate(key);
    expect(p).toMatchObject({ id: 'acme-air', tenant: 'acme', roles: ['server_agent'], agents: ['acme-*'], scenarios: ['flight_booking'], via: 'api_key', credential_id: api_key.key_id });
    const row = await db.query<Record<string, unknown>>('SELECT * FROM registry.api_keys WHERE key_id = $1', [api_key.key_id]);
    expect(JSON.stringify(row.rows)).not.toContain(parsed?.secret);
    expect(row.rows[0]?.secret_hash).toMatch(/^[0-9a-f]{64}$/);
  });

  it('an unknown key, a wrong secret, a revoked and an expired key get one and the same answer', async () => {
    const { api_key, key } = await create(req({ expires_at: new Date(now + 3_600_000).toISOString() }));
    const parsed = parseApiKey(key);
    const other = parseApiKey((await create(req({ principal: 'bob' }))).key);
    const answers: ParleyError[] = [];
    answers.push((await refusal(store.authenticate(`pk_0123456789abcdef_${parsed?.secret}`))) as ParleyError);
    answers.push((await refusal(store.authenticate(`pk_${parsed?.key_id}_${other?.secret}`))) as ParleyError);
    answers.push((await refusal(store.authenticate('not a key'))) as ParleyError);
    expect((await store.authenticate(key)).expires_at).toBe(now + 3_600_000);
    now += 3_600_000;
    answers.push((await refusal(store.authenticate(key))) as ParleyError);
    now -= 3_600_000;
    await store.api.revokeApiKey({ key_id: api_key.key_id });
    answers.push((await refusal(store.authenticate(key))) as ParleyError);
    for (const e of answers) {
      expect(e).toBeInstanceOf(ParleyError);
      expect(e.toJSON()).toEqual(answers[0]?.toJSON());
      expect(e.rule).toBe('api_key');
    }
  });

  it('revoking keeps the first time and the row; listing hides revoked keys unless asked; an unknown key id is api_key_not_found', async () => {
    const { api_key } = await create(req({ principal: 'carol' }));
    const first = await store.api.revokeApiKey({ key_id: api_key.key_id });
    now += 1000;
    const again = await store.api.revokeApiKey({ key_id: api_key.key_id });
    expect(again.api_key?.revoked_at).toBe(first.api_key?.revoked_at);
    expect((await store.api.listApiKeys({ principal: 'carol', include_revoked: false })).api_keys).toEqual([]);
    expect((await store.api.listApiKeys({ principal: 'carol', include_revoked: true })).api_keys.map((k) => k.key_id)).toEqual([api_key.key_id]);
    const missing = await refusal(store.api.revokeApiKey({ key_id: 'ffffffffffffffff' }));
    expect(missing).toMatchObject({ type: 'api_key_not_found', path: 'params.key_id', rule: 'exists' });
  });

  it.each([
    [req({ principal: 'has space' }), 'params.principal', 'principal_id'],
    [req({ roles: [] }), 'params.roles', 'min_items'],
    [req({ roles: ['root'] }), 'params.roles[0]', 'enum'],
    [req({ roles: ['service'] }), 'params.roles[0]', 'enum'],
    [req({ roles: ['server_agent'] }), 'params.agents', 'min_items'],
    [req({ roles: ['server_agent'], agents: ['acme air'] }), 'params.agents[0]', 'namespace_pattern'],
    [req({ expires_at: 'tomorrow' }), 'params.expires_at', 'date_time'],
    [req({ expires_at: '2020-01-01T00:00:00Z' }), 'params.expires_at', 'future'],
    [req({ description: 'x'.repeat(501) }), 'params.description', 'max_length'],
  ])('refuses a bad key request (%j → %s, %s) and stores nothing', async (bad, path, rule) => {
    const before = (await db.query<{ n: number }>('SELECT count(*)::int AS n FROM registry.api_keys')).rows[0]?.n;
    const e = await refusal(store.api.createApiKey(bad, asOps));
    expect(e).toMatchObject({ type: 'invalid_params', path, rule });
    expect((await db.query<{ n: number }>('SELECT count(*)::int AS n FROM registry.api_keys')).rows[0]?.n).toBe(before);
  });

  it('a bootstrap key is made valid with its scope, and a new one for the same principal retires the old', async () => {
    const scope = { principal: 'operator', roles: ['operator' as const], agents: ['*'], scenarios: ['*'], description: 'PARLEY_BOOTSTRAP_OPERATOR_KEY' };
    const first = (await create(req())).key.replace(/^pk_[0-9a-f]{16}/, 'pk_aaaaaaaaaaaaaaaa');
    await store.ensure(first, scope);
    expect((await store.authenticate(first)).roles).toEqual(['operator']);
    await store.ensure(first, scope); // idempotent
    expect((await store.authenticate(first)).id).toBe('operator');
    const second = first.replace('pk_aaaaaaaaaaaaaaaa', 'pk_bbbbbbbbbbbbbbbb');
    await store.ensure(second, scope);
    expect((await store.authenticate(second)).id).toBe('operator');
    expect(await refusal(store.authenticate(first))).toMatchObject({ type: 'unauthenticated', rule: 'api_key' });
    await expect(store.ensure('pk_short', scope)).rejects.toThrow(/not an API key/);
  });
});
