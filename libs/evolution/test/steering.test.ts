/**
 * Trust (draft-zhou §7), Abuse: one client cannot steer a cluster (the pure rules).
 *
 * draft-zhou §6.2.1 counts "unique client agents"; §6.2.2 induces a key from
 * "real fragments in the cluster"; §7 treats `other` as untrusted. In a global
 * pool:
 * - `clusterSamples` chooses a cluster's samples round-robin across clients,
 *   at most `max_samples_per_client` texts each, counted in distinct clients
 *   and labelled with per-cluster pseudonyms;
 * - `induceKey` counts labelled samples in distinct clients (a client behind
 *   many texts is one voice) and, among more than `min_value_clients` clients,
 *   admits a value to the enum or the examples only when two clients ask for it;
 * - `centroidWeight` lets a client move the centroid as one client at most.
 * A client's own pool (one client) keeps its fragment counts.
 */
import { describe, expect, it } from 'vitest';
import {
  DEFAULT_INDUCTION_OPTIONS,
  DEFAULT_POOL_CONFIG,
  createTableLexicon,
  addToCluster,
  assignFragment,
  centroidWeight,
  clientScope,
  clusterSamples,
  emptyCluster,
  induceKey,
  mergeCentroid,
  poolConfig,
  type Cluster,
  type InductionSample,
  type PoolKey,
} from '../src/index';
import { T0 } from './helpers';

const GLOBAL: PoolKey = { scenario: 'flight_booking', scope: 'global' };

function feed(pool: PoolKey, items: readonly { client: string; text: string }[], config = DEFAULT_POOL_CONFIG): Cluster {
  let c: Cluster | undefined;
  items.forEach((it, i) => {
    const r = assignFragment({
      pool,
      fragment: { text: it.text, client_id: it.client, at: T0 + i * 1000 },
      neighbors: c ? [{ cluster_id: c.id, score: 0.95 }] : [],
      clusters: c ? [c] : [],
      new_cluster_id: 'k1',
      config,
    });
    c = r.cluster;
  });
  return c as Cluster;
}

const HONEST = [
  { client: 'h1', text: 'window seat please' },
  { client: 'h2', text: 'aisle seat if possible' },
  { client: 'h3', text: 'an aisle seat' },
  { client: 'h1', text: 'a window seat' },
  { client: 'h2', text: 'seat by the window' },
];
/** 500 fragments in 50 different phrasings. */
const FLOOD = Array.from({ length: 500 }, (_, i) => ({ client: 'mallory', text: `seat color purple variant ${String.fromCharCode(97 + (i % 26))}${String.fromCharCode(97 + Math.floor(i / 26) % 2)}` }));

describe('clusterSamples: round-robin across clients, counted in clients (draft-zhou §7)', () => {
  it('a client that floods with 50 phrasings is at most max_samples_per_client samples, each counted once', () => {
    const c = feed(GLOBAL, [...HONEST.slice(0, 3), ...FLOOD, ...HONEST.slice(3)]);
    const mallory = c.samples.filter((s) => s.text.includes('purple'));
    expect(mallory).toHaveLength(DEFAULT_POOL_CONFIG.max_samples_per_client);
    for (const s of mallory) expect(s).toMatchObject({ count: 1 });
    expect(new Set(mallory.flatMap((s) => s.clients ?? [])).size).toBe(1);
    // Every honest text is there; each sample's count is its clients.
    expect(c.samples.map((s) => s.text)).toEqual(expect.arrayContaining(HONEST.map((h) => h.text)));
    for (const s of c.samples) expect(s.count).toBe(s.clients?.length);
    // The client's own list never holds more than the cap.
    for (const x of c.clients) expect((x.samples ?? []).length).toBeLessThanOrEqual(DEFAULT_POOL_CONFIG.max_samples_per_client);
  });

  it('the same text from several clients is one sample whose count is the number of clients', () => {
    const c = feed(GLOBAL, [
      { client: 'a', text: 'window seat' },
      { client: 'a', text: 'window seat' },
      { client: 'a', text: 'window seat' },
      { client: 'b', text: 'Window seat' },
      { client: 'c', text: 'window seat' },
    ]);
    expect(c.samples).toHaveLength(1);
    expect(c.samples[0]).toMatchObject({ count: 3 });
    expect([...(c.samples[0]?.clients ?? [])].sort()).toEqual(['#1', '#2', '#3']);
  });

  it('k clients are k voices: with more clients than max_samples, each gets one sample before anyone gets a second', () => {
    const cfg = poolConfig({ max_samples: 4, recent_samples: 2, max_samples_per_client: 3 });
    const items = ['a', 'b', 'c', 'd', 'e'].flatMap((client) => [0, 1, 2].map((j) => ({ client, text: `${client} says thing ${j}` })));
    const c = feed(GLOBAL, items, cfg);
    expect(c.samples).toHaveLength(4);
    // The four most recently seen clients, one text each.
    expect(c.samples.map((s) => s.text.split(' ')[0])).toEqual(['e', 'd', 'c', 'b']);
  });

  it("a client's own pool keeps its fragment counts and no client labels (zhou §6.2.2 Personalized Adaptation)", () => {
    const own: PoolKey = { scenario: 'flight_booking', scope: clientScope('ff') };
    const c = feed(own, [
      { client: 'ff', text: 'extra legroom' },
      { client: 'ff', text: 'extra legroom' },
      { client: 'ff', text: 'extra legroom please' },
    ]);
    expect(c.samples.map((s) => [s.text, s.count, s.clients])).toEqual([
      ['extra legroom', 2, undefined],
      ['extra legroom please', 1, undefined],
    ]);
  });

  it('state written before samples were kept per client still reads (no samples yet)', () => {
    const legacy: Cluster = { ...emptyCluster('k1', GLOBAL, T0), clients: [{ client_id: 'a', last_seen: T0, recent: [T0] }] };
    expect(clusterSamples(legacy.clients, 'global')).toEqual([]);
    const next = addToCluster(legacy, { text: 'aisle seat', client_id: 'a', at: T0 + 1 }, 'aisle seat', 0.9);
    expect(next.samples.map((s) => [s.text, s.count])).toEqual([['aisle seat', 1]]);
  });
});

describe('induceKey counts clients when samples name them (draft-zhou §7)', () => {
  const labelled = (rows: [string, string[]][]): InductionSample[] => rows.map(([text, clients]) => ({ text, count: clients.length, clients }));

  it('one client behind three texts is one voice; its lone value stays out of the enum and the examples', () => {
    const samples = labelled([
      ['window seat please', ['#1']],
      ['a window seat', ['#1', '#2']],
      ['aisle seat', ['#2', '#3']],
      ['seat color purple', ['#4']],
      ['purple seat color', ['#4']],
      ['my seat color should be purple', ['#4']],
    ]);
    const r = induceKey(samples);
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.candidate.key.key_name).toBe('seat_preference');
    // window: #1 and #2; aisle: #2 and #3 (ties in value order).
    expect(r.candidate.key.enum).toEqual(['aisle', 'window']);
    expect(r.candidate.values).toEqual([
      { value: 'aisle', count: 2 },
      { value: 'window', count: 2 },
    ]);
    // Examples are composed of closed-vocabulary tokens (zhou §7), never the texts as sent.
    expect(r.candidate.examples.map((e) => e.fragment)).toEqual(['aisle seat', 'window seat']);
    expect(JSON.stringify(r.candidate.key)).not.toContain('purple');
    // Used: three clients; excluded: the fourth (one client, not 3 fragments).
    expect(r.candidate).toMatchObject({ fragments_used: 3, fragments_excluded: 1 });
    expect(r.candidate.key.semantic_description).toContain('Learned from 3 clients that used the "other" key.');
  });

  it('for contrast: the same texts without client labels count fragments (14), not clients (4)', () => {
    const r = induceKey([
      { text: 'window seat please', count: 1 },
      { text: 'a window seat', count: 2 },
      { text: 'aisle seat', count: 2 },
      { text: 'seat color purple', count: 3 },
      { text: 'purple seat color', count: 3 },
      { text: 'my seat color should be purple', count: 3 },
    ]);
    expect(r.ok && r.candidate.fragments_used + r.candidate.fragments_excluded).toBe(14);
  });

  it('a word one client repeats cannot reach the name: head words need a share of clients', () => {
    const r = induceKey(
      labelled([
        ['extra legroom', ['#1', '#2', '#3']],
        ['extra legroom purple', ['#4']],
        ['legroom purple please', ['#4']],
        ['purple legroom', ['#4']],
      ]),
    );
    expect(r.ok && r.candidate.key.key_name).toBe('extra_legroom');
    expect(r.ok && r.candidate.kind).toBe('boolean');
  });

  it("a lone client's value is noise, not a reason to give up a boolean key", () => {
    const r = induceKey(
      labelled([
        ['legroom', ['#1', '#2', '#3']],
        ['legroom purple', ['#4']],
      ]),
    );
    expect(r.ok && [r.candidate.key.key_name, r.candidate.kind]).toEqual(['needs_legroom', 'boolean']);
    expect(r.ok && r.candidate.key.semantic_description).not.toContain('purple');
  });

  it('with two clients (no one to corroborate with), each one\'s value counts', () => {
    const r = induceKey(
      labelled([
        ['window seat', ['#1']],
        ['aisle seat', ['#2']],
      ]),
    );
    expect(r.ok && r.candidate.key.enum).toEqual(['aisle', 'window']);
  });

  it('min_value_clients is an option', () => {
    const samples = labelled([
      ['window seat', ['#1', '#2']],
      ['aisle seat', ['#3']],
    ]);
    // "window" and "aisle" are nouns (a table lexicon): one corroborated noun before the head is still a choice.
    const lexicon = createTableLexicon({ window: { pos: 'n' }, aisle: { pos: 'n' }, seat: { pos: 'n' } });
    const strict = induceKey(samples, DEFAULT_INDUCTION_OPTIONS, { lexicon });
    expect(strict.ok && strict.candidate.key.enum).toEqual(['window']);
    const loose = induceKey(samples, { ...DEFAULT_INDUCTION_OPTIONS, min_value_clients: 1 }, { lexicon });
    expect(loose.ok && loose.candidate.key.enum).toEqual(['window', 'aisle']);
  });
});

describe('centroidWeight and the weighted running mean (draft-zhou §7; zhou §6.2.1)', () => {
  it('in a global pool a client weighs 1/max_samples_per_client for its first max_samples_per_client fragments and nothing after; in its own pool 1', () => {
    const w = [0, 1, 2, 3, 999].map((n) => centroidWeight('global', n));
    expect(w).toEqual([1 / 3, 1 / 3, 1 / 3, 0, 0]);
    expect(w.reduce((a, b) => a + b, 0)).toBeCloseTo(1, 12);
    expect(centroidWeight(clientScope('ff'), 999)).toBe(1);
    expect(centroidWeight('global', 1, poolConfig({ max_samples_per_client: 1 }))).toBe(0);
  });

  it('mergeCentroid takes a weight: zero leaves the centroid, a third moves it a quarter of the way after one unit', () => {
    expect(mergeCentroid([1, 0], [0, 1], 5, 0)).toEqual([1, 0]);
    const m = mergeCentroid([1, 0], [0, 1], 1, 1 / 3);
    expect(m[1]! / m[0]!).toBeCloseTo(1 / 3, 12);
    expect(Math.hypot(...m)).toBeCloseTo(1, 12);
    expect(() => mergeCentroid([1, 0], [0, 1], 1, -1)).toThrowError(expect.objectContaining({ type: 'invalid_params' }));
  });

  it('max_samples_per_client is checked: a positive integer, at most max_samples', () => {
    expect(DEFAULT_POOL_CONFIG.max_samples_per_client).toBe(3);
    expect(() => poolConfig({ max_samples_per_client: 0 })).toThrowError(expect.objectContaining({ path: 'max_samples_per_client' }));
    expect(() => poolConfig({ max_samples_per_client: DEFAULT_POOL_CONFIG.max_samples + 1 })).toThrowError(expect.objectContaining({ path: 'max_samples_per_client' }));
  });
});
