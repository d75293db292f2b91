/**
 * apps/semantic-pool on PGlite and the in-process bus: users' own words in
 * `other` (draft-zhou §7: personal information protected "at rest"; `other`
 * sanitised "preventing prompt injection").
 *
 * - personal data is scrubbed before embedding: the embedder, the `sanitized`
 *   column and the pool.matured samples only ever see placeholders;
 * - raw_text in the database is a sealed envelope, opened only for GetCluster
 *   include_raw (operators), and only inside its retention period;
 * - the retention sweep runs on the injected clock and on a timer; replay never
 *   needs raw text;
 * - raw fragments are not stored at all when so configured; rows written in
 *   clear before migration 002 are sealed (or cleared) at start;
 * - the separate process refuses to start without PARLEY_DATA_KEY.
 */
import { randomUUID } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createOfflineEmbedder, type Embedder } from '@parley/embeddings';
import { EventType, createMemoryBus, createSubjects, type Bus, type EventEnvelope, type PoolMaturedData } from '@parley/events';
import { ConfigError, createLogger, createSealer, ephemeralSealer, generateDataKey, type Sealer } from '@parley/runtime';
import { createPgliteDb, type Db } from '@parley/storage';
import { startProcess, waitFor, serviceOnlyAuthenticator, testIdentity } from '@parley/testkit';
import { createEmbeddedIndex } from '@parley/vectors';
import { rawFragmentsFromEnv, startSemanticPool, type RunningSemanticPool } from '../src/index';

const DAY = 86_400_000;
const T0 = Date.UTC(2026, 5, 1, 8);
const subjects = createSubjects('rawt');
const RAW = 'window seat please, mail me at jane.doe@example.com or call +1 555 123 4567';
const PLAINTEXT_BITS = ['jane', 'doe@', 'example.com', '555 123', '5551234567', '4567'];

let db: Db;
let bus: Bus;
let now = T0;
const clock = { now: () => new Date(now) };
const logLines: string[] = [];
const log = createLogger({ level: 'info', write: (l) => logLines.push(l) });
let running: RunningSemanticPool | undefined;
/** Every text the embedder was asked to embed. */
let embedded: string[] = [];

/** The offline embedder (same id, so the same measured threshold), recording its inputs. */
function recordingEmbedder(): Embedder {
  const offline = createOfflineEmbedder();
  return {
    id: offline.id,
    dimensions: offline.dimensions,
    async embed(texts) {
      embedded.push(...texts);
      return offline.embed(texts);
    },
  };
}

type RawOption = Parameters<typeof startSemanticPool>[0]['raw'];

async function start(raw: RawOption, extra: { rawPurgeMs?: number } = {}): Promise<RunningSemanticPool> {
  running = await startSemanticPool({
    db,
    bus,
    subjects,
    authenticator: serviceOnlyAuthenticator(testIdentity().serviceToken),
    embedder: recordingEmbedder(),
    index: createEmbeddedIndex(),
    clock,
    log,
    ...(raw ? { raw } : {}),
    heatSampleMs: 0,
    // One sentence from six clients: the diversity wait (two phrasings) is off, this file is about personal data.
    config: { min_phrasings: 1 },
    rawPurgeMs: extra.rawPurgeMs ?? 0,
    grpcHost: '127.0.0.1',
    grpcPort: 0,
  });
  return running;
}

async function restart(raw: RawOption, extra: { rawPurgeMs?: number } = {}): Promise<RunningSemanticPool> {
  await running?.stop();
  running = undefined;
  return start(raw, extra);
}

function captured(client: string, fragments: string[], at = now): EventEnvelope {
  return {
    id: randomUUID(),
    type: EventType.OtherCaptured,
    scenario_id: 'flight_booking',
    occurred_at: new Date(at).toISOString(),
    source: 'test',
    data: { execution_id: randomUUID(), agent: 'skyways-air', schema_id: 'flight_booking_v1', scenario_id: 'flight_booking', client_id: client, fragments },
  };
}

const count = async (): Promise<number> => Number((await db.query<{ n: number }>('SELECT count(*)::int AS n FROM pool.inputs')).rows[0]?.n);

async function send(events: EventEnvelope[]): Promise<void> {
  const before = await count();
  const fragments = events.reduce((n, e) => n + (e.data as { fragments: string[] }).fragments.length, 0);
  for (const e of events) await bus.publishEvent(e);
  await waitFor(`${fragments} fragments stored`, async () => ((await count()) >= before + fragments ? true : undefined));
}

interface Row {
  event_id: string;
  fragment_index: number;
  raw_text: string | null;
  raw_sealed: boolean;
  sanitized: string | null;
  flags: string[];
  vector: number[] | null;
  global_cluster_id: string | null;
}
const rows = async (): Promise<Row[]> => (await db.query<Row>('SELECT event_id, fragment_index, raw_text, raw_sealed, sanitized, flags, vector, global_cluster_id FROM pool.inputs ORDER BY seq')).rows;

async function outboxEvents(): Promise<EventEnvelope[]> {
  await running!.drainOutbox();
  return (await db.query<{ event: EventEnvelope | string }>('SELECT event FROM pool.outbox ORDER BY seq')).rows.map((r) => (typeof r.event === 'string' ? (JSON.parse(r.event) as EventEnvelope) : r.event));
}

/**
 * Everything the pool schema holds, as one text, with its random ids (UUIDs) blanked: a random event id may hold
 * "4567" in its hex digits and is no leak of the phone number.
 */
async function wholePoolSchema(): Promise<string> {
  const parts: string[] = [];
  for (const t of ['inputs', 'outcomes', 'heat_samples', 'outbox']) parts.push(JSON.stringify((await db.query(`SELECT * FROM pool.${t}`)).rows));
  return parts.join('\n').replace(/\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/gi, '<uuid>');
}

/** Six clients send RAW at the same instant: the global cluster matures (heat 60 >= 50, 6 clients >= 5). */
async function sixClients(): Promise<void> {
  await send(Array.from({ length: 6 }, (_, i) => captured(`client-${i + 1}`, [RAW])));
}

async function globalClusterId(): Promise<string> {
  const id = (await rows()).find((r) => r.global_cluster_id)?.global_cluster_id;
  expect(id).toBeTruthy();
  return id as string;
}

let sealer: Sealer;

beforeEach(async () => {
  now = T0;
  embedded = [];
  logLines.length = 0;
  db = await createPgliteDb();
  bus = createMemoryBus({ subjects });
  sealer = createSealer([generateDataKey('test-1')]);
});

afterEach(async () => {
  await running?.stop();
  running = undefined;
  await bus.close();
  await db.close();
});

describe('personal data never reaches the embedder, the sanitised column or pool.matured (zhou §7)', () => {
  it('an e-mail address and a phone number become placeholders before embedding; only the sealed raw text holds them', async () => {
    await start({ sealer, retentionMs: 30 * DAY });
    await sixClients();
    // The embedder saw the scrubbed text only.
    expect(embedded.length).toBeGreaterThan(0);
    for (const t of embedded) {
      expect(t).toBe('window seat please, mail me at [email] or call [phone]');
      for (const bit of PLAINTEXT_BITS) expect(t).not.toContain(bit);
    }
    // The sanitised column and flags.
    for (const r of await rows()) {
      expect(r.sanitized).toBe('window seat please, mail me at [email] or call [phone]');
      expect(r.flags).toEqual(['email', 'phone']);
    }
    // pool.matured (the global cluster, at the fifth client): samples scrubbed.
    const matured = (await outboxEvents()).filter((e) => e.type === EventType.PoolMatured);
    expect(matured.map((e) => (e.data as PoolMaturedData).scope)).toEqual(['global']);
    // Counted in distinct clients, who are named by per-cluster pseudonyms, never their ids (draft-zhou §7).
    expect((matured[0]!.data as PoolMaturedData).samples).toEqual([{ text: 'window seat please, mail me at [email] or call [phone]', count: 5, clients: ['#1', '#2', '#3', '#4', '#5'] }]);
    expect(JSON.stringify((matured[0]!.data as PoolMaturedData).samples)).not.toContain('client-');
    // Nowhere in the pool schema is the plaintext (raw_text is sealed).
    const all = await wholePoolSchema();
    for (const bit of PLAINTEXT_BITS) expect(all, bit).not.toContain(bit);
  });

  it('cluster views (no include_raw) carry sanitised samples only', async () => {
    await start({ sealer, retentionMs: 30 * DAY });
    await sixClients();
    const id = await globalClusterId();
    const r = await running!.api.getCluster({ scenario: 'flight_booking', id, include_raw: false });
    expect(r.raw).toEqual([]);
    expect(r.cluster?.samples).toEqual(['window seat please, mail me at [email] or call [phone]']);
    const list = await running!.api.listClusters({ scenario: 'flight_booking' });
    expect(JSON.stringify(list)).not.toContain('jane');
  });
});

describe('raw text at rest (zhou §7): sealed, opened only for include_raw', () => {
  it('raw_text in the database is an AES-256-GCM envelope, not the text; include_raw opens it', async () => {
    await start({ sealer, retentionMs: 30 * DAY });
    await sixClients();
    for (const r of await rows()) {
      expect(r.raw_sealed).toBe(true);
      expect(r.raw_text).toMatch(/^psl1\.test-1\.[A-Za-z0-9_-]{16}\.[A-Za-z0-9_-]+$/);
      for (const bit of PLAINTEXT_BITS) expect(r.raw_text).not.toContain(bit);
      expect(sealer.open(r.raw_text as string, `pool.inputs:${r.event_id}:${r.fragment_index}`)).toBe(RAW);
    }
    const id = await globalClusterId();
    const { raw } = await running!.api.getCluster({ scenario: 'flight_booking', id, include_raw: true });
    expect(raw).toHaveLength(6);
    for (const f of raw) {
      expect(f.raw_text).toBe(RAW);
      expect(f.sanitized).toBe('window seat please, mail me at [email] or call [phone]');
      expect(f.flags).toEqual(['email', 'phone']);
    }
  });

  it('an envelope moved to another row does not open there (bound to its row); a key the process lacks is reported, not thrown', async () => {
    await start({ sealer, retentionMs: 30 * DAY });
    await send([captured('a', ['aisle seat, call 555 123 4567']), captured('b', ['aisle seat please'])]);
    const [a, b] = await rows();
    await db.query('UPDATE pool.inputs SET raw_text = $1 WHERE event_id = $2', [a!.raw_text, b!.event_id]);
    const id = (await rows())[1]!.global_cluster_id as string;
    const { raw } = await running!.api.getCluster({ scenario: 'flight_booking', id, include_raw: true });
    const moved = raw.find((f) => f.event_id === b!.event_id)!;
    expect(moved.raw_text).toBe('');
    expect(moved.flags).toContain('raw_unreadable');
    expect(raw.find((f) => f.event_id === a!.event_id)?.raw_text).toBe('aisle seat, call 555 123 4567');
    // Restarted with another key: the clusters come back from the log, the old raw text is unreadable.
    await restart({ sealer: createSealer([generateDataKey('test-2')]), retentionMs: 30 * DAY });
    const again = await running!.api.getCluster({ scenario: 'flight_booking', id, include_raw: true });
    expect(again.raw.every((f) => f.raw_text === '' && f.flags.includes('raw_unreadable'))).toBe(true);
    expect(logLines.filter((l) => l.includes('cannot be opened') && l.includes('unknown_key (key test-1)'))).toHaveLength(1);
  });

  it('keys rotate: a sealer listing the old key second still opens old rows and seals new ones with the new key', async () => {
    const oldKey = generateDataKey('2026a');
    await start({ sealer: createSealer([oldKey]), retentionMs: 30 * DAY });
    await send([captured('a', ['aisle seat, mail a@b.de'])]);
    await restart({ sealer: createSealer([generateDataKey('2026b'), oldKey]), retentionMs: 30 * DAY });
    await send([captured('b', ['aisle seat, mail c@d.de'])]);
    const kids = (await rows()).map((r) => r.raw_text?.split('.')[1]);
    expect(kids).toEqual(['2026a', '2026b']);
    const id = (await rows())[0]!.global_cluster_id as string;
    const { raw } = await running!.api.getCluster({ scenario: 'flight_booking', id, include_raw: true });
    expect(raw.map((f) => f.raw_text)).toEqual(['aisle seat, mail a@b.de', 'aisle seat, mail c@d.de']);
  });

  it('embedded mode (no raw option): an ephemeral key, logged as such', async () => {
    await start(undefined);
    expect(logLines.some((l) => l.includes('ephemeral key'))).toBe(true);
    await send([captured('a', ['aisle seat, mail a@b.de'])]);
    const [r] = await rows();
    expect(r!.raw_text).toMatch(/^psl1\./);
    const { raw } = await running!.api.getCluster({ scenario: 'flight_booking', id: r!.global_cluster_id as string, include_raw: true });
    expect(raw[0]?.raw_text).toBe('aisle seat, mail a@b.de');
  });
});

describe('retention of raw text (PARLEY_RAW_RETENTION_DAYS)', () => {
  it('on the injected clock: raw text older than the period is hidden at once and deleted by the sweep; sanitised text, vectors and clusters stay', async () => {
    await start({ sealer, retentionMs: 30 * DAY });
    await sixClients();
    now = T0 + 10 * DAY;
    await send([captured('late', ['window seat please, mail me at x@y.org'])]);
    const before = await rows();
    const id = await globalClusterId();
    const shape = async () => (await running!.api.listClusters({ scenario: 'flight_booking' })).clusters.map((c) => `${c.id}:${c.scope}:${c.size}:${c.matured}`).sort();
    const viewBefore = await shape();

    now = T0 + 30 * DAY + 1;
    expect(await running!.service.purgeRawText()).toBe(6);
    let after = await rows();
    expect(after.slice(0, 6).every((r) => r.raw_text === null)).toBe(true);
    expect(after[6]!.raw_text).toMatch(/^psl1\./);
    expect(after.map((r) => [r.sanitized, r.flags, r.vector?.length])).toEqual(before.map((r) => [r.sanitized, r.flags, r.vector?.length]));
    const { raw } = await running!.api.getCluster({ scenario: 'flight_booking', id, include_raw: true });
    expect(raw.slice(0, 6).every((f) => f.raw_text === '' && f.flags.includes('raw_expired'))).toBe(true);
    expect(raw[6]?.raw_text).toBe('window seat please, mail me at x@y.org');

    // Past the period but before the next sweep: hidden already.
    now = T0 + 40 * DAY + 1;
    const hidden = await running!.api.getCluster({ scenario: 'flight_booking', id, include_raw: true });
    expect(hidden.raw.every((f) => f.raw_text === '')).toBe(true);
    expect(await running!.service.purgeRawText()).toBe(1);
    after = await rows();
    expect(after.every((r) => r.raw_text === null)).toBe(true);

    // Replay does not need raw text: a restart folds the log into the same clusters.
    await restart({ sealer, retentionMs: 30 * DAY });
    expect(await shape()).toEqual(viewBefore);
  });

  it('the sweep runs on a timer, and a late event already past its retention is not stored raw at all', async () => {
    await start({ sealer, retentionMs: 2 * DAY }, { rawPurgeMs: 25 });
    await send([captured('a', ['aisle seat, mail a@b.de']), captured('b', ['aisle seat please'], T0 - 3 * DAY)]);
    const [fresh, late] = await rows();
    expect(fresh!.raw_text).toMatch(/^psl1\./);
    expect(late!.raw_text).toBeNull();
    expect(late!.sanitized).toBe('aisle seat please');
    now = T0 + 2 * DAY + 1;
    await waitFor('the timer to delete expired raw text', async () => ((await rows()).every((r) => r.raw_text === null) ? true : undefined), 5000);
    expect(logLines.some((l) => l.includes('past their retention deleted'))).toBe(true);
  });
});

describe('raw fragments not stored, and rows from before sealing', () => {
  it('PARLEY_STORE_RAW_FRAGMENTS=false: raw_text stays NULL; include_raw says so', async () => {
    await start({ sealer: null, retentionMs: 30 * DAY });
    await send([captured('a', ['aisle seat, mail a@b.de'])]);
    const [r] = await rows();
    expect(r!.raw_text).toBeNull();
    expect(r!.sanitized).toBe('aisle seat, mail [email]');
    const { raw } = await running!.api.getCluster({ scenario: 'flight_booking', id: r!.global_cluster_id as string, include_raw: true });
    expect(raw[0]).toMatchObject({ raw_text: '', sanitized: 'aisle seat, mail [email]', flags: ['email', 'raw_not_stored'] });
  });

  it('rows stored in clear before migration 002 are sealed at start, or cleared when raw fragments are not stored', async () => {
    await start({ sealer, retentionMs: 30 * DAY });
    await send([captured('a', ['aisle seat please'])]);
    // A row as the previous version wrote it: plaintext, raw_sealed false.
    const legacyId = randomUUID();
    await db.query(
      `INSERT INTO pool.inputs (event_id, fragment_index, scenario_id, client_id, at_ms, raw_text, sanitized, flags, vector, global_cluster_id, client_cluster_id)
       SELECT $1, 0, scenario_id, 'old', at_ms, 'aisle seat, call 555 123 4567', 'aisle seat, call [phone]', ARRAY['phone'], vector, global_cluster_id, client_cluster_id FROM pool.inputs LIMIT 1`,
      [legacyId],
    );
    expect((await rows())[1]).toMatchObject({ raw_sealed: false, raw_text: 'aisle seat, call 555 123 4567' });
    await restart({ sealer, retentionMs: 30 * DAY });
    const sealed = (await rows())[1]!;
    expect(sealed.raw_sealed).toBe(true);
    expect(sealed.raw_text).toMatch(/^psl1\.test-1\./);
    expect(sealed.raw_text).not.toContain('555');
    const { raw } = await running!.api.getCluster({ scenario: 'flight_booking', id: sealed.global_cluster_id as string, include_raw: true });
    expect(raw.find((f) => f.event_id === legacyId)?.raw_text).toBe('aisle seat, call 555 123 4567');
    expect(logLines.some((l) => l.includes('now sealed'))).toBe(true);
    // Switched to not storing raw fragments: everything stored before is deleted at start.
    await restart({ sealer: null, retentionMs: 30 * DAY });
    expect((await rows()).every((r) => r.raw_text === null && r.raw_sealed)).toBe(true);
  });
});

describe('configuration (separate process)', () => {
  const key = Buffer.alloc(32, 3).toString('base64');

  it('needs PARLEY_DATA_KEY unless PARLEY_STORE_RAW_FRAGMENTS=false; retention in days, default 30', () => {
    expect(() => rawFragmentsFromEnv({})).toThrow(ConfigError);
    expect(() => rawFragmentsFromEnv({})).toThrow(/PARLEY_DATA_KEY is required.*PARLEY_STORE_RAW_FRAGMENTS=false/);
    expect(() => rawFragmentsFromEnv({ PARLEY_STORE_RAW_FRAGMENTS: 'true' })).toThrow(/PARLEY_DATA_KEY/);
    const on = rawFragmentsFromEnv({ PARLEY_DATA_KEY: `prod-1:${key}` });
    expect(on.sealer?.kid).toBe('prod-1');
    expect(on.sealer?.ephemeral).toBe(false);
    expect(on.retentionMs).toBe(30 * DAY);
    expect(rawFragmentsFromEnv({ PARLEY_STORE_RAW_FRAGMENTS: 'false', PARLEY_RAW_RETENTION_DAYS: '7' })).toEqual({ sealer: null, retentionMs: 7 * DAY });
    expect(rawFragmentsFromEnv({ PARLEY_DATA_KEY: key, PARLEY_RAW_RETENTION_DAYS: '0.5' }).retentionMs).toBe(DAY / 2);
  });

  it('names the variable of a bad value', () => {
    expect(() => rawFragmentsFromEnv({ PARLEY_STORE_RAW_FRAGMENTS: 'no' })).toThrow(/PARLEY_STORE_RAW_FRAGMENTS must be true or false/);
    expect(() => rawFragmentsFromEnv({ PARLEY_DATA_KEY: 'short' })).toThrow(/PARLEY_DATA_KEY key 1 must be 32 bytes/);
    expect(() => rawFragmentsFromEnv({ PARLEY_DATA_KEY: key, PARLEY_RAW_RETENTION_DAYS: '0' })).toThrow(/PARLEY_RAW_RETENTION_DAYS must be > 0/);
    expect(() => rawFragmentsFromEnv({ PARLEY_DATA_KEY: key, PARLEY_RAW_RETENTION_DAYS: 'a month' })).toThrow(/PARLEY_RAW_RETENTION_DAYS must be a number/);
  });

  it('the process refuses to start without PARLEY_DATA_KEY, before it connects to anything', async () => {
    const p = startProcess('semantic-pool', 'apps/semantic-pool/src/main.ts', {
      PARLEY_DATA_KEY: '',
      PARLEY_STORE_RAW_FRAGMENTS: '',
      DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none',
      NATS_URL: 'nats://127.0.0.1:1',
      GRPC_PORT: '0',
      HEALTH_PORT: '0',
    });
    const code = await new Promise<number | null>((resolve) => p.child.once('exit', (c) => resolve(c)));
    expect(code).toBe(1);
    expect(p.output()).toMatch(/failed to start/);
    expect(p.output()).toMatch(/PARLEY_DATA_KEY is required/);
  }, 30_000);

  it('ephemeralSealer is what embedded mode uses', () => {
    expect(ephemeralSealer().ephemeral).toBe(true);
  });
});
