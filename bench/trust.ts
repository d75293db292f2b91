// `npm run bench:trust` (`npx tsx bench/trust.ts`): the cost of trust (draft-zhou §7) from one run on
// this machine: execute round trips per second and p50/p99 latency with authentication and signatures on
// versus off, one row after another in this one process, the same payload and the concurrency levels of
// bench/run.ts (1 and 64). The payload is Figure 8's (libs/testkit FIGURE_8) without its `other` member: in
// this process the semantic pool ingests every `other` fragment (embedding, vector search, a write) on the
// same event loop as the request path, work bench/run.ts's deployment does not do at all (no pool process),
// and which then sets the throughput by itself (a probe: 110 against 719 rps at c64, trust off).
//  1. trust off: a benchmark-only authenticator that admits every call as one fixed principal without
//     checking anything, and no credential sent; measured first and again last at each concurrency, and every
//     ratio is against the mean of the two (so a machine that drifts during the run shows, and is halved);
//  2. an API key (`pk_…`), checked at the registry, cached PARLEY_AUTH_CACHE_MS = 2000 ms (the default);
//  3. the same key with the cache off (0 ms): every authentication asks the registry (the worst case);
//  4. a JWT (EdDSA, an inline-JWKS issuer, minted here with node:crypto), cached 2000 ms, and with the cache
//     off (every authentication verifies the token's Ed25519 signature and claims);
//  5. a stale `schema_etag` (a client-scoped patch is published first), so every result carries negotiation's
//     signed schema_update_suggestion, through the client SDK with `verify: true` versus without verification,
//     beside the SDK for a client without patches (no suggestion: what the SDK itself costs against row 2);
//  6. micro figures, no services: signDetached / verifyDetached per second over the flight_booking template
//     (libs/runtime jws), what a verification is made of, and authenticate() per second for the service
//     token, a cached API key, a cached JWT, a JWT verified every time, and an API key asked at the registry.
// Rows 1-5 run against embedded Parleys (apps/parley startParley: every service in this process, still over
// gRPC on loopback, the load generator too). Each row gets a Parley of its own, started before it on a fresh
// PostgreSQL database and NATS subject prefix and stopped after it, so no row inherits the asynchronous tail
// of the one before (outbox relay, event consumers: after a 5 s run at c64 that tail keeps this event loop
// busy for 15-30 s). DATABASE_URL / NATS_URL, default the local ones, as bench/run.ts;
// TRUST_BENCH_INFRA=memory uses PGlite and the in-process bus instead. The per-principal rate limit is off
// everywhere. Beside rps, p50 and p99 each row shows this process's CPU time per call (all of Parley but
// PostgreSQL and NATS), less sensitive than rps to whatever else the machine runs, though not immune to it.
// BENCH_SECONDS (5) per load measurement, BENCH_MICRO_MS (500) per micro figure; about 2.5
// minutes in all. The last line is one JSON object with the figures.
import { generateKeyPairSync, createPublicKey, randomUUID, sign as edSign, verify as edVerify, type JsonWebKey } from 'node:crypto';
import { Agent as HttpAgent, request } from 'node:http';
import { cpus, loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import { jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { createJwtVerifier, mintApiKey, type Authenticator, type JwtIssuer, type Principal } from '@parley/auth';
import { createParleyClient, type ParleyClient, type SchemaUpdateSuggestion } from '@parley/client';
import { ApiKeyServiceService, createGrpcClient } from '@parley/contracts';
import { createEmbedderFromEnv } from '@parley/embeddings';
import { EventType, type EventEnvelope, type PatchDocument } from '@parley/events';
import { packagePatch } from '@parley/evolution';
import { flightBookingTemplate } from '@parley/examples';
import { b64url } from '@parley/protocol';
import {
  apiKeysViaRegistry,
  canonicalJson,
  createAuthenticator,
  createKeyRing,
  createLogger,
  generateServiceToken,
  generateSigningKey,
  signDetached,
  systemClock,
  verifyDetached,
} from '@parley/runtime';
import { FIGURE_8, createTestDatabase, uniquePrefix } from '@parley/testkit';
import { startParley, type EmbeddedOptions, type EmbeddedParley } from '../apps/parley/src/embedded';
import { SECONDS, load, type LoadResult } from './load';

const DATABASE_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const NATS_URL = process.env.NATS_URL ?? 'nats://127.0.0.1:4222';
const MEMORY = process.env.TRUST_BENCH_INFRA === 'memory';
const MICRO_MS = Number(process.env.BENCH_MICRO_MS ?? 500);
const CONCURRENCY = [1, 64] as const;
/** Execute load before the first row, not measured (JIT). */
const WARM_UP_MS = 4000;
const TENANT = 'default';
/** Figure 8's payload without `other` (see the top of this file). */
const { other: _other, ...PAYLOAD } = FIGURE_8.payload;
/** Every execute row names this client (the principals are operators, who may name any client). */
const CLIENT = 'bench';
/** The client a patch is scoped to, so its template's etag can be stale (row 5) without touching the others. */
const STALE_CLIENT = 'bench-stale';
const log = (s = ''): void => void process.stdout.write(`${s}\n`);

// ---------------------------------------------------------------------------
// BENCHMARK BASELINE ONLY. "Trust off": admits every call, with or without a credential, as one fixed
// principal, without checking anything. It exists to measure what authentication costs against nothing;
// it must never run Parley. The principal has the development key's roles and patterns, so authorization
// and the guards do the same work in every row and only authentication differs.
const BASELINE_PRINCIPAL: Principal = {
  id: 'dev',
  tenant: TENANT,
  roles: ['operator', 'server_agent', 'client_agent'],
  agents: ['*'],
  scenarios: ['*'],
  via: 'api_key',
};
const benchmarkBaselineAuthenticator: Authenticator = { authenticate: async () => BASELINE_PRINCIPAL };
// ---------------------------------------------------------------------------

/** An EdDSA identity provider: its issuer entry (inline JWKS) and a token minted with node:crypto. */
function benchIssuer(): { issuer: JwtIssuer; token: string } {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  const kid = 'bench-idp-1';
  const jwk: JsonWebKey = { ...publicKey.export({ format: 'jwk' }), kid, use: 'sig', alg: 'EdDSA' };
  const issuer: JwtIssuer = { issuer: 'https://idp.bench.invalid/', alias: 'bench-idp', audience: 'parley', jwks: { keys: [jwk] }, algorithms: ['EdDSA'] };
  const iat = Math.floor(Date.now() / 1000);
  const header = b64url(JSON.stringify({ alg: 'EdDSA', typ: 'JWT', kid }));
  const claims = b64url(
    JSON.stringify({
      iss: issuer.issuer,
      aud: issuer.audience,
      sub: 'load',
      tenant: TENANT,
      // The development key's roles and patterns, as the baseline principal.
      roles: BASELINE_PRINCIPAL.roles,
      parley_agents: ['*'],
      parley_scenarios: ['*'],
      iat,
      exp: iat + 3600,
      jti: randomUUID(),
    }),
  );
  const signature = edSign(null, Buffer.from(`${header}.${claims}`, 'ascii'), privateKey).toString('base64url');
  return { issuer, token: `${header}.${claims}.${signature}` };
}

// ---------------------------------------------------------------------------
// Micro figures

/** Calls of a synchronous `fn` per second over MICRO_MS, after a fifth of that of warm-up. */
function perSecond(fn: () => unknown): number {
  const run = (ms: number) => {
    let n = 0;
    const t0 = performance.now();
    const until = t0 + ms;
    let t = t0;
    while (t < until) {
      for (let i = 0; i < 100; i++) fn();
      n += 100;
      t = performance.now();
    }
    return n / ((t - t0) / 1000);
  };
  run(MICRO_MS / 5);
  return Math.round(run(MICRO_MS));
}

/** Sequential awaited calls of `fn` per second over MICRO_MS, after a fifth of that of warm-up. */
async function perSecondAsync(fn: () => Promise<unknown>): Promise<number> {
  const run = async (ms: number) => {
    let n = 0;
    const t0 = performance.now();
    const until = t0 + ms;
    let t = t0;
    while (t < until) {
      await fn();
      n++;
      t = performance.now();
    }
    return n / ((t - t0) / 1000);
  };
  await run(MICRO_MS / 5);
  return Math.round(await run(MICRO_MS));
}

interface Micro {
  sign_per_s: number;
  verify_per_s: number;
  canonical_json_per_s: number;
  jwk_import_per_s: number;
  ed25519_verify_per_s: number;
  template_json_bytes: number;
  suggestion_verify_per_s: number;
  suggestion_json_bytes: number;
  auth_service_token_per_s: number;
  auth_api_key_cached_per_s: number;
  auth_jwt_cached_per_s: number;
  auth_jwt_uncached_per_s: number;
  auth_api_key_registry_per_s?: number;
}

/** Signing and verification over the flight_booking template, as negotiation signs templates; authenticate() without services. */
async function microFigures(issuer: JwtIssuer, token: string): Promise<Micro> {
  const key = generateSigningKey();
  const jwks = createKeyRing({ active: key }).jwks();
  const template = flightBookingTemplate;
  // The protected header of a template signature (apps/negotiation signing.ts signTemplate).
  const context = { parley: { agent: 'skyways-air', etag: 'e-bench', applied_patches: [], client_id: CLIENT } };
  const jws = signDetached(template, key, context);
  if (!verifyDetached(template, jws, jwks).ok) throw new Error('the micro benchmark signature does not verify');
  const text = canonicalJson(template);
  const [h64, , s64] = jws.split('.') as [string, string, string];
  const input = Buffer.from(`${h64}.${b64url(text)}`, 'ascii');
  const sig = Buffer.from(s64, 'base64url');
  const x = jwks.keys[0]!.x;
  const pub = createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x }, format: 'jwk' });

  // A schema_update_suggestion as negotiation signs it (apps/negotiation signing.ts suggestionOf), checked as a
  // verifying client checks each execute result's (SDK verifySuggestion, JWKS pinned: no network).
  const suggestion: SchemaUpdateSuggestion = {
    parent_schema_id: 'flight_booking_v1',
    etag: 'e-bench',
    patch_ids: ['bench-meal-1'],
    new_keys: [{ key_name: 'meal_preference', key_type: 'string', required: false, enum: ['vegetarian', 'halal', 'none'], semantic_description: "Meal preference. Example: 'no meat please' -> 'vegetarian'.", experimental: true }],
    modified_keys: [{ key_name: 'origin', semantic_description: 'IATA code of the departure airport, or the city it serves. Example: from Beijing -> PEK' }],
  };
  const signedSuggestion: SchemaUpdateSuggestion = { ...suggestion, signature: signDetached(suggestion, key) };
  const pinned = createParleyClient('http://127.0.0.1:9', { verify: jwks });
  await pinned.verifySuggestion(signedSuggestion);

  const sign_per_s = perSecond(() => signDetached(template, key, context));
  const verify_per_s = perSecond(() => verifyDetached(template, jws, jwks));
  const canonical_json_per_s = perSecond(() => canonicalJson(template));
  const jwk_import_per_s = perSecond(() => createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x }, format: 'jwk' }));
  const ed25519_verify_per_s = perSecond(() => edVerify(null, input, pub, sig));

  const serviceToken = generateServiceToken();
  const apiKey = mintApiKey().key;
  const keyPrincipal: Principal = { ...BASELINE_PRINCIPAL };
  const jwt = createJwtVerifier({ issuers: [issuer], tenant: TENANT, clock: systemClock });
  const cached = createAuthenticator({ tenant: TENANT, clock: systemClock, serviceToken, apiKeys: async () => keyPrincipal, jwt, cacheMs: 2000 });
  const uncached = createAuthenticator({ tenant: TENANT, clock: systemClock, serviceToken, jwt, cacheMs: 0 });
  const bearer = (c: string) => `Bearer ${c}`;
  await cached.authenticate(bearer(apiKey));
  await cached.authenticate(bearer(token));
  return {
    sign_per_s,
    verify_per_s,
    canonical_json_per_s,
    jwk_import_per_s,
    ed25519_verify_per_s,
    template_json_bytes: Buffer.byteLength(text),
    suggestion_verify_per_s: await perSecondAsync(() => pinned.verifySuggestion(signedSuggestion)),
    suggestion_json_bytes: Buffer.byteLength(canonicalJson(suggestion)),
    auth_service_token_per_s: await perSecondAsync(() => cached.authenticate(bearer(serviceToken))),
    auth_api_key_cached_per_s: await perSecondAsync(() => cached.authenticate(bearer(apiKey))),
    auth_jwt_cached_per_s: await perSecondAsync(() => cached.authenticate(bearer(token))),
    auth_jwt_uncached_per_s: await perSecondAsync(() => uncached.authenticate(bearer(token))),
  };
}

// ---------------------------------------------------------------------------
// Embedded Parleys

/** The authenticator settings of a row's Parley. */
type Trust = Pick<EmbeddedOptions, 'authenticator' | 'authCacheMs' | 'jwtIssuers'>;

/** A fresh embedded Parley on a fresh database and subject prefix; `cleanup` (drop the database, delete the stream) runs at the end. */
async function startInstance(trust: Trust, embedder: EmbeddedOptions['embedder'], cleanup: Array<() => Promise<void>>): Promise<EmbeddedParley> {
  const db = MEMORY ? undefined : await createTestDatabase(DATABASE_URL);
  if (db) cleanup.push(db.drop);
  const parley = await startParley({
    port: 0,
    tenant: TENANT,
    log: createLogger({ level: 'error' }),
    prefix: uniquePrefix(),
    ...(db ? { databaseUrl: db.url, natsUrl: NATS_URL } : {}),
    // No lifecycle ticks or heat sampling during the measurements.
    evolution: { tickMs: 0, heatSampleMs: 0 },
    rateLimit: null,
    ...(embedder ? { embedder } : {}),
    ...trust,
  });
  if (!MEMORY) cleanup.push(() => deleteStream(parley.subjects.stream));
  return parley;
}

async function deleteStream(stream: string): Promise<void> {
  const nc = await connect({ servers: NATS_URL, name: 'bench-trust-cleanup' });
  try {
    await (await jetstreamManager(nc)).streams.delete(stream).catch(() => false);
  } finally {
    await nc.close();
  }
}

/** A client-scoped patch on flight_booking_v1 (as the evolution service publishes one), so STALE_CLIENT's etag moves. */
async function publishPatch(p: EmbeddedParley): Promise<void> {
  const now = Date.now();
  const patch = packagePatch({
    patch_id: 'bench-meal-1',
    base: flightBookingTemplate,
    scope: { client_id: STALE_CLIENT },
    timestamp: now - 60_000,
    new_keys: [{ key_name: 'meal_preference', key_type: 'string', required: false, enum: ['vegetarian', 'halal', 'none'], semantic_description: "Meal preference. Example: 'no meat please' -> 'vegetarian'." }],
    modified_keys: [{ key_name: 'origin', semantic_description: 'IATA code of the departure airport, or the city it serves. Example: from Beijing -> PEK' }],
  });
  const doc = { ...(JSON.parse(JSON.stringify(patch)) as object), status: 'active', pinned: false, approval_reasons: [], revision: 1 } as unknown as PatchDocument;
  const event = { id: randomUUID(), type: EventType.PatchPublished, scenario_id: 'flight_booking', occurred_at: new Date(now).toISOString(), source: 'evolution', data: { patch: doc, reasons: [], figures: {}, actor: 'bench' } };
  await p.bus.publishEvent(event as EventEnvelope);
  const client = createParleyClient(p.url, { apiKey: p.devKey });
  for (let i = 0; i < 100; i++) {
    const u = await client.getSchemaUpdates({ scenario: 'flight_booking', client_id: STALE_CLIENT }).catch(() => undefined);
    if (u?.patches.some((x) => x.patch_id === 'bench-meal-1')) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('the bench patch never reached the stale client\'s template');
}

/** One execute over keep-alive HTTP, as bench/run.ts sends it; `authorization` undefined sends no credential. */
function httpExecute(url: string, authorization: string | undefined, agent: HttpAgent): () => Promise<boolean> {
  const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'execute', params: { schema_id: FIGURE_8.schema_id, client_id: CLIENT, payload: PAYLOAD } });
  const headers: Record<string, string | number> = { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) };
  if (authorization !== undefined) headers.authorization = authorization;
  return () =>
    new Promise<boolean>((resolve, reject) => {
      const req = request(`${url}/rpc`, { method: 'POST', agent, headers }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve(res.statusCode === 200 && !Buffer.concat(chunks).includes('"error"')));
      });
      req.on('error', reject);
      req.end(body);
    });
}

/** One execute through the client SDK for CLIENT, whose template has no patch: no suggestion (the SDK's own cost). */
function sdkExecute(client: ParleyClient): () => Promise<boolean> {
  return async () => {
    const r = await client.execute({ schema_id: FIGURE_8.schema_id, client_id: CLIENT, payload: { ...PAYLOAD } });
    return r.schema_update_suggestion === undefined;
  };
}

/** One execute through the client SDK with a stale etag: a success only when the result carries the signed suggestion. */
function staleExecute(client: ParleyClient): () => Promise<boolean> {
  return async () => {
    const r = await client.execute({ schema_id: FIGURE_8.schema_id, client_id: STALE_CLIENT, payload: { ...PAYLOAD }, schema_etag: 'stale' });
    return typeof r.schema_update_suggestion?.signature === 'string';
  };
}

/**
 * Waits until this process's event loop is nearly idle (under 5% busy over 250 ms; at most 5 s), after the
 * previous row's Parley was stopped.
 */
async function settle(): Promise<void> {
  const t0 = performance.now();
  while (performance.now() - t0 < 5000) {
    const a = performance.eventLoopUtilization();
    await new Promise((r) => setTimeout(r, 250));
    if (performance.eventLoopUtilization(a).utilization < 0.05) return;
  }
}

interface Row {
  id: string;
  label: string;
  trust: Trust;
  /** Publish the client-scoped patch first (the stale-etag rows). */
  patch?: boolean;
  /** The call the load generator repeats, against this row's Parley. */
  once(p: EmbeddedParley, agent: HttpAgent): () => Promise<boolean>;
}

async function main(): Promise<void> {
  const started = performance.now();
  const load0 = loadavg().map((x) => x.toFixed(1)).join(' ');
  log(`Parley trust benchmark — node ${process.version}, ${SECONDS}s per load measurement, ${MICRO_MS} ms per micro figure`);
  const { issuer, token } = benchIssuer();
  const f = (n: number) => n.toLocaleString('en-US');
  const cleanup: Array<() => Promise<void>> = [];
  // One embedder for every Parley (the offline one loads WordNet once).
  const embedder = createEmbedderFromEnv(process.env);
  const withKeys: Trust = { authCacheMs: 2000, jwtIssuers: [issuer] };
  const noCache: Trust = { authCacheMs: 0, jwtIssuers: [issuer] };
  const off: Trust = { authenticator: benchmarkBaselineAuthenticator };
  const rows: Row[] = [
    { id: 'off', label: '1 trust off (baseline, no credential)', trust: off, once: (p, a) => httpExecute(p.url, undefined, a) },
    { id: 'api_key', label: '2 API key, cache 2000 ms', trust: withKeys, once: (p, a) => httpExecute(p.url, `Bearer ${p.devKey}`, a) },
    { id: 'api_key_nocache', label: '3 API key, cache 0 (registry every call)', trust: noCache, once: (p, a) => httpExecute(p.url, `Bearer ${p.devKey}`, a) },
    { id: 'jwt', label: '4 JWT (EdDSA), cache 2000 ms', trust: withKeys, once: (p, a) => httpExecute(p.url, `Bearer ${token}`, a) },
    { id: 'jwt_nocache', label: '4b JWT (EdDSA), cache 0', trust: noCache, once: (p, a) => httpExecute(p.url, `Bearer ${token}`, a) },
    { id: 'sdk', label: '5 SDK, no suggestion (unpatched client)', trust: withKeys, once: (p) => sdkExecute(createParleyClient(p.url, { apiKey: p.devKey })) },
    { id: 'stale_sdk', label: '5a stale etag, SDK, no verify', trust: withKeys, patch: true, once: (p) => staleExecute(createParleyClient(p.url, { apiKey: p.devKey })) },
    { id: 'stale_sdk_verify', label: '5b stale etag, SDK, verify: true', trust: withKeys, patch: true, once: (p) => staleExecute(createParleyClient(p.url, { apiKey: p.devKey, verify: true })) },
    { id: 'off_again', label: '1 trust off, again', trust: off, once: (p, a) => httpExecute(p.url, undefined, a) },
  ];
  try {
    log('\n(a) micro figures (no services, but the last: a Parley with the cache off)');
    const m = await microFigures(issuer, token);
    {
      // An API key asked at the registry every time: one gRPC call (the service token) and one PostgreSQL lookup.
      const p = await startInstance(noCache, embedder, cleanup);
      const registry = createGrpcClient(ApiKeyServiceService, `127.0.0.1:${p.grpcPorts.registry}`, { credential: p.serviceToken, deadlineMs: 3000 });
      const viaRegistry = createAuthenticator({ tenant: TENANT, clock: systemClock, apiKeys: apiKeysViaRegistry(registry.api), cacheMs: 0 });
      m.auth_api_key_registry_per_s = await perSecondAsync(() => viaRegistry.authenticate(`Bearer ${p.devKey}`));
      registry.close();
      await p.stop();
    }
    log(`  flight_booking template, canonical JSON ${f(m.template_json_bytes)} bytes`);
    log(`  signDetached (Ed25519, JCS):          ${f(m.sign_per_s).padStart(9)} /s`);
    log(`  verifyDetached:                       ${f(m.verify_per_s).padStart(9)} /s`);
    log(`    of which canonicalJson:             ${f(m.canonical_json_per_s).padStart(9)} /s`);
    log(`    of which JWK -> KeyObject import:   ${f(m.jwk_import_per_s).padStart(9)} /s`);
    log(`    of which Ed25519 verify:            ${f(m.ed25519_verify_per_s).padStart(9)} /s`);
    log(`  SDK verifySuggestion (${f(m.suggestion_json_bytes)} bytes):   ${f(m.suggestion_verify_per_s).padStart(9)} /s   (what verify: true adds to an execute result with a suggestion)`);
    log(`  authenticate(), service token:        ${f(m.auth_service_token_per_s).padStart(9)} /s`);
    log(`  authenticate(), API key, cached:      ${f(m.auth_api_key_cached_per_s).padStart(9)} /s`);
    log(`  authenticate(), JWT, cached:          ${f(m.auth_jwt_cached_per_s).padStart(9)} /s`);
    log(`  authenticate(), JWT, cache off:       ${f(m.auth_jwt_uncached_per_s).padStart(9)} /s`);
    log(`  authenticate(), API key at registry:  ${f(m.auth_api_key_registry_per_s ?? 0).padStart(9)} /s   (cache off, one at a time: gRPC + ${MEMORY ? 'PGlite' : 'PostgreSQL'})`);

    log(`\n(b) execute round trips (embedded: every service in this process, gRPC on loopback, ${MEMORY ? 'PGlite + in-process bus' : 'PostgreSQL + NATS JetStream'})`);
    log('  each row on a Parley of its own, started before it and stopped after it; rps/off, cpu/off: against the mean');
    log('  of the two trust-off measurements at the same concurrency; CPU ms/call: this process\'s CPU time per call');
    log(`  ${'row'.padEnd(42)} ${'c'.padStart(3)} ${'rps'.padStart(6)} ${'p50 ms'.padStart(8)} ${'p99 ms'.padStart(8)} ${'rps/off'.padStart(8)} ${'CPU ms/call'.padStart(12)} ${'cpu/off'.padStart(8)} ${'errors'.padStart(6)}`);
    {
      // Warm-up, not measured: the execute path's code is JIT-compiled before the first row (which otherwise
      // came out slower than the same baseline measured last).
      const p = await startInstance(withKeys, embedder, cleanup);
      const agent = new HttpAgent({ keepAlive: true, maxSockets: 128 });
      const sdkClient = createParleyClient(p.url, { apiKey: p.devKey, verify: true });
      const calls = [httpExecute(p.url, `Bearer ${p.devKey}`, agent), httpExecute(p.url, `Bearer ${token}`, agent), sdkExecute(sdkClient)];
      const until = performance.now() + WARM_UP_MS;
      await Promise.all(
        Array.from({ length: 16 }, async (_, i) => {
          while (performance.now() < until) await calls[i % calls.length]!().catch(() => false);
        }),
      );
      agent.destroy();
      await p.stop();
    }
    const results: Record<string, LoadResult & { cpu_ms: number }> = {};
    const baseline = (c: number) => (results[`off_c${c}`]!.rps + results[`off_again_c${c}`]!.rps) / 2;
    const ratio = (k: string, c: number) => results[k]!.rps / baseline(c);
    const cpuBaseline = (c: number) => (results[`off_c${c}`]!.cpu_ms + results[`off_again_c${c}`]!.cpu_ms) / 2;
    const cpuRatio = (k: string, c: number) => results[k]!.cpu_ms / cpuBaseline(c);
    for (const c of CONCURRENCY) {
      for (const r of rows) {
        const p = await startInstance(r.trust, embedder, cleanup);
        const agent = new HttpAgent({ keepAlive: true, maxSockets: 128 });
        try {
          if (r.patch) await publishPatch(p);
          const once = r.once(p, agent);
          // The row must work before it is measured (this also warms the resolution caches and the JWKS).
          let ok = false;
          for (let i = 0; i < 50 && !ok; i++) {
            ok = await once().catch(() => false);
            if (!ok) await new Promise((res) => setTimeout(res, 200));
          }
          if (!ok) throw new Error(`row "${r.label}" does not execute`);
          await settle();
          // CPU time of this process (every service, the agent and the load generator; not PostgreSQL or NATS)
          // per call over the whole load (warm-up included). Less sensitive than rps to what else the machine
          // runs. At c64 part of each call's asynchronous tail (outbox relay, consumers) runs after the load
          // and is not counted, in every row alike.
          let calls = 0;
          const cpu0 = process.cpuUsage();
          const res = await load(c, () => (calls++, once()));
          const cpu = process.cpuUsage(cpu0);
          results[`${r.id}_c${c}`] = { ...res, cpu_ms: Number(((cpu.user + cpu.system) / 1000 / calls).toFixed(2)) };
        } finally {
          agent.destroy();
          await p.stop();
        }
      }
      for (const r of rows) {
        const res = results[`${r.id}_c${c}`]!;
        log(
          `  ${r.label.padEnd(42)} ${String(c).padStart(3)} ${String(res.rps).padStart(6)} ${res.p50_ms.toFixed(2).padStart(8)} ${res.p99_ms.toFixed(2).padStart(8)} ${ratio(`${r.id}_c${c}`, c).toFixed(2).padStart(8)} ${res.cpu_ms.toFixed(2).padStart(12)} ${cpuRatio(`${r.id}_c${c}`, c).toFixed(2).padStart(8)} ${String(res.errors).padStart(6)}`,
        );
      }
    }
    for (const c of CONCURRENCY) {
      const a = results[`stale_sdk_c${c}`]!;
      const b = results[`stale_sdk_verify_c${c}`]!;
      log(`  c${c}: verify: true against no verify: rps ${(b.rps / a.rps).toFixed(2)}x, p50 ${b.p50_ms - a.p50_ms >= 0 ? '+' : ''}${(b.p50_ms - a.p50_ms).toFixed(2)} ms`);
    }
    log(`  total ${Math.round((performance.now() - started) / 1000)} s; load average ${loadavg().map((x) => x.toFixed(1)).join(' ')} at the end, ${load0} at the start (${cpus().length} cores)`);

    const figures: Record<string, number> = { ...m } as unknown as Record<string, number>;
    for (const c of CONCURRENCY) {
      for (const r of rows) {
        const k = `${r.id}_c${c}`;
        const v = results[k]!;
        figures[`${k}_rps`] = v.rps;
        figures[`${k}_p50_ms`] = v.p50_ms;
        figures[`${k}_p99_ms`] = v.p99_ms;
        figures[`${k}_ratio`] = Number(ratio(k, c).toFixed(3));
        figures[`${k}_cpu_ms`] = v.cpu_ms;
        figures[`${k}_cpu_ratio`] = Number(cpuRatio(k, c).toFixed(3));
      }
    }
    figures.errors = Object.values(results).reduce((sum, r) => sum + r.errors, 0);
    log(JSON.stringify(figures));
  } finally {
    for (const step of cleanup) await step().catch(() => {});
  }
}

main().then(
  () => process.exit(0),
  (e: unknown) => {
    console.error(e);
    process.exit(1);
  },
);
