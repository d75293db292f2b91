/**
 * The OpenRPC document tells the truth about results: on `npm start` (embedded), the answers of the methods a
 * fresh Parley can answer are validated against the result schema the document gives for them, with every
 * documented object closed (no member the document does not name), so a result that grows a member, loses a
 * required one or changes a type fails here until the method table (libs/protocol/src/rpc-methods.ts) or
 * proto/ says so. The params sent are checked against the documented params first.
 */
import Ajv, { type ValidateFunction } from 'ajv';
import { createParleyClient } from '@parley/client';
import { createLogger } from '@parley/runtime';
import { FIGURE_8, rpc, useKey } from '@parley/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startParley, type EmbeddedParley } from '../src/embedded';

let parley: EmbeddedParley;
let doc: {
  methods: Array<{ name: string; params: Array<{ name: string; required: boolean; schema: unknown }>; result: { schema: Record<string, unknown> } }>;
  components: { schemas: Record<string, unknown> };
};
const ajv = new Ajv({ allErrors: true, strict: false });
const validators = new Map<string, ValidateFunction>();
const paramValidators = new Map<string, ValidateFunction>();

/** Closes every object schema that names its members and says nothing of others. */
function closed(s: unknown): unknown {
  if (Array.isArray(s)) return s.map(closed);
  if (s === null || typeof s !== 'object') return s;
  const o = Object.fromEntries(Object.entries(s).map(([k, v]) => [k, k === 'properties' ? Object.fromEntries(Object.entries(v as object).map(([p, ps]) => [p, closed(ps)])) : closed(v)]));
  if ('properties' in o && !('additionalProperties' in o)) o.additionalProperties = false;
  return o;
}

const SCHEMAS = 'urn:parley:openrpc-components';
const refs = (s: unknown): unknown => JSON.parse(JSON.stringify(s).replaceAll('"#/components/schemas/', `"${SCHEMAS}#/definitions/`));

beforeAll(async () => {
  parley = await startParley({ port: 0, log: createLogger({ level: 'silent' }) });
  useKey(parley.url, parley.devKey);
  doc = (await (await fetch(`${parley.url}/openrpc.json`)).json()) as typeof doc;
  ajv.addSchema({ $id: SCHEMAS, definitions: refs(closed(doc.components.schemas)) as object });
  for (const m of doc.methods) {
    validators.set(m.name, ajv.compile(refs(closed(m.result.schema)) as object));
    // The params as one object: the content descriptors' schemas, the required ones required, nothing else.
    const params = { type: 'object', properties: Object.fromEntries(m.params.map((p) => [p.name, p.schema])), required: m.params.filter((p) => p.required).map((p) => p.name), additionalProperties: false };
    paramValidators.set(m.name, ajv.compile(refs(params) as object));
  }
}, 180_000);

afterAll(async () => {
  await parley?.stop();
});

async function checked(method: string, params: Record<string, unknown>): Promise<Record<string, unknown>> {
  // What the server accepts, the documented params accept too.
  const validParams = paramValidators.get(method);
  expect(validParams?.(params), `${method} params: ${JSON.stringify(validParams?.errors?.slice(0, 5))}`).toBe(true);
  const r = await rpc(parley.url, method, params);
  expect(r.body.error, `${method}: ${JSON.stringify(r.body.error)}`).toBeUndefined();
  const validate = validators.get(method);
  expect(validate, `${method} is not in the OpenRPC document`).toBeDefined();
  const ok = validate?.(r.body.result);
  expect(ok, `${method}: ${JSON.stringify(validate?.errors?.slice(0, 5))}\n${JSON.stringify(r.body.result).slice(0, 600)}`).toBe(true);
  return r.body.result as Record<string, unknown>;
}

describe('results match the OpenRPC document', () => {
  it('the check can fail: an undocumented member, a missing required one, a wrong type', async () => {
    const who = await checked('whoami', {});
    const validateWho = validators.get('whoami') as ValidateFunction;
    expect(validateWho({ ...who, extra: 1 })).toBe(false);
    const validateAgent = validators.get('get_agent') as ValidateFunction;
    const { agent } = await checked('get_agent', { name: 'skyways-air' });
    expect(validateAgent({ agent: { ...(agent as object), name: undefined } })).toBe(false);
    expect(validateAgent({ agent: { ...(agent as object), executions: 'many' } })).toBe(false);
    expect(validateAgent({ agent: { ...(agent as object), surprise: true } })).toBe(false);
  });

  it('discovery and negotiation', async () => {
    await checked('whoami', {});
    await checked('list_agents', {});
    await checked('get_agent', { name: 'skyways-air' });
    await checked('list_schemas', { include_retired: true });
    await checked('get_schema_template', { scenario: 'flight_booking' });
    await checked('get_schema_template', { scenario: 'flight_booking', compact: true });
    await checked('get_schema_template_signed', { scenario: 'flight_booking', client_id: 'dev' });
    await checked('get_schema_updates', { scenario: 'flight_booking', client_id: 'dev' });
    await checked('discover_profiles', {});
  });

  it('execution', async () => {
    const r = await checked('execute', { schema_id: 'flight_booking_v1', payload: FIGURE_8.payload, schema_etag: 'stale-etag' });
    expect(r.status).toBe('confirmed');
  });

  it('the operator methods', async () => {
    await checked('list_patches', { scenario: 'flight_booking' });
    await checked('list_clusters', { scenario: 'flight_booking' });
    await checked('list_decisions', { scenario: 'flight_booking' });
    await checked('list_audit_samples', { scenario: 'flight_booking' });
    await checked('list_dead_letters', {});
    await checked('list_api_keys', {});
    await checked('list_event_subscriptions', {});
    const key = await checked('create_api_key', { principal: 'openrpc-check', roles: ['client_agent'] });
    const keyId = (key.api_key as { key_id: string }).key_id;
    await checked('revoke_api_key', { key_id: keyId });
  });

  it('through the typed client: discover() and a generated method', async () => {
    const client = createParleyClient(parley.url, { apiKey: parley.devKey });
    const discovered = await client.discover();
    expect(discovered.methods.map((m) => m.name)).toEqual(doc.methods.map((m) => m.name));
    const patches = await client.listPatches({ scenario: 'flight_booking' });
    expect(validators.get('list_patches')?.(patches)).toBe(true);
    const { agent } = await client.getAgent({ name: 'skyways-air' });
    expect(agent?.scenarios).toContain('flight_booking');
  });

  it('registration and retirement', async () => {
    const template = (await rpc(parley.url, 'get_schema_template', { scenario: 'flight_booking' })).body.result as Record<string, unknown>;
    await checked('register_agent', { name: 'openrpc-check', scenarios: ['flight_booking'], tags: ['check'] });
    const pub = await checked('publish_schema', { agent: 'openrpc-check', template: { ...template, schema_id: 'openrpc_check_v1' } });
    expect(pub.created).toBe(true);
    await checked('retire_schema', { agent: 'openrpc-check', schema_id: 'openrpc_check_v1' });
    await checked('unregister_agent', { name: 'openrpc-check' });
  });
});
