import { resolveInfra, exportInfra, isCI } from '@parley/testkit';

/** Resolves PostgreSQL and NATS once for the whole run (see libs/testkit/src/infra.ts). */
export default async function setup(): Promise<() => Promise<void>> {
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
