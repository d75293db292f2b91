import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appendToOutbox, createMemoryBus, createSubjects, EventType, type EventEnvelope } from '@parley/events';
import { createMetrics, startHealthServer } from '@parley/runtime';
import { createPgliteDb, migrate, type Db } from '@parley/storage';

// The metrics' scrape-time sources on the real adapters (PGlite, the in-process bus); the
// module's pure parts are tested in libs/runtime/test/metrics.test.ts.

/** The value of one series in an exposition text, or undefined when it is absent. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  for (const line of text.split('\n')) {
    if (line.startsWith('#')) continue;
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (.+)$/.exec(line);
    if (!m || m[1] !== name) continue;
    const have = Object.fromEntries([...(m[2] ?? '').matchAll(/([a-zA-Z_]+)="((?:[^"\\]|\\.)*)"/g)].map((x) => [x[1], x[2]]));
    if (Object.entries(labels).every(([k, v]) => have[k] === v)) return Number(m[3]);
  }
  return undefined;
}

describe('metrics read from the database and the bus', () => {
  let db: Db;
  beforeAll(async () => {
    db = await createPgliteDb();
    await migrate(db, 'execution');
  });
  afterAll(async () => {
    await db?.close();
  });

  it('outbox depth and the age of the oldest pending row come from SQL on every scrape', async () => {
    const m = createMetrics({ processMetrics: false });
    m.watchOutbox('execution', db, 'execution');
    expect(sample(await m.scrape(), 'parley_outbox_pending', { service: 'execution' })).toBe(0);
    const subjects = createSubjects('parley');
    const event = (): EventEnvelope => ({
      id: crypto.randomUUID(),
      type: EventType.OtherCaptured,
      scenario_id: 'flight_booking',
      occurred_at: new Date().toISOString(),
      source: 'test',
      data: { execution_id: crypto.randomUUID(), agent: 'a', schema_id: 's', scenario_id: 'flight_booking', client_id: 'c', fragments: ['x'] },
    });
    await db.transaction((tx) => appendToOutbox(tx, 'execution', subjects, [event(), event()]));
    await db.exec("UPDATE execution.outbox SET created_at = now() - interval '90 seconds'");
    const text = await m.scrape();
    expect(sample(text, 'parley_outbox_pending', { service: 'execution' })).toBe(2);
    expect(sample(text, 'parley_outbox_oldest_pending_age_seconds', { service: 'execution' })).toBeGreaterThanOrEqual(90);
    expect(sample(text, 'parley_dead_letters', { service: 'execution', source: 'outbox' })).toBe(0);
    await db.exec('UPDATE execution.outbox SET published_at = now()');
    const after = await m.scrape();
    expect(sample(after, 'parley_outbox_pending', { service: 'execution' })).toBe(0);
    expect(sample(after, 'parley_outbox_oldest_pending_age_seconds', { service: 'execution' })).toBe(0);
  });

  it("a durable consumer's backlog on the in-process bus, and /metrics on a health server", async () => {
    const subjects = createSubjects('lagtest');
    const bus = createMemoryBus({ subjects });
    const m = createMetrics({ processMetrics: false });
    m.watchConsumers(async () => (await bus.consumerLag?.()) ?? []);
    let release: () => void = () => {};
    const gate = new Promise<void>((r) => (release = r));
    const consumer = await bus.consume({ durable: 'slow', filterSubjects: [subjects.eventAllScenarios(EventType.PayloadExecuted)] }, () => gate);
    for (let i = 0; i < 4; i++) {
      await bus.publishEvent({
        id: crypto.randomUUID(),
        type: EventType.PayloadExecuted,
        scenario_id: 'flight_booking',
        occurred_at: new Date().toISOString(),
        source: 'test',
        data: { execution_id: 'e', agent: 'a', schema_id: 's', scenario_id: 'flight_booking', client_id: 'c', keys_present: [], key_type_correct: {}, defaults_applied: [], duration_ms: 1 },
      });
    }
    await new Promise((r) => setTimeout(r, 20));
    const health = await startHealthServer({ shuttingDown: false, checks: {} }, 0, '127.0.0.1', { metrics: m });
    try {
      const res = await fetch(`http://127.0.0.1:${health.port}/metrics`);
      expect(res.headers.get('content-type')).toMatch(/^text\/plain/);
      const text = await res.text();
      expect(sample(text, 'parley_jetstream_consumer_pending_messages', { consumer: 'slow' })).toBe(3);
      expect(sample(text, 'parley_jetstream_consumer_ack_pending_messages', { consumer: 'slow' })).toBe(1);
    } finally {
      release();
      await consumer.stop();
      await bus.close();
      await health.close();
    }
  });
});
