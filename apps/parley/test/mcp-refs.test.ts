import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpError, type Tool } from '@modelcontextprotocol/sdk/types.js';
import { createLogger } from '@parley/runtime';
import { rpc, useKey } from '@parley/testkit';
import { startParley, type EmbeddedParley } from '../src/embedded';

// draft-chang §3.1 references on the MCP face. By default a tools/list has no
// `$ref` at all (many clients never resolve one); `_meta.refs: "local"` allows
// same-document refs (SEP-2106), and `"shared"` also moves sub-schemas repeated
// across tools into content-addressed documents the gateway serves as immutable
// at relative `/s/<hash>` addresses.
let parley: EmbeddedParley;
let client: Client;
const listWith = (meta: Record<string, unknown>) => client.listTools({ _meta: meta } as Parameters<Client['listTools']>[0]);

// One agent, three scenarios whose templates share a long key definition (a
// passenger profile with many allowed values): worth writing once.
const LOYALTY = {
  key_name: 'loyalty_tier',
  key_type: 'string',
  required: false,
  semantic_description:
    "The passenger's frequent-flyer tier as printed on their card, used for lounge access, upgrades and priority boarding. Acceptable values: none, blue, silver, gold, platinum, diamond, lifetime_gold, lifetime_platinum, partner_gold, partner_platinum. Example mapping: 'I am a gold member' -> 'gold'; 'lifetime platinum status' -> 'lifetime_platinum'.",
  enum: ['none', 'blue', 'silver', 'gold', 'platinum', 'diamond', 'lifetime_gold', 'lifetime_platinum', 'partner_gold', 'partner_platinum'],
};
const scenarios = ['lounge_access', 'seat_upgrade', 'priority_boarding'];

beforeAll(async () => {
  parley = await startParley({ port: 0, log: createLogger({ level: 'silent' }) });
  useKey(parley.url, parley.devKey);
  expect((await rpc(parley.url, 'register_agent', { name: 'tier-air', scenarios, tags: ['loyalty'] })).body.error).toBeUndefined();
  // An object-typed key: Parley's payload schema references its recursive parley_safe_value definition.
  expect((await rpc(parley.url, 'register_agent', { name: 'pref-air', scenarios: ['meal_preferences'], tags: ['prefs'] })).body.error).toBeUndefined();
  const prefs = {
    schema_id: 'meal_preferences_v1',
    scenario: 'meal_preferences',
    keys: [
      { key_name: 'booking_ref', key_type: 'string', required: true, semantic_description: 'Six-letter booking reference. Example: ABC123.' },
      { key_name: 'preferences', key_type: 'object', required: false, semantic_description: 'Meal and seat wishes as free-form members.' },
    ],
  };
  expect((await rpc(parley.url, 'publish_schema', { agent: 'pref-air', template: prefs })).body.error).toBeUndefined();
  for (const s of scenarios) {
    const template = {
      schema_id: `${s}_v1`,
      scenario: s,
      keys: [{ key_name: 'booking_ref', key_type: 'string', required: true, semantic_description: 'Six-letter booking reference. Example: ABC123.' }, LOYALTY],
    };
    expect((await rpc(parley.url, 'publish_schema', { agent: 'tier-air', template })).body.error).toBeUndefined();
  }
  client = new Client({ name: 'parley-refs-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${parley.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${parley.devKey}` } } }));
});

afterAll(async () => {
  await client?.close();
  await parley?.stop();
});

/** Replaces every `{"$ref": url}` with the document fetched from that URL. */
async function inline(value: unknown, fetched: Map<string, unknown>): Promise<unknown> {
  if (Array.isArray(value)) return Promise.all(value.map((v) => inline(v, fetched)));
  if (value && typeof value === 'object') {
    const o = value as Record<string, unknown>;
    if (typeof o.$ref === 'string' && o.$ref.startsWith('/s/')) {
      // A relative address: resolved against the gateway the tools were listed from.
      if (!fetched.has(o.$ref)) fetched.set(o.$ref, await (await fetch(`${parley.url}${o.$ref}`)).json());
      return inline(fetched.get(o.$ref), fetched);
    }
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(o)) out[k] = await inline(v, fetched);
    return out;
  }
  return value;
}

describe('MCP tools/list with _meta.refs (draft-chang §3.1)', () => {
  it('"shared" references documents the gateway serves as immutable, and they inline back to the plain list', async () => {
    const plain = await listWith({ tags: ['loyalty'] });
    const shared = await listWith({ tags: ['loyalty'], refs: 'shared' });
    expect(shared.tools.map((t) => t.name)).toEqual(plain.tools.map((t) => t.name));
    const text = JSON.stringify(shared.tools);
    const urls = [...new Set(text.match(/"\/s\/[A-Za-z0-9_-]{8}"/g) ?? [])].map((u) => JSON.parse(u) as string);
    expect(urls.length).toBeGreaterThan(0);
    expect(text.length).toBeLessThan(JSON.stringify(plain.tools).length);

    const res = await fetch(`${parley.url}${urls[0]!}`);
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toContain('immutable');
    expect(res.headers.get('content-type')).toBe('application/schema+json');
    // The same bytes under the full address, named by their SHA-256.
    const body = await res.text();
    const hex = createHash('sha256').update(body).digest('hex');
    expect(createHash('sha256').update(body).digest('base64url').slice(0, 8)).toBe(urls[0]!.slice(3));
    expect(await (await fetch(`${parley.url}/schemas/sha256-${hex}.json`)).text()).toBe(body);

    const fetched = new Map<string, unknown>();
    const restored = (await inline(shared.tools, fetched)) as Tool[];
    // Every instance the plain schema describes, the restored one describes: here, the very same schema.
    for (const [i, t] of restored.entries()) {
      expect(JSON.stringify(sortKeys(t.inputSchema))).toBe(JSON.stringify(sortKeys(plain.tools[i]!.inputSchema)));
    }
  });

  it('by default no tool has a $ref, not even Parley’s own recursive definition; "local" keeps it', async () => {
    const plain = await listWith({ tags: ['prefs'] });
    expect(plain.tools).toHaveLength(1);
    expect(JSON.stringify(plain.tools)).not.toContain('$ref');
    expect(plain.tools[0]!.inputSchema.$defs).toBeUndefined();
    const prefs = (plain.tools[0]!.inputSchema.properties as Record<string, Record<string, unknown>>).preferences!;
    expect(prefs.type).toBe('object');
    expect(prefs.propertyNames).toBeDefined(); // the forbidden-names rule, one level deep
    expect(JSON.stringify((await listWith({ tags: ['prefs'], refs: 'none' })).tools)).toBe(JSON.stringify(plain.tools));
    const local = await listWith({ tags: ['prefs'], refs: 'local' });
    expect(JSON.stringify(local.tools)).toContain('"$ref":"#/$defs/parley_safe_value"');
    // The server still validates with the full schema: a forbidden name deep down is refused.
    const r = await client.callTool({ name: plain.tools[0]!.name, arguments: { booking_ref: 'ABC123', preferences: { a: { constructor: 1 } } } });
    expect(r.isError).toBe(true);
  });

  it('"local" keeps every tool self-contained (no network references)', async () => {
    const local = await listWith({ tags: ['loyalty'], refs: 'local' });
    expect(JSON.stringify(local.tools)).not.toMatch(/"\$ref":"http/);
    expect(local.tools).toHaveLength(3);
  });

  it('an unknown refs value is a protocol error naming the member, and an unknown document is a 404', async () => {
    const e = await listWith({ refs: 'global' }).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(McpError);
    expect((e as McpError).message).toContain('params._meta.refs');
    const missing = await fetch(`${parley.url}/schemas/sha256-${'0'.repeat(64)}.json`);
    expect(missing.status).toBe(404);
    expect((await fetch(`${parley.url}/s/AAAAAAAA`)).status).toBe(404);
  });
});

function sortKeys(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sortKeys);
  if (v && typeof v === 'object') {
    return Object.fromEntries(
      Object.keys(v as object)
        .sort()
        .map((k) => [k, sortKeys((v as Record<string, unknown>)[k])]),
    );
  }
  return v;
}
