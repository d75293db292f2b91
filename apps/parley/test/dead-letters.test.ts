/**
 * Dead letters through the real services in one process (`npm start`: PGlite
 * and the in-process bus): no event stops a pipeline (draft-zhou §6.2 event
 * flow), and operators see, retry and discard what was set aside over
 * JSON-RPC (`list_dead_letters`, `retry_dead_letter`, `discard_dead_letter`)
 * and the CLI (`parley dead-letters`).
 *
 * - an outbox row larger than the bus carries (a fixture written past the
 *   insert guard) is set aside by execution's relay, and the executions after
 *   it reach the registry's usage counter;
 * - an event the registry's usage consumer cannot apply is set aside after its
 *   attempts and the ones after it are counted.
 */
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_CONSUMER_MAX_ATTEMPTS, DEFAULT_DEAD_LETTER_RETENTION_MS, DEFAULT_OUTBOX_MAX_ATTEMPTS, DEFAULT_OUTBOX_POLL_MS, DEFAULT_OUTBOX_RETENTION_MS, DEFAULT_PROCESSED_RETENTION_MS, DEFAULT_STREAM_RETENTION, EventType, type EventEnvelope } from '@parley/events';
import { DEFAULT_EVENT_FLOW, createLogger } from '@parley/runtime';
import { FIGURE_8, REPO_ROOT, rpc, useKey, waitFor } from '@parley/testkit';
import { startParley, type EmbeddedParley } from '../src/embedded';

/** `parley <args>` as a user runs it (apps/cli/bin/parley.mjs), with `env` for the gateway and key. */
function cli(env: Record<string, string>, ...args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const p = spawn(process.execPath, [join(REPO_ROOT, 'apps/cli/bin/parley.mjs'), ...args], { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env } });
    let stdout = '';
    let stderr = '';
    p.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    p.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    p.on('error', reject);
    p.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

let parley: EmbeddedParley;
let clientKey: string;

const usage = async (): Promise<number> => {
  const r = await rpc(parley.url, 'list_agents', { scenario: 'flight_booking' });
  return Number(r.body.result.agents[0].executions);
};

beforeAll(async () => {
  process.env['PARLEY_CONSUMER_MAX_ATTEMPTS'] = '2';
  parley = await startParley({ port: 0, log: createLogger({ level: 'silent' }), rateLimit: null, evolution: { tickMs: 0, heatSampleMs: 0 } });
  delete process.env['PARLEY_CONSUMER_MAX_ATTEMPTS'];
  useKey(parley.url, parley.devKey);
  const created = await rpc(parley.url, 'create_api_key', { principal: 'alice', roles: ['client_agent'] });
  clientKey = created.body.result.key as string;
}, 60_000);

afterAll(async () => {
  await parley?.stop();
});

describe('dead letters in the embedded mode', () => {
  it('reads the event-flow limits with the adapters\' own defaults', () => {
    expect(DEFAULT_EVENT_FLOW).toEqual({
      retention: DEFAULT_STREAM_RETENTION,
      outboxMaxAttempts: DEFAULT_OUTBOX_MAX_ATTEMPTS,
      consumerMaxAttempts: DEFAULT_CONSUMER_MAX_ATTEMPTS,
      outboxRetentionMs: DEFAULT_OUTBOX_RETENTION_MS,
      processedRetentionMs: DEFAULT_PROCESSED_RETENTION_MS,
      deadLetterRetentionMs: DEFAULT_DEAD_LETTER_RETENTION_MS,
      retentionSweepMs: 3_600_000,
      outboxPollMs: DEFAULT_OUTBOX_POLL_MS,
    });
  });

  it('sets aside an outbox row the in-process bus cannot carry; the executions after it are counted; operators list and discard it', async () => {
    const before = await usage();
    const huge: EventEnvelope = {
      id: randomUUID(),
      type: EventType.PayloadExecuted,
      scenario_id: 'flight_booking',
      occurred_at: new Date().toISOString(),
      source: 'fixture',
      data: { execution_id: randomUUID(), agent: 'skyways-air', schema_id: 'flight_booking_v1', scenario_id: 'flight_booking', client_id: 'dev', keys_present: ['x'.repeat(1_100_000)], key_type_correct: {}, defaults_applied: [], duration_ms: 1 },
    };
    await parley.db.query('INSERT INTO execution.outbox (id, subject, event, created_at) VALUES ($1, $2, $3::json, now())', [huge.id, parley.subjects.event('flight_booking', huge.type), JSON.stringify(huge)]);
    for (let i = 0; i < 5; i++) expect((await rpc(parley.url, 'execute', FIGURE_8)).body.error).toBeUndefined();
    await waitFor('five executions counted', async () => ((await usage()) === before + 5 ? true : undefined));

    const r = await rpc(parley.url, 'list_dead_letters', { service: 'execution' });
    expect(r.body.error).toBeUndefined();
    expect(r.body.result.total_dead).toBe(1);
    expect(r.body.result.services).toHaveLength(1);
    expect(r.body.result.services[0]).toMatchObject({ service: 'execution', counts: { dead: 1, retried: 0, discarded: 0 } });
    const dead = r.body.result.services[0].dead_letters[0];
    expect(dead).toMatchObject({ source: 'outbox', event_id: huge.id, event_type: 'payload.executed', status: 'dead', attempts: 1 });
    expect(dead.error).toMatch(/^event_too_large: \d+ bytes exceed the limit of 1048576 bytes$/);

    // It cannot be published however often it is tried: a retry says so and changes nothing.
    const retry = await rpc(parley.url, 'retry_dead_letter', { service: 'execution', id: dead.id });
    expect(retry.body.error.data).toMatchObject({ type: 'illegal_transition', path: 'params.id', rule: 'max_event_bytes' });
    // The CLI shows it across every service, and discards it with a reason.
    const env = { PARLEY_URL: parley.url, PARLEY_API_KEY: parley.devKey };
    const listed = await cli(env, 'dead-letters', 'list');
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).toContain('1 dead letter open');
    expect(listed.stdout).toContain('execution: 1 dead, 0 retried, 0 discarded');
    for (const s of ['registry', 'negotiation', 'semantic-pool', 'evolution']) expect(listed.stdout).toMatch(new RegExp(`^${s}: \\d+ dead`, 'm'));
    expect(listed.stdout).toMatch(new RegExp(`^\\s+${dead.id}\\s+dead\\s+outbox\\s+-\\s+payload\\.executed\\s+flight_booking`, 'm'));
    const discarded = await cli(env, 'dead-letters', 'discard', '--service', 'execution', dead.id, '--reason', 'a test fixture');
    expect(discarded.code, discarded.stderr).toBe(0);
    expect(discarded.stdout.trim()).toBe(`dead letter ${dead.id} of execution discarded`);
    const after = await rpc(parley.url, 'list_dead_letters', { service: 'execution', status: 'all' });
    expect(after.body.result.services[0].dead_letters[0]).toMatchObject({ id: dead.id, status: 'discarded', resolved_by: 'dev', note: 'a test fixture' });
    expect(after.body.result.total_dead).toBe(0);
  });

  it("sets aside an event the registry's usage consumer cannot apply and counts the ones after it", async () => {
    const before = await usage();
    // A payload.executed without an agent: the usage counter's row cannot be written, however often it is tried.
    const bad = { id: randomUUID(), type: EventType.PayloadExecuted, scenario_id: 'flight_booking', occurred_at: new Date().toISOString(), source: 'fixture', data: { execution_id: randomUUID() } } as unknown as EventEnvelope;
    await parley.bus.publishEvent(bad);
    for (let i = 0; i < 3; i++) expect((await rpc(parley.url, 'execute', FIGURE_8)).body.error).toBeUndefined();
    await waitFor('three executions counted behind the bad event', async () => ((await usage()) === before + 3 ? true : undefined), 20_000);
    const r = await rpc(parley.url, 'list_dead_letters', { service: 'registry', scenario: 'flight booking' });
    expect(r.body.result.services[0].dead_letters.map((d: Record<string, unknown>) => [d.source, d.consumer, d.event_id, d.attempts])).toEqual([['consumer', 'parley-registry-usage', bad.id, 2]]);
    // Operators only: a client agent is refused, by the services themselves.
    const refused = await rpc(parley.url, 'list_dead_letters', {}, clientKey);
    expect(refused.status).toBe(403);
    expect(refused.body.error.data).toMatchObject({ type: 'forbidden', rule: 'role' });
    // Bad params are typed and name the member.
    for (const [params, path, rule] of [
      [{ service: 'billing' }, 'params.service', 'enum'],
      [{ status: 'lost' }, 'params.status', 'enum'],
      [{ after_id: '3' }, 'params.after_id', 'requires_service'],
      [{ limit: 0 }, 'params.limit', 'minimum'],
      [{ colour: 'red' }, 'params.colour', 'unknown_member'],
    ] as const) {
      const bad2 = await rpc(parley.url, 'list_dead_letters', params);
      expect(bad2.body.error.data, JSON.stringify(params)).toMatchObject({ type: 'invalid_params', path, rule });
    }
    const missing = await rpc(parley.url, 'retry_dead_letter', { service: 'registry', id: '999999' });
    expect(missing.body.error.data).toMatchObject({ type: 'dead_letter_not_found', path: 'params.id', rule: 'exists' });
  });
});
