import { resolveInfra, exportInfra, isCI } from '@parley/testkit';

/** Resolves PostgreSQL and NATS once for the whole run (see libs/testkit/src/infra.ts). */
export default async function setup(): Promise<() => Promise<void>> {
  // JetStream reserves a stream's max_bytes on the server when the stream is created; the services the
  // integration tests spawn (they inherit this environment) ask for a small cap, so that many test streams
  // on one shared server, leaked ones included, never exhaust its storage.
  process.env.PARLEY_STREAM_MAX_BYTES ??= String(32 * 1024 * 1024);
  const r = await resolveInfra();
  exportInfra(r);
  if (r.infra) {
    console.log(`[parley] integration tests use ${r.infra.source} PostgreSQL and NATS (${r.infra.natsUrl})`);
  } else if (isCI()) {
    throw new Error(`[parley] CI=true but integration services are unreachable: ${r.problem}`);
  } else {
    console.warn(`\n[parley] !!! integration services unreachable, their suites will be SKIPPED: ${r.problem}\n`);
  }
  return r.stop;
}
