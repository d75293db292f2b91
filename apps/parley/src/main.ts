// `npm start`: every Parley service in one process on embedded defaults (PGlite,
// the in-process bus), seeded with the drafts' scenarios, then a walk through the
// flight-booking example of draft-zhou §5.1 / Appendix A.
//   PORT (8080)  HOST (127.0.0.1: this machine only; 0.0.0.0 for every interface)
//   DATABASE_URL, NATS_URL (optional: use real ones; with NATS_URL, server agents in other processes attach
//   through that NATS, on the subjects of PARLEY_SUBJECT_PREFIX, default parley)  PARLEY_DATA_DIR (persist PGlite)
//   PARLEY_DEMO=0 skips the walk-through. PARLEY_DEV_KEY: the development API key (made and printed when unset).
//   The gateway's HTTP settings as the separate gateway reads them, through the same function (gatewayHttpFromEnv):
//   MAX_BODY_BYTES, MAX_BATCH, RATE_LIMIT_PER_SECOND/_BURST, PARLEY_MAX_INFLIGHT_PER_PRINCIPAL, PARLEY_HTTP_*_TIMEOUT_MS,
//   PARLEY_TLS_CERT/_KEY/_CA (HTTPS on PORT), PUBLIC_URL, PARLEY_ALLOWED_HOSTS.
import { createParleyClient } from '@parley/client';
import { createLogger, envInt, envOptional, envString, gatewayHttpFromEnv, runUntilSignal } from '@parley/runtime';
import { metricsFromEnv, startTracingFromEnv } from '@parley/runtime';
import { startParley } from './embedded';

const env = process.env;
const log = createLogger({ level: env.LOG_LEVEL ?? 'warn', base: { mode: 'embedded' } });

runUntilSignal('parley', log, async () => {
  // OpenTelemetry traces (OTEL_*; off unless an exporter is configured); Prometheus metrics at GET /metrics (PARLEY_METRICS).
  const tracing = startTracingFromEnv(env, 'embedded');
  const metrics = metricsFromEnv(env);
  const databaseUrl = envOptional(env, 'DATABASE_URL');
  const natsUrl = envOptional(env, 'NATS_URL');
  const dataDir = envOptional(env, 'PARLEY_DATA_DIR');
  const host = envString(env, 'HOST', '127.0.0.1');
  const prefix = envString(env, 'PARLEY_SUBJECT_PREFIX', 'parley');
  const parley = await startParley({
    port: envInt(env, 'PORT', 8080, { min: 0, max: 65535 }),
    host,
    prefix,
    ...(databaseUrl ? { databaseUrl } : {}),
    ...(natsUrl ? { natsUrl } : {}),
    ...(dataDir ? { dataDir } : {}),
    authCacheMs: envInt(env, 'PARLEY_AUTH_CACHE_MS', 2000, { min: 0 }),
    http: gatewayHttpFromEnv(env),
    log,
    metrics: metrics ?? null,
  });
  const url = parley.url.replace('127.0.0.1', 'localhost');
  const tlsOn = parley.url.startsWith('https:');
  const out = (s = '') => process.stdout.write(s + '\n');
  out(`Parley is running at ${url} (embedded: ${databaseUrl ? 'PostgreSQL' : 'PGlite'}, ${natsUrl ? 'NATS JetStream' : 'in-process bus'}; listening on ${host}${tlsOn ? '; HTTPS with PARLEY_TLS_CERT/_KEY, curl needs --cacert $PARLEY_TLS_CA' : ''})`);
  out(
    natsUrl
      ? `Server agents in other processes attach through NATS: createAgent({ name, natsUrl: '${natsUrl.replace(/\/\/[^@/]*@/, '//…@')}'${prefix === 'parley' ? '' : `, prefix: '${prefix}'`} })`
      : 'Server agents in other processes cannot reach the in-process bus: `npm run start:nats` (or NATS_URL=nats://…) lets them attach',
  );
  out(`Embedder for the semantic pool and MCP tool selection: ${parley.embedderId} (PARLEY_EMBEDDER)`);
  out(`Development API key (every role, principal "dev"; PARLEY_DEV_KEY): ${parley.devKey}`);
  out(`Seeded scenarios: flight_booking (flight_booking_v1), photo_retouch (photo_retouch_v2), fault_management (fault_management_v1)`);
  out(`Operator console: ${url}/console/ (sign in with the key above)`);
  out(`Prometheus metrics: ${parley.metrics ? `${url}/metrics` : 'off (PARLEY_METRICS=off)'}; OpenTelemetry traces: ${tracing.enabled ? tracing.description : 'off (set OTEL_EXPORTER_OTLP_ENDPOINT or OTEL_TRACES_EXPORTER to export them)'}`);

  if (env.PARLEY_DEMO !== '0') {
    // The walk-through is this process talking to itself: over loopback, plain HTTP even when PORT serves HTTPS.
    const client = createParleyClient(parley.loopbackUrl, { apiKey: parley.devKey });
    out('\n--- draft-zhou Appendix A, step (3): get_schema_template (Figure 6) ---');
    const template = await client.getSchemaTemplate({ scenario: 'flight_booking', preferred_language: 'en-US' });
    out(`schema ${template.schema_id}: keys ${template.keys.map((k) => k.key_name).join(', ')}`);
    out('\n--- step (4)-(6): execute the payload of Figure 8 ---');
    const result = await client.execute({
      schema_id: 'flight_booking_v1',
      payload: { origin: 'PEK', destination: 'SHA', departure_date: '2026-05-04', cabin_class: 'business', passenger_count: 1, other: 'window seat' },
    });
    out(JSON.stringify(result, null, 2));
  }

  out(`
Try it:
  export PARLEY_API_KEY=${parley.devKey}
  curl -s ${url}/rpc -H 'content-type: application/json' -H "authorization: Bearer $PARLEY_API_KEY" \\
    -d '{"jsonrpc":"2.0","id":1,"method":"get_schema_template","params":{"scenario":"flight_booking","preferred_language":"en-US"}}'
  curl -s ${url}/rpc -H 'content-type: application/json' -H "authorization: Bearer $PARLEY_API_KEY" \\
    -d '{"jsonrpc":"2.0","id":2,"method":"execute","params":{"schema_id":"flight_booking_v1","payload":{"origin":"PEK","destination":"SHA","departure_date":"2026-05-04","other":"window seat"}}}'
  curl -s ${url}/rpc -H 'content-type: application/json' -H "authorization: Bearer $PARLEY_API_KEY" -d '{"jsonrpc":"2.0","id":3,"method":"list_agents","params":{}}'
  npx parley whoami --url ${url}
  npx parley pool clusters --scenario flight_booking --url ${url}
  npx parley patches list --scenario flight_booking --url ${url}
Press Ctrl-C to stop.`);
  return {
    async stop() {
      await parley.stop();
      await tracing.shutdown();
    },
  };
});
