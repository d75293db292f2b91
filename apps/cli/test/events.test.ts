/**
 * `parley events subscribe|list|delete` as a user runs them: the real bin
 * (apps/cli/bin/parley.mjs) as a child process against Parley as `npm start`
 * runs it (its own process), with the development key (an operator) in PARLEY_API_KEY.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mintApiKey } from '@parley/auth';
import { freePort, startProcess, waitReady, type ServiceProcess } from '@parley/testkit';
import { parleyWith } from './run-cli';

const TIMEOUT = { timeout: 60_000 };
let proc: ServiceProcess;
let env: Record<string, string>;

beforeAll(async () => {
  const port = await freePort();
  const devKey = mintApiKey().key;
  proc = startProcess('parley', 'apps/parley/src/main.ts', { PORT: String(port), PARLEY_DEMO: '0', PARLEY_DEV_KEY: devKey, LOG_LEVEL: 'error' });
  await waitReady(`http://127.0.0.1:${port}/readyz`, proc, 110_000);
  env = { PARLEY_URL: `http://127.0.0.1:${port}`, PARLEY_API_KEY: devKey };
}, 120_000);

afterAll(async () => {
  await proc?.stop();
});

describe('parley events', () => {
  it('subscribes a webhook (printing its secret once), lists it without the secret, deletes it', TIMEOUT, async () => {
    const sub = await parleyWith(env, 'events', 'subscribe', '--scenario', 'flight_booking', '--event', 'patch.*', '--event', 'pool.matured', '--webhook', 'http://127.0.0.1:9/hook', '--description', 'ticketing');
    expect(sub.code, sub.stderr).toBe(0);
    expect(sub.stdout).toMatch(/^subscribed http:\/\/127\.0\.0\.1:9\/hook to patch\.\*, pool\.matured of scenario flight_booking \(id [0-9a-f-]{36}\)$/m);
    const secret = /webhook secret: (whsec_\S+)/.exec(sub.stdout)?.[1];
    expect(secret).toBeDefined();
    const id = /\(id ([0-9a-f-]{36})\)/.exec(sub.stdout)![1]!;

    const list = await parleyWith(env, 'events', 'list', '--json');
    expect(list.code, list.stderr).toBe(0);
    const listed = JSON.parse(list.stdout) as { subscriptions: { id: string; events: string[]; description: string; state: string }[] };
    expect(listed.subscriptions.find((s) => s.id === id)).toMatchObject({ events: ['patch.*', 'pool.matured'], description: 'ticketing', state: 'active' });
    expect(list.stdout).not.toContain(secret!);
    const table = await parleyWith(env, 'events', 'list', '--scenario', 'flight_booking');
    expect(table.stdout).toMatch(/^1 event subscription$/m);

    const del = await parleyWith(env, 'events', 'delete', id);
    expect(del.code, del.stderr).toBe(0);
    expect(del.stdout.trim()).toBe(`event subscription ${id} deleted`);
    const again = await parleyWith(env, 'events', 'delete', id);
    expect(again.code).not.toBe(0);
    expect(again.stderr).toContain('event_subscription_not_found');
  });

  it('names what is wrong: no --event, an unknown pattern, a URL the allow-list refuses', TIMEOUT, async () => {
    const none = await parleyWith(env, 'events', 'subscribe', '--scenario', 'flight_booking', '--webhook', 'http://127.0.0.1:9/hook');
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('--event is required');
    const bad = await parleyWith(env, 'events', 'subscribe', '--scenario', 'flight_booking', '--event', 'payload.executed', '--webhook', 'http://127.0.0.1:9/hook');
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toContain('params.events[0]');
    const url = await parleyWith(env, 'events', 'subscribe', '--scenario', 'flight_booking', '--event', 'key.*', '--webhook', 'http://169.254.169.254/latest');
    expect(url.code).not.toBe(0);
    expect(url.stderr).toContain('webhook_allowed');
  });
});
