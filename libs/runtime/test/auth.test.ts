import { mintApiKey, type Principal } from '@parley/auth';
import { ParleyError } from '@parley/protocol';
import { describe, expect, it } from 'vitest';
import { MIN_SERVICE_TOKEN_LENGTH, createAuthenticator } from '../src/auth';

const SERVICE_TOKEN = 's'.repeat(MIN_SERVICE_TOKEN_LENGTH);
const alice: Principal = { id: 'alice', tenant: 'acme', roles: ['client_agent'], agents: [], scenarios: [], via: 'api_key' };

/** A registry stand-in that counts lookups and can revoke. */
function keyTable(entries: Record<string, Principal>) {
  const live = new Map(Object.entries(entries));
  let lookups = 0;
  return {
    get lookups() {
      return lookups;
    },
    revoke: (key: string) => live.delete(key),
    apiKeys: async (key: string) => {
      lookups++;
      const p = live.get(key);
      if (!p) throw new ParleyError('unauthenticated', 'The API key is not valid', { path: 'headers.authorization', rule: 'api_key' });
      return p;
    },
  };
}

const refusal = (p: Promise<unknown>) => p.then(() => undefined, (e: unknown) => e as ParleyError);

describe('createAuthenticator', () => {
  it('names the rule of every malformed credential', async () => {
    const auth = createAuthenticator({ tenant: 'acme', clock: { now: () => new Date() }, serviceToken: SERVICE_TOKEN });
    expect(await refusal(auth.authenticate(undefined))).toMatchObject({ type: 'unauthenticated', rule: 'credentials_required', path: 'headers.authorization' });
    expect(await refusal(auth.authenticate('   '))).toMatchObject({ rule: 'credentials_required' });
    expect(await refusal(auth.authenticate('Basic YTpi'))).toMatchObject({ rule: 'bearer_scheme' });
    expect(await refusal(auth.authenticate('Bearer not-a-key-or-jwt'))).toMatchObject({ rule: 'credential_format' });
    expect(await refusal(auth.authenticate(`Bearer ${mintApiKey().key}`))).toMatchObject({ rule: 'api_key' });
  });

  it('knows the service token, compares it whole, and refuses a short one at construction', async () => {
    const auth = createAuthenticator({ tenant: 'acme', clock: { now: () => new Date() }, serviceToken: SERVICE_TOKEN });
    expect(await auth.authenticate(`Bearer ${SERVICE_TOKEN}`)).toMatchObject({ id: 'parley-service', roles: ['service'], tenant: 'acme' });
    expect(await refusal(auth.authenticate(`Bearer ${SERVICE_TOKEN}x`))).toMatchObject({ type: 'unauthenticated' });
    expect(() => createAuthenticator({ tenant: 'acme', clock: { now: () => new Date() }, serviceToken: 'short' })).toThrow(/at least 32/);
  });

  it('trusts a verified key for cacheMs on the clock, then asks again: a revoked key stops working within cacheMs', async () => {
    let now = 0;
    const key = mintApiKey().key;
    const table = keyTable({ [key]: alice });
    const auth = createAuthenticator({ tenant: 'acme', clock: { now: () => new Date(now) }, apiKeys: table.apiKeys, cacheMs: 2000 });
    await auth.authenticate(`Bearer ${key}`);
    await auth.authenticate(`bearer  ${key}`);
    expect(table.lookups).toBe(1);
    table.revoke(key);
    now += 1999;
    expect((await auth.authenticate(`Bearer ${key}`)).id).toBe('alice');
    now += 1;
    expect(await refusal(auth.authenticate(`Bearer ${key}`))).toMatchObject({ rule: 'api_key' });
    expect(table.lookups).toBe(2);
  });

  it('never caches a failure, never past the credential’s own expiry, and nothing with cacheMs 0', async () => {
    let now = 0;
    const key = mintApiKey().key;
    const table = keyTable({ [key]: { ...alice, expires_at: 500 } });
    const auth = createAuthenticator({ tenant: 'acme', clock: { now: () => new Date(now) }, apiKeys: table.apiKeys, cacheMs: 10_000 });
    await auth.authenticate(`Bearer ${key}`);
    now = 500;
    await auth.authenticate(`Bearer ${key}`);
    expect(table.lookups).toBe(2);
    const unknown = mintApiKey().key;
    await refusal(auth.authenticate(`Bearer ${unknown}`));
    await refusal(auth.authenticate(`Bearer ${unknown}`));
    expect(table.lookups).toBe(4);
    const uncached = keyTable({ [key]: alice });
    const noCache = createAuthenticator({ tenant: 'acme', clock: { now: () => new Date(now) }, apiKeys: uncached.apiKeys, cacheMs: 0 });
    await noCache.authenticate(`Bearer ${key}`);
    await noCache.authenticate(`Bearer ${key}`);
    expect(uncached.lookups).toBe(2);
  });

  it('refuses a credential issued for another tenant, and says so', async () => {
    const key = mintApiKey().key;
    const table = keyTable({ [key]: { ...alice, tenant: 'globex' } });
    const auth = createAuthenticator({ tenant: 'acme', clock: { now: () => new Date() }, apiKeys: table.apiKeys });
    expect(await refusal(auth.authenticate(`Bearer ${key}`))).toMatchObject({ type: 'unauthenticated', rule: 'tenant' });
  });
});
