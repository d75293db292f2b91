import { randomUUID } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyWebhookSignature } from '@parley/an';
import { EventType, type EventEnvelope, type PatchDocument } from '@parley/events';
import { createLogger } from '@parley/runtime';
import { rpc, useKey, waitFor } from '@parley/testkit';
import { startParley, type EmbeddedParley } from '../src/embedded';

// Operators' webhooks for schema evolution events (patch.*, key.*, pool.matured) through
// the real services in one process: created over JSON-RPC, queued by the execution
// service's durable consumer, delivered by the task webhooks' deliverer, each delivery
// checked by a local receiver with the subscription's secret (Standard Webhooks).

interface Received {
  headers: IncomingHttpHeaders;
  raw: string;
  at: number;
}

let parley: EmbeddedParley;
let receiver: Server;
let base: string;
const received = new Map<string, Received[]>();
/** Paths that answer 500 while they are listed (to exercise the retries). */
const failing = new Set<string>();

beforeAll(async () => {
  receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const path = req.url ?? '/';
      if (failing.has(path)) {
        res.writeHead(500).end();
        return;
      }
      const list = received.get(path) ?? [];
      list.push({ headers: req.headers, raw: Buffer.concat(chunks).toString('utf8'), at: Date.now() });
      received.set(path, list);
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
  parley = await startParley({ port: 0, log: createLogger({ level: 'silent' }) });
  useKey(parley.url, parley.devKey);
});

afterAll(async () => {
  await parley?.stop();
  await new Promise<void>((r) => receiver.close(() => r()));
});

const patch = (scenario: string): PatchDocument => ({
  patch_id: `p1-${scenario}-global`,
  parent_schema_id: `${scenario}_v1`,
  scenario,
  scope: 'global',
  timestamp: Date.now(),
  expires_at: Date.now() + 86_400_000,
  source_cluster_id: 'c1',
  new_keys: [],
  modified_keys: [],
  status: 'proposed',
  pinned: false,
  approval_reasons: ['approval_manual'],
  revision: 1,
});

function event(type: EventEnvelope['type'], scenario: string): EventEnvelope {
  const common = { id: randomUUID(), scenario_id: scenario, occurred_at: new Date().toISOString(), source: 'evolution' };
  if (type === EventType.PoolMatured) {
    return {
      ...common,
      type,
      source: 'semantic-pool',
      data: { cluster_id: 'c1', scenario_id: scenario, scope: 'global', size: 12, heat: 61, distinct_clients: 6, occurrences_in_window: 12, branch: 'clients', reasons: [], matured_at: Date.now(), samples: [{ text: 'window seat', count: 5 }] },
    } as EventEnvelope;
  }
  return { ...common, type, data: { patch: patch(scenario), reasons: ['test'], figures: {}, actor: 'test', ...(type.startsWith('key.') ? { key_name: 'seat_preference' } : {}) } } as EventEnvelope;
}

async function subscribe(params: Record<string, unknown>): Promise<{ id: string; secret: string }> {
  const r = await rpc(parley.url, 'create_event_subscription', params);
  expect(r.body.error).toBeUndefined();
  return { id: r.body.result.subscription.id as string, secret: r.body.result.webhook_secret as string };
}

describe('event subscriptions (webhooks for patch.*, key.*, pool.matured)', () => {
  it('delivers a scenario’s evolution events in order, each signed with the subscription’s secret', async () => {
    const fb = await subscribe({ scenario: 'flight_booking', events: ['patch.*', 'key.*', 'pool.matured'], url: `${base}/fb`, description: 'OSS ticketing' });
    const onlyKeys = await subscribe({ scenario: '*', events: ['key.promoted'], url: `${base}/keys` });
    expect(fb.secret).toMatch(/^whsec_/);
    const sent = [event(EventType.PoolMatured, 'flight_booking'), event(EventType.PatchPublished, 'flight_booking'), event(EventType.PatchPublished, 'photo_retouch'), event(EventType.KeyPromoted, 'photo_retouch'), event(EventType.KeyPromoted, 'flight_booking')];
    for (const e of sent) await parley.bus.publishEvent(e);

    const expected = sent.filter((e) => e.scenario_id === 'flight_booking');
    const ours = new Set(sent.map((e) => e.id));
    // The evolution service consumes the pool.matured too and may publish a real patch for it, which
    // reaches the webhook as well: every delivery must verify; ours must come in the order sent.
    const all = await waitFor('three deliveries to /fb', async () => ((received.get('/fb') ?? []).filter((d) => ours.has(String(d.headers['webhook-id']))).length >= 3 ? received.get('/fb') : undefined));
    for (const d of all) expect(verifyWebhookSignature(fb.secret, d.headers, d.raw, { now: Date.now() }).ok).toBe(true);
    const got = all.filter((d) => ours.has(String(d.headers['webhook-id'])));
    expect(got.map((d) => d.headers['webhook-id'])).toEqual(expected.map((e) => e.id));
    for (const [i, d] of got.entries()) {
      const v = verifyWebhookSignature(fb.secret, d.headers, d.raw, { now: Date.now() });
      expect(v).toMatchObject({ ok: true, id: expected[i]!.id });
      // Another subscription's secret does not verify it.
      expect(verifyWebhookSignature(onlyKeys.secret, d.headers, d.raw, { now: Date.now() }).ok).toBe(false);
      const body = JSON.parse(d.raw) as Record<string, unknown>;
      expect(body).toMatchObject({ type: expected[i]!.type, event_id: expected[i]!.id, scenario_id: 'flight_booking', subscription_id: fb.id, timestamp: expected[i]!.occurred_at });
      expect(body.data).toEqual(JSON.parse(JSON.stringify(expected[i]!.data)));
      expect(d.headers['parley-event-type']).toBe(expected[i]!.type);
    }
    // "*" with one exact type: both scenarios' key.promoted, nothing else.
    const keys = await waitFor('two deliveries to /keys', async () => ((received.get('/keys')?.length ?? 0) >= 2 ? received.get('/keys') : undefined));
    expect(keys.map((d) => JSON.parse(d.raw).scenario_id).sort()).toEqual(['flight_booking', 'photo_retouch']);
    expect(keys.every((d) => JSON.parse(d.raw).type === 'key.promoted')).toBe(true);

    const list = await rpc(parley.url, 'list_event_subscriptions', { scenario: 'flight_booking' });
    const mine = (list.body.result.subscriptions as { id: string; queued: number; delivered: number; state: string; url: string }[]).find((s) => s.id === fb.id);
    expect(mine).toMatchObject({ state: 'active', url: `${base}/fb` });
    expect(mine?.delivered).toBeGreaterThanOrEqual(3);
    expect(mine?.queued).toBeGreaterThanOrEqual(mine?.delivered ?? Infinity);
    expect(JSON.stringify(list.body.result)).not.toContain(fb.secret);
  });

  it('retries a failing receiver and delivers once it answers, without reordering', async () => {
    const s = await subscribe({ scenario: 'fault_management', events: ['patch.*'], url: `${base}/flaky` });
    failing.add('/flaky');
    const first = event(EventType.PatchPublished, 'fault_management');
    const second = event(EventType.PatchUpdated, 'fault_management');
    await parley.bus.publishEvent(first);
    await parley.bus.publishEvent(second);
    await waitFor('a failed attempt recorded', async () => {
      const r = await rpc(parley.url, 'list_event_subscriptions', { scenario: 'fault_management' });
      const sub = (r.body.result.subscriptions as { id: string; last_error: string }[]).find((x) => x.id === s.id);
      return sub?.last_error ? sub : undefined;
    });
    failing.delete('/flaky');
    const got = await waitFor('both deliveries after the retry', async () => ((received.get('/flaky')?.length ?? 0) >= 2 ? received.get('/flaky') : undefined), 15_000);
    expect(got.map((d) => d.headers['webhook-id'])).toEqual([first.id, second.id]);
  });

  it('stops delivering to a deleted subscription', async () => {
    const s = await subscribe({ scenario: 'photo_retouch', events: ['patch.*'], url: `${base}/gone` });
    const del = await rpc(parley.url, 'delete_event_subscription', { id: s.id });
    expect(del.body.result).toEqual({ deleted: true });
    const again = await rpc(parley.url, 'delete_event_subscription', { id: s.id });
    expect(again.body.error.data).toMatchObject({ type: 'event_subscription_not_found', path: 'params.id' });
    const marker = await subscribe({ scenario: 'photo_retouch', events: ['patch.*'], url: `${base}/marker` });
    await parley.bus.publishEvent(event(EventType.PatchPublished, 'photo_retouch'));
    await waitFor('the marker subscription got it', async () => (received.get('/marker')?.length ? true : undefined));
    expect(received.get('/gone')).toBeUndefined();
    await rpc(parley.url, 'delete_event_subscription', { id: marker.id });
  });

  it('refuses a URL the allow-list does not admit, unknown event patterns, and callers without the operator role', async () => {
    const url = await rpc(parley.url, 'create_event_subscription', { scenario: 'flight_booking', events: ['patch.*'], url: 'http://10.1.2.3/hook' });
    expect(url.body.error.data).toMatchObject({ type: 'invalid_params', path: 'params.url', rule: 'webhook_allowed' });
    const ev = await rpc(parley.url, 'create_event_subscription', { scenario: 'flight_booking', events: ['patch.*', 'payload.executed'], url: `${base}/x` });
    expect(ev.body.error.data).toMatchObject({ type: 'invalid_params', path: 'params.events[1]', rule: 'enum' });
    const sc = await rpc(parley.url, 'create_event_subscription', { scenario: '💥', events: ['patch.*'], url: `${base}/x` });
    expect(sc.body.error.data.type).toBe('invalid_params');
    const key = await rpc(parley.url, 'create_api_key', { principal: 'some-assistant', roles: ['client_agent'] });
    const denied = await rpc(parley.url, 'create_event_subscription', { scenario: 'flight_booking', events: ['patch.*'], url: `${base}/x` }, key.body.result.key);
    expect(denied.status).toBe(403);
    expect(denied.body.error.data).toMatchObject({ type: 'forbidden', rule: 'role' });
    const listed = await rpc(parley.url, 'list_event_subscriptions', {}, key.body.result.key);
    expect(listed.status).toBe(403);
  });
});
