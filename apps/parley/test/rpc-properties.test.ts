import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { METHODS } from '@parley/gateway';
import { ERROR_CATALOGUE } from '@parley/protocol';
import { createLogger } from '@parley/runtime';
import { FIGURE_8, postRaw } from '@parley/testkit';
import { startParley, type EmbeddedParley } from '../src/embedded';

// Properties of the edge, at the RPC level, against the embedded Parley `npm start` runs: every JSON-RPC
// method's string params, execute payloads, MCP and A2A messages, filled with arbitrary unicode, JS property
// names, NUL, lone surrogates, 1 MiB strings and regex-hostile repetitions, get a typed error or a success,
// never `internal`, never a leak (stack, SQL, internal host:port), within a bounded time; and an ordinary
// execute still works afterwards.
//
// `other` in an execute payload gets regex-hostile repetitions up to 8 KiB only: its sanitizer
// (libs/evolution) has its own timing suite for 1 MiB inputs; the other payload strings get 1 MiB.

let parley: EmbeddedParley;
beforeAll(async () => {
  // No rate limit: the suite sends hundreds of requests as one principal.
  parley = await startParley({ port: 0, log: createLogger({ level: 'silent' }), rateLimit: null });
}, 120_000);
afterAll(async () => {
  await parley?.stop();
});

const MIB = 1 << 20;
/** One UTF-16 code unit of any value: lone surrogates included. */
const codeUnit = fc.integer({ min: 0, max: 0xffff }).map((c) => String.fromCharCode(c));
const PROPERTY_NAMES = ['constructor', '__proto__', 'toString', 'hasOwnProperty', 'valueOf', 'prototype', '__defineGetter__', 'isPrototypeOf'];
const INJECTIONS = ["' OR 1=1 --", '"; DROP TABLE registry.agents; --', '<script>alert(1)</script>', '${jndi:ldap://x/a}', '../../../../etc/passwd', '{{7*7}}', '%00', '\\u0000', 'http://169.254.169.254/latest/meta-data/'];

/** Hostile strings; `big` allows the 1 MiB ones. */
const hostile = (big: boolean, maxRepeat = MIB / 2) =>
  fc.oneof(
    fc.string({ unit: codeUnit, maxLength: 40 }),
    fc.string({ unit: 'grapheme', maxLength: 40 }),
    fc.constantFrom(...PROPERTY_NAMES, ...INJECTIONS, '\u0000', 'a\u0000b', '\ud800', 'x\udc00', '\udbff\udbff', '\u202e', '\ufeff', '', ' '),
    fc.constantFrom('a.', 'a', 'aa', '\t ', 'x@', 'http://', '((', '.-').chain((unit) => {
      const max = Math.floor(maxRepeat / unit.length);
      return fc.integer({ min: Math.min(1000, max), max }).map((n) => unit.repeat(n));
    }),
    ...(big ? [fc.constantFrom('x', '😀', 'é').map((u) => u.repeat(Math.floor((MIB - 4096) / (u.length * 3))))] : []),
  );

const PARAM_NAMES = [
  'name', 'scenario', 'schema_id', 'agent', 'client_id', 'preferred_language', 'description', 'domain', 'version', 'patch_id', 'cluster_id',
  'task_id', 'principal', 'key_id', 'reason', 'since_etag', 'id', 'after_id', 'url', 'service', 'language', 'send_from', 'status', 'expires_at',
  'view', 'query', 'text', 'consumer', 'event_id',
];

interface Answer {
  status: number;
  body: unknown;
  text: string;
  ms: number;
}

async function post(path: string, body: string, headers: Record<string, string> = {}): Promise<Answer> {
  const started = performance.now();
  const res = await fetch(`${parley.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${parley.devKey}`, ...headers },
    body,
  });
  const text = await res.text();
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  return { status: res.status, body: parsed, text, ms: performance.now() - started };
}

const LEAKS: [RegExp, string][] = [
  [/\n\s+at [^\n]+\(/, 'stack trace'],
  [/\b(?:SELECT|INSERT INTO|UPDATE \w+ SET)\b|relation "|syntax error at or near/, 'SQL'],
  [/\b(?:\d{1,3}\.){3}\d{1,3}:\d{2,5}\b|\blocalhost:\d{2,5}\b/, 'host:port'],
];

/** The property every answer keeps: typed (a catalogue type, never internal) or a result, no leak, bounded time. */
function expectTyped(a: Answer, what: string, maxMs = 20_000): void {
  expect(a.status, `${what}: HTTP status`).toBeLessThan(500);
  expect(a.ms, `${what}: answered in ${a.ms.toFixed(0)} ms`).toBeLessThan(maxMs);
  const answers = Array.isArray(a.body) ? a.body : [a.body];
  for (const b of answers) {
    expect(b, `${what}: a JSON body`).toBeTypeOf('object');
    const error = (b as { error?: { data?: { type?: unknown } } }).error;
    if (error) {
      const type = error.data?.type;
      if (type !== undefined) {
        expect(Object.keys(ERROR_CATALOGUE), `${what}: typed error`).toContain(type);
        expect(type, `${what}: ${a.text.slice(0, 300)}`).not.toBe('internal');
      }
    }
  }
  for (const [re, kind] of LEAKS) expect(re.test(a.text), `${what}: leaks ${kind}: ${a.text.slice(0, 300)}`).toBe(false);
}

const rpcBody = (method: string, params: unknown) => JSON.stringify({ jsonrpc: '2.0', id: 1, method, params });
const RUNS = Number(process.env.PROPERTY_RUNS ?? 4);

describe('every JSON-RPC method with hostile strings in its params', () => {
  for (const method of Object.keys(METHODS)) {
    it(`${method}: typed error or success, never internal`, async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.dictionary(fc.constantFrom(...PARAM_NAMES, ...PROPERTY_NAMES), fc.oneof(hostile(true), fc.array(hostile(false), { maxLength: 3 })), { minKeys: 1, maxKeys: 3 }),
          async (params) => {
            const body = rpcBody(method, params);
            // Bodies over MAX_BODY_BYTES are refused before they are parsed; both are typed.
            expectTyped(await post('/rpc', body), `${method} ${body.slice(0, 200)}`);
          },
        ),
        { numRuns: RUNS },
      );
    }, 120_000);
  }
});

describe('execute payloads and MCP/A2A messages with hostile strings', () => {
  it('execute: payload strings (1 MiB in keys, 8 KiB in other) and hostile member names', async () => {
    await fc.assert(
      fc.asyncProperty(hostile(true), hostile(false, 8192), fc.constantFrom(...PROPERTY_NAMES, 'ok', 'x\u0000', '\ud800'), async (origin, other, member) => {
        const payload = { ...FIGURE_8.payload, origin, other, [member]: 'v' };
        expectTyped(await post('/rpc', rpcBody('execute', { schema_id: 'flight_booking_v1', payload })), `execute ${JSON.stringify(payload).slice(0, 200)}`);
      }),
      { numRuns: RUNS * 3 },
    );
  }, 300_000);

  it('MCP tools/call and tools/list: hostile tool names, arguments, _meta and queries', async () => {
    await fc.assert(
      fc.asyncProperty(hostile(false), hostile(false, 8192), fc.oneof(fc.constant('x' as unknown), fc.constant(7 as unknown), fc.constant([] as unknown), hostile(false)), async (name, query, args) => {
        const calls = [
          { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: { origin: name } } },
          { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'skyways-air__flight_booking', arguments: args } },
          { jsonrpc: '2.0', id: 3, method: 'tools/list', params: { _meta: { query, short: true } } },
          { jsonrpc: '2.0', id: 4, method: name, params: {} },
        ];
        for (const c of calls) expectTyped(await post('/mcp', JSON.stringify(c)), `mcp ${JSON.stringify(c).slice(0, 200)}`);
      }),
      { numRuns: RUNS * 2 },
    );
  }, 300_000);

  it('A2A SendMessage: hostile metadata, parts and methods', async () => {
    await fc.assert(
      fc.asyncProperty(hostile(false), fc.constantFrom(...PROPERTY_NAMES), async (s, member) => {
        const msgs = [
          { jsonrpc: '2.0', id: 1, method: 'SendMessage', params: { message: { messageId: s, role: 'ROLE_USER', parts: [{ data: FIGURE_8.payload }], metadata: { scenario: s } } } },
          { jsonrpc: '2.0', id: 2, method: 'SendMessage', params: { message: { messageId: 'm', role: 'ROLE_USER', parts: [{ data: { scenario: 'flight_booking', payload: { ...FIGURE_8.payload, other: s } } }] } } },
          { jsonrpc: '2.0', id: 3, method: s, params: { [member]: s } },
          { jsonrpc: '2.0', id: 4, method: 'message/send', params: { message: { kind: 'message', messageId: 'm', role: 'user', parts: [{ kind: 'text', text: s }] } } },
        ];
        for (const m of msgs) expectTyped(await post('/a2a', JSON.stringify(m)), `a2a ${JSON.stringify(m).slice(0, 200)}`);
        const raw = `{"jsonrpc":"2.0","id":5,"method":"SendMessage","params":{"message":{"messageId":"m","role":"ROLE_USER","parts":[{"data":${JSON.stringify(FIGURE_8.payload)}}],"metadata":{"scenario":"flight_booking","${member}":{"polluted":true}}}}}`;
        const a = await post('/a2a', raw);
        expectTyped(a, `a2a metadata.${member}`);
        expect(({} as Record<string, unknown>).polluted).toBeUndefined();
      }),
      { numRuns: RUNS * 2 },
    );
  }, 300_000);
});

describe('afterwards', () => {
  it('an ordinary execute still works and /healthz answers promptly', async () => {
    const started = performance.now();
    const h = await fetch(`${parley.url}/healthz`);
    expect(h.status).toBe(200);
    expect(performance.now() - started).toBeLessThan(2000);
    const r = await postRaw(parley.url, rpcBody('execute', FIGURE_8), { authorization: `Bearer ${parley.devKey}` });
    expect((r.body as { result?: { status?: string } }).result?.status).toBe('confirmed');
  }, 60_000);
});
