import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ParleyError } from '@parley/protocol';
import { createParleyClient, type ParleyClient } from '../src/index';
import { createRpcCall } from '../src/rpc';

// The client against a scripted JSON-RPC endpoint: what it sends for the schema
// self-evolution members (draft-zhou §6.2.2 etags, polling, Figure 9 suggestions;
// §6.2.3 audit utterance and warnings) and what it exposes.
interface Call {
  method: string;
  params: Record<string, unknown>;
}
let server: Server;
let url = '';
let calls: Call[] = [];
let answer: (c: Call) => { result?: unknown; error?: { code: number; message: string; data?: unknown } };

const TEMPLATE = { schema_id: 'flight_booking_v1', scenario: 'flight_booking', keys: [{ key_name: 'seat_preference', key_type: 'string', required: false, semantic_description: 'Seat.', experimental: true }] };
const UPDATES = { etag: 'e-current', changed: true, parent_schema_id: 'flight_booking_v1', patches: [] };

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      const msg = JSON.parse(body) as { id: number; method: string; params: Record<string, unknown> };
      const call = { method: msg.method, params: msg.params };
      calls.push(call);
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ jsonrpc: '2.0', id: msg.id, ...answer(call) }));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise((r) => server.close(r));
});

let client: ParleyClient;
beforeEach(() => {
  calls = [];
  client = createParleyClient(url);
  answer = (c) => {
    if (c.method === 'get_schema_updates') return { result: UPDATES };
    if (c.method === 'get_schema_template') return { result: TEMPLATE };
    if (c.method === 'execute') {
      return {
        result: {
          booking_id: 'BK-1',
          schema_update_suggestion: { parent_schema_id: 'flight_booking_v1', etag: 'e-current', patch_ids: ['g1'], new_keys: [TEMPLATE.keys[0]], modified_keys: [] },
          warnings: ['payload.meal_preference was withdrawn; accepted until 2026-06-01T00:00:00.000Z'],
        },
      };
    }
    return { error: { code: -32601, message: 'no', data: { type: 'method_not_found', message: 'no' } } };
  };
});

describe('getSchemaTemplate keeps the etag of the effective template (§6.2.2)', () => {
  it('asks for the etag first, then the template; returns the template itself and keeps the etag per schema_id and client_id', async () => {
    const t = await client.getSchemaTemplate({ scenario: 'flight_booking', client_id: 'alice' });
    expect(t).toEqual(TEMPLATE);
    expect(calls.map((c) => c.method)).toEqual(['get_schema_updates', 'get_schema_template']);
    expect(calls[0]?.params).toEqual({ scenario: 'flight_booking', client_id: 'alice' });
    expect(client.schemaEtag('flight_booking_v1', 'alice')).toBe('e-current');
    expect(client.schemaEtag('flight_booking_v1')).toBeUndefined();
    expect(await client.getSchemaTemplateWithEtag({ scenario: 'flight_booking' })).toEqual({ template: TEMPLATE, etag: 'e-current' });
  });

  it('keeps no etag when it describes another base version, or when the gateway has no polling endpoint', async () => {
    answer = (c) => (c.method === 'get_schema_updates' ? { result: { ...UPDATES, parent_schema_id: 'flight_booking_v2' } } : { result: TEMPLATE });
    expect((await client.getSchemaTemplateWithEtag({ scenario: 'flight_booking' })).etag).toBeUndefined();
    answer = (c) => (c.method === 'get_schema_updates' ? { error: { code: -32601, message: 'Unknown method', data: { type: 'method_not_found', message: 'Unknown method' } } } : { result: TEMPLATE });
    expect(await client.getSchemaTemplate({ scenario: 'flight_booking' })).toEqual(TEMPLATE);
    expect(client.schemaEtag('flight_booking_v1')).toBeUndefined();
  });

  it('errors of get_schema_template still come back typed', async () => {
    answer = () => ({ error: { code: -32021, message: 'No schema', data: { type: 'scenario_not_found', message: 'No schema', path: 'params.scenario', rule: 'exists' } } });
    const e = await client.getSchemaTemplate({ scenario: 'teleportation' }).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(ParleyError);
    expect((e as ParleyError).type).toBe('scenario_not_found');
  });
});

describe('execute: schema_etag, utterance; schema_update_suggestion and warnings exposed', () => {
  it('sends the kept etag (or the one given) and the utterance', async () => {
    await client.getSchemaTemplate({ scenario: 'flight_booking', client_id: 'alice' });
    calls = [];
    await client.execute({ schema_id: 'flight_booking_v1', client_id: 'alice', payload: { origin: 'PEK' }, utterance: 'window seat please' });
    expect(calls[0]).toEqual({ method: 'execute', params: { schema_id: 'flight_booking_v1', client_id: 'alice', payload: { origin: 'PEK' }, utterance: 'window seat please', schema_etag: 'e-current' } });
    await client.execute({ schema_id: 'flight_booking_v1', client_id: 'alice', payload: {}, schema_etag: 'mine' });
    expect(calls[1]?.params.schema_etag).toBe('mine');
    await client.execute({ schema_id: 'flight_booking_v1', client_id: 'bob', payload: {} });
    expect(calls[2]?.params).not.toHaveProperty('schema_etag');
  });

  it('exposes Figure 9\'s schema_update_suggestion and the warnings beside the agent\'s result', async () => {
    const r = await client.execute<{ booking_id: string }>({ schema_id: 'flight_booking_v1', payload: {} });
    expect(r.booking_id).toBe('BK-1');
    expect(r.schema_update_suggestion?.new_keys[0]).toMatchObject({ key_name: 'seat_preference', experimental: true });
    expect(r.schema_update_suggestion?.etag).toBe('e-current');
    expect(r.warnings?.[0]).toContain('withdrawn');
  });
});

describe('getSchemaUpdates: the polling endpoint (§6.2.2)', () => {
  it('passes scenario, client_id, agent and since_etag through', async () => {
    const u = await client.getSchemaUpdates({ scenario: 'flight_booking', client_id: 'alice', agent: 'skyways-air', since_etag: 'e-old' });
    expect(u).toEqual(UPDATES);
    expect(calls[0]).toEqual({ method: 'get_schema_updates', params: { scenario: 'flight_booking', client_id: 'alice', agent: 'skyways-air', since_etag: 'e-old' } });
  });
});

describe('transport failures are typed ParleyErrors naming what happened', () => {
  let raw: Server;
  let rawUrl = '';
  beforeAll(async () => {
    raw = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        const method = (JSON.parse(body) as { method: string }).method;
        res.setHeader('content-type', 'application/json');
        if (method === 'stall') {
          // Headers and half a body, then nothing: the timeout runs out while the body is read.
          res.writeHead(200);
          res.write('{"jsonrpc":"2.0",');
          return;
        }
        if (method === 'proxy503') return void res.writeHead(503).end('{"message":"upstream unavailable"}');
        if (method === 'strerr') return void res.writeHead(401).end('{"error":"unauthorized"}');
        if (method === 'html502') return void res.writeHead(502).end('<html>bad gateway</html>');
        if (method === 'rpc429') {
          return void res.writeHead(429).end(JSON.stringify({ jsonrpc: '2.0', id: 1, error: { code: -32052, message: 'slow down', data: { type: 'rate_limited', message: 'slow down' } } }));
        }
        // Malformed 2xx answers to a single call (the call's id is 1: one createRpcCall per call below).
        const malformed: Record<string, string> = {
          batch: JSON.stringify([{ jsonrpc: '2.0', id: 1, result: { ok: true } }]),
          emptyBatch: '[]',
          nullBody: 'null',
          numberBody: '42',
          stringBody: '"ok"',
          noResult: JSON.stringify({ jsonrpc: '2.0', id: 1 }),
          both: JSON.stringify({ jsonrpc: '2.0', id: 1, result: { ok: true }, error: { code: -32603, message: 'boom', data: { type: 'internal', message: 'boom' } } }),
          wrongId: JSON.stringify({ jsonrpc: '2.0', id: 2, result: { ok: true } }),
          wrongIdType: JSON.stringify({ jsonrpc: '2.0', id: '1', result: { ok: true } }),
          errorWrongId: JSON.stringify({ jsonrpc: '2.0', id: 9, error: { code: -32052, message: 'slow down', data: { type: 'rate_limited', message: 'slow down' } } }),
          errorNotObject: JSON.stringify({ jsonrpc: '2.0', id: 1, error: 'boom' }),
          // The gateway answers id null when the request's id could not be read: still the error it serialises.
          errorNullId: JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32600, message: 'bad envelope', data: { type: 'invalid_request', message: 'bad envelope' } } }),
          resultNull: JSON.stringify({ jsonrpc: '2.0', id: 1, result: null }),
          foreignErrorData: JSON.stringify({ jsonrpc: '2.0', id: 1, error: { code: -32000, message: 'boom', data: 'stack trace' } }),
          untypedErrorData: JSON.stringify({ jsonrpc: '2.0', id: 1, error: { code: -32001, message: 'nope', data: { type: 'not_found' } } }),
        };
        if (Object.prototype.hasOwnProperty.call(malformed, method)) return void res.end(malformed[method]);
        // Hostile answers: the body is the method's params.body, verbatim.
        if (method === 'echo') return void res.end((JSON.parse(body) as { params: { body: string } }).params.body);
        res.end(JSON.stringify({ jsonrpc: '2.0', id: 1, result: { ok: true } }));
      });
    });
    await new Promise<void>((r) => raw.listen(0, '127.0.0.1', r));
    rawUrl = `http://127.0.0.1:${(raw.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    raw.closeAllConnections();
    await new Promise((r) => raw.close(r));
  });

  const failure = async (method: string) => {
    const call = createRpcCall(rawUrl, { timeoutMs: 300 });
    const err = await call(method).then(
      (v) => ({ resolved: v }),
      (e: unknown) => e,
    );
    expect(err, method).toBeInstanceOf(ParleyError);
    return err as ParleyError;
  };

  it('a timeout while the body is read', async () => {
    const e = await failure('stall');
    expect(e.type).toBe('unavailable');
    expect(e.message).toMatch(/timed out after 300 ms while sending its answer \(HTTP 200\)/);
  });

  it('a non-2xx answer without a JSON-RPC error, JSON or not, typed by its status', async () => {
    expect(await failure('proxy503')).toMatchObject({ type: 'unavailable', details: { status: 503 } });
    expect(await failure('strerr')).toMatchObject({ type: 'unauthenticated', details: { status: 401 } });
    expect(await failure('html502')).toMatchObject({ type: 'unavailable', details: { status: 502 } });
    expect((await failure('proxy503')).message).toMatch(/answered HTTP 503 without a JSON-RPC error/);
  });

  it('a JSON-RPC error on a non-2xx answer is still the error it serialises, and a 2xx result resolves', async () => {
    expect(await failure('rpc429')).toMatchObject({ type: 'rate_limited', message: 'slow down' });
    expect(await createRpcCall(rawUrl, { timeoutMs: 300 })('ok')).toEqual({ ok: true });
  });

  it('a 2xx body that is no JSON-RPC response to this call is a typed error naming what was wrong, never a result', async () => {
    const batch = await failure('batch');
    expect(batch).toMatchObject({ type: 'internal', path: 'response', rule: 'single_response', details: { status: 200, got: 'array' } });
    expect(batch.message).toMatch(/a JSON array \(a batch answer\) to a single call/);
    expect(await failure('emptyBatch')).toMatchObject({ rule: 'single_response' });
    for (const [m, got] of [['nullBody', 'null'], ['numberBody', 'number'], ['stringBody', 'string']] as const) {
      const e = await failure(m);
      expect(e, m).toMatchObject({ type: 'internal', path: 'response', rule: 'object', details: { got } });
      expect(e.message, m).toContain(`JSON ${got}`);
    }
    expect(await failure('noResult')).toMatchObject({ type: 'internal', path: 'response', rule: 'result_or_error' });
    expect((await failure('noResult')).message).toMatch(/neither result nor error/);
    expect(await failure('both')).toMatchObject({ type: 'internal', path: 'response', rule: 'result_xor_error' });
    expect((await failure('both')).message).toMatch(/both result and error/);
    const wrong = await failure('wrongId');
    expect(wrong).toMatchObject({ type: 'internal', path: 'response.id', rule: 'id_matches', details: { expected: 1, got: 2 } });
    expect(wrong.message).toMatch(/id 2, not the call's id 1/);
    expect(await failure('wrongIdType')).toMatchObject({ rule: 'id_matches', details: { expected: 1, got: '1' } });
    // An error answering another call is not this call's error.
    expect(await failure('errorWrongId')).toMatchObject({ type: 'internal', rule: 'id_matches' });
    expect(await failure('errorNotObject')).toMatchObject({ type: 'internal', path: 'response.error', rule: 'error_object' });
    expect(await failure('errorNullId')).toMatchObject({ type: 'invalid_request', message: 'bad envelope' });
    // Another server's error data (no Parley error in it) keeps the error's message and carries the data along.
    expect(await failure('foreignErrorData')).toMatchObject({ type: 'internal', message: 'boom', details: { code: -32000, data: 'stack trace' } });
    expect(await failure('untypedErrorData')).toMatchObject({ type: 'internal', message: 'nope', details: { code: -32001 } });
    // A null result is a result.
    expect(await createRpcCall(rawUrl, { timeoutMs: 300 })('resultNull')).toBeNull();
  });

  it('hostile answers (prototype names, NUL, lone surrogates, 1 MiB, deep keys) are typed errors or the result as sent, never anything else', async () => {
    const hostile = ['constructor', '__proto__', 'toString', 'a\u0000b', '\ud800', 'x\udc00y', 'a'.repeat(1 << 20), '('.repeat(5000) + 'a*'.repeat(5000)];
    const bodies: [string, 'ok' | string][] = [];
    for (const h of hostile) {
      bodies.push([JSON.stringify({ jsonrpc: '2.0', id: h, result: h }), 'id_matches']);
      bodies.push([JSON.stringify({ jsonrpc: '2.0', id: 1, error: h }), 'error_object']);
      bodies.push([JSON.stringify({ jsonrpc: '2.0', id: 1, result: { [h]: h } }), 'ok']);
      bodies.push([JSON.stringify([h]), 'single_response']);
      bodies.push([JSON.stringify(h), 'object']);
    }
    // `__proto__` as a JSON key is an own member: neither result nor error is there.
    bodies.push(['{"jsonrpc":"2.0","id":1,"__proto__":{"result":1}}', 'result_or_error']);
    bodies.push(['{"jsonrpc":"2.0","id":1,"constructor":{"result":1},"toString":1}', 'result_or_error']);
    for (const [text, want] of bodies) {
      const call = createRpcCall(rawUrl, { timeoutMs: 2000 });
      const out = await call('echo', { body: text }).then(
        (v) => ({ v }),
        (e: unknown) => e,
      );
      const label = text.slice(0, 60);
      if (want === 'ok') {
        expect(out, label).toEqual({ v: (JSON.parse(text) as { result: unknown }).result });
      } else {
        expect(out, label).toBeInstanceOf(ParleyError);
        expect((out as ParleyError).rule, label).toBe(want);
        expect((out as ParleyError).message.length, label).toBeLessThan(300);
      }
    }
  }, 30_000);
});
