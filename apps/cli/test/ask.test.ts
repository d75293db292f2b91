/**
 * `parley ask` as a user runs it: the real bin as a child process against Parley as `npm start` runs it (its own
 * process, the seeded scenarios served by their example agents).
 */
import { mintApiKey } from '@parley/auth';
import { freePort, startProcess, waitReady, type ServiceProcess } from '@parley/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parleyInput } from './run-cli';

const TIMEOUT = { timeout: 60_000 };
const FIGURE_4_WORDS = 'Book me a flight from Beijing to Shanghai next Monday, business class, and I prefer a window seat.';

describe('parley ask against a running Parley', () => {
  let proc: ServiceProcess;
  let env: Record<string, string>;
  let url: string;
  let key: string;
  beforeAll(async () => {
    const port = await freePort();
    key = mintApiKey().key;
    proc = startProcess('parley', 'apps/parley/src/main.ts', { PORT: String(port), PARLEY_DEMO: '0', PARLEY_DEV_KEY: key, LOG_LEVEL: 'error' });
    url = `http://127.0.0.1:${port}`;
    await waitReady(`${url}/readyz`, proc, 110_000);
    env = { PARLEY_URL: url, PARLEY_API_KEY: key };
  }, 120_000);
  afterAll(() => proc?.stop());

  const executions = async (): Promise<number> => {
    const r = await fetch(`${url}/rpc`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'list_agents', params: { scenario: 'flight_booking' } }),
    }).then((x) => x.json() as Promise<{ result: { agents: { executions: number }[] } }>);
    return r.result.agents[0]?.executions ?? 0;
  };

  it('--yes --json: identifies, maps §5.1\'s words to Figure 4, executes; the last line is the JSON summary', TIMEOUT, async () => {
    const r = await parleyInput(env, undefined, 'ask', FIGURE_4_WORDS, '--today', '2026-04-30', '--timezone', 'Asia/Shanghai', '--yes', '--json');
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^scenario {2}flight_booking {2}\(agent skyways-air; score \d\.\d\d\)$/m);
    expect(r.stdout).toMatch(/^ {2}origin +PEK +0\.\d\d +from Beijing$/m);
    expect(r.stdout).toContain('other     "window seat"');
    const last = JSON.parse(r.stdout.trimEnd().split('\n').pop() as string) as Record<string, unknown>;
    expect(Object.keys(last).slice(0, 5)).toEqual(['scenario', 'schema_id', 'payload', 'confidence', 'other']);
    expect(last).toMatchObject({
      scenario: 'flight_booking',
      schema_id: 'flight_booking_v1',
      payload: { origin: 'PEK', destination: 'SHA', departure_date: '2026-05-04', cabin_class: 'business', other: 'window seat' },
      other: ['window seat'],
      executed: true,
      result: { status: 'confirmed' },
    });
    for (const c of Object.values(last['confidence'] as Record<string, number>)) expect(c > 0 && c <= 1).toBe(true);
    // The registry counts executions from events, later: the next test reads the count this one leaves.
    await expect.poll(executions, { timeout: 10_000 }).toBe(1);
  });

  it('asks before executing: "y" on stdin executes, "n" or no answer does not', TIMEOUT, async () => {
    const before = await executions();
    const no = await parleyInput(env, 'n\n', 'ask', 'from PEK to SHA on 2026-12-24', '--today', '2026-11-26');
    expect(no.code).toBe(0);
    expect(no.stderr).toContain('Execute this payload with skyways-air? [y/N]');
    expect(no.stdout).toContain('not executed (declined)');
    const none = await parleyInput(env, '', 'ask', 'from PEK to SHA on 2026-12-24', '--today', '2026-11-26');
    expect(none.stdout).toContain('not executed (declined)');
    expect(await executions()).toBe(before);
    const yes = await parleyInput(env, 'y\n', 'ask', 'from PEK to SHA on 2026-12-24', '--today', '2026-11-26');
    expect(yes.code).toBe(0);
    expect(yes.stdout).toContain('"status": "confirmed"');
    // The registry counts executions from events: give the consumer a moment.
    for (let i = 0; i < 50 && (await executions()) === before; i++) await new Promise((r) => setTimeout(r, 100));
    expect(await executions()).toBe(before + 1);
  });

  it('--dry-run --scenario: maps and stops; a missing REQUIRED key is named with its rule (exit 1)', TIMEOUT, async () => {
    const dry = await parleyInput(env, undefined, 'ask', 'light skin smoothing and a cinematic look, no background blur', '--scenario', 'photo_retouch', '--dry-run', '--json');
    expect(dry.code).toBe(0);
    expect(dry.stdout).toContain('not executed (--dry-run)');
    expect(JSON.parse(dry.stdout.trimEnd().split('\n').pop() as string)).toMatchObject({ payload: { skin_smoothing: 3, filter_style: 'cinematic', background_blur: false }, executed: false });
    const missing = await parleyInput(env, undefined, 'ask', 'a business class flight to Shanghai tomorrow', '--yes', '--today', '2026-11-26');
    expect(missing.code).toBe(1);
    expect(missing.stdout).toContain('missing   origin (REQUIRED');
    expect(missing.stderr).toMatch(/^parley ask: payload_invalid \(at payload\.origin, rule required\)/m);
    expect(missing.stderr).toContain('nothing was executed');
  });

  it('words no scenario explains: exit 1 with the closest scenarios', TIMEOUT, async () => {
    const r = await parleyInput(env, undefined, 'ask', 'Translate this paragraph into German for me', '--yes');
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('parley ask: No registered scenario matches these words; the closest:');
    expect(r.stderr).toMatch(/closest scenario +agent +score +words explained/);
    for (const s of ['flight_booking', 'photo_retouch', 'fault_management']) expect(r.stderr).toContain(s);
  });

  it('usage errors exit 2', TIMEOUT, async () => {
    const cases: [string[], string][] = [
      [['ask'], 'WORDS are missing'],
      [['ask', 'x', '--threshold', '2'], '--threshold must be a number from 0 to 1'],
      [['ask', 'x', '--dry-run', '--yes'], '--dry-run and --yes contradict each other'],
      [['ask', 'x', '--mapper', 'magic'], '--mapper must be offline or llm'],
      [['ask', 'x', '--today', '26/11/2026'], 'today must be a calendar date YYYY-MM-DD'],
      [['ask', 'x', '--timezone', 'Nowhere/Else'], 'is not an IANA time zone'],
    ];
    for (const [args, message] of cases) {
      const r = await parleyInput(env, undefined, ...args);
      expect([r.code, args.join(' ')]).toEqual([2, args.join(' ')]);
      expect(r.stderr).toContain(message);
    }
  });
});
