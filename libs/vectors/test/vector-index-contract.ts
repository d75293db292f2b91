/**
 * The one contract every `VectorIndex` adapter passes (embedded.test.ts runs it
 * in-process, qdrant.test.ts against a Qdrant server). What it pins down is
 * what draft-zhou §6.2.1's Differential Semantic Pool relies on: scores are
 * cosine similarities (checked against a brute-force computation here), the
 * similarity threshold ("e.g., cosine similarity >= 0.85") cuts where it
 * should, payload filters select one client cohort ("separate DSP instances per
 * scenario or per client-agent cohort"), collections (one per scenario) never
 * see each other's points, and bad input is refused with a typed error naming
 * the rule, before anything is written.
 */
import { randomUUID } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ParleyError } from '@parley/protocol';
import type { Payload, PayloadFilter, VectorIndex, VectorPoint } from '../src/index';

export interface ContractOptions {
  /** A fresh index for each test (its collections are dropped and it is closed afterwards). */
  create: () => VectorIndex | Promise<VectorIndex>;
}

import { seededRandom as prng } from '@parley/testkit';

export { prng };

/** A random vector in [-1, 1)^d scaled by a random norm, so the index must normalise it. */
function randomVector(rand: () => number, d: number): number[] {
  const scale = 0.1 + rand() * 10;
  return Array.from({ length: d }, () => (rand() * 2 - 1) * scale);
}

/** Cosine in float64 from the caller's own numbers: the reference the index is checked against. */
export function bruteCosine(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    const x = a[i] as number;
    const y = b[i] as number;
    dot += x * y;
    na += x * x;
    nb += y * y;
  }
  return dot / Math.sqrt(na * nb);
}

function holds(payload: Payload, key: string, match: string | number | boolean): boolean {
  const v = payload[key];
  return Array.isArray(v) ? v.some((x) => x === match) : v === match;
}

/** The filter's meaning, written independently of both adapters. */
function passes(payload: Payload, f: PayloadFilter | undefined): boolean {
  return (f?.must ?? []).every((c) => holds(payload, c.key, c.match)) && !(f?.mustNot ?? []).some((c) => holds(payload, c.key, c.match));
}

function bruteSearch(points: VectorPoint[], q: ArrayLike<number>, limit: number, minScore = -Infinity, filter?: PayloadFilter) {
  return points
    .filter((p) => passes(p.payload, filter))
    .map((p) => ({ id: p.id, score: bruteCosine(q, p.vector) }))
    .filter((s) => s.score >= minScore)
    .sort((a, b) => b.score - a.score)
    .slice(0, limit);
}

/** A vector at exactly cosine `c` from e0 (in the e0/e1 plane), to place points around a threshold. */
function atCosine(c: number, d: number): number[] {
  const v = new Array<number>(d).fill(0);
  v[0] = c;
  v[1] = Math.sqrt(1 - c * c);
  return v;
}

/** Asserts that `p` rejects with a ParleyError of `type` naming `rule` (and `path`, when given). */
export async function expectRule(p: Promise<unknown>, type: string, rule: string, path?: string): Promise<ParleyError> {
  let caught: unknown;
  try {
    await p;
  } catch (e) {
    caught = e;
  }
  expect(caught, `expected a ParleyError with rule ${rule}`).toBeInstanceOf(ParleyError);
  const err = caught as ParleyError;
  expect({ type: err.type, rule: err.rule }).toEqual({ type, rule });
  if (path !== undefined) expect(err.path).toBe(path);
  expect(err.message).not.toBe('');
  return err;
}

const COHORTS = ['acme', 'globex', 'initech'] as const;

/** `n` points with cohort payloads (every 7th without a cohort, to test missing keys). */
function fixturePoints(n: number, d: number, seed: number): VectorPoint[] {
  const rand = prng(seed);
  return Array.from({ length: n }, (_, i) => {
    const payload: Payload = {
      client_id: `client-${i % 11}`,
      tags: i % 3 === 0 ? ['vip', 'travel'] : ['travel'],
      rank: i % 4,
      fresh: i % 2 === 0,
      note: null,
    };
    if (i % 7 !== 0) payload['cohort'] = COHORTS[i % COHORTS.length] as string;
    return { id: randomUUID(), vector: i % 2 === 0 ? randomVector(rand, d) : Float32Array.from(randomVector(rand, d)), payload };
  });
}

export function vectorIndexContract(label: string, opts: ContractOptions): void {
  describe(`VectorIndex contract: ${label}`, () => {
    let index: VectorIndex;
    let used: string[] = [];
    const run = Math.floor(Math.random() * 1e9).toString(36);
    let serial = 0;
    /** A collection name unique to this test (a shared Qdrant may hold earlier runs' names). */
    const fresh = (): string => {
      const name = `c${run}_${serial++}`;
      used.push(name);
      return name;
    };

    beforeEach(async () => {
      index = await opts.create();
      used = [];
    });
    afterEach(async () => {
      for (const name of used) await index.dropCollection(name);
      await index.close();
    });

    it('ensureCollection is idempotent and keeps the points; another dimension is refused', async () => {
      const c = fresh();
      await index.ensureCollection(c, 4);
      await index.ensureCollection(c, 4);
      await index.upsert(c, [{ id: randomUUID(), vector: [1, 0, 0, 0], payload: {} }]);
      await index.ensureCollection(c, 4);
      expect(await index.count(c)).toBe(1);
      await expectRule(index.ensureCollection(c, 8), 'invalid_params', 'dimensions');
      expect(await index.count(c)).toBe(1);
    });

    it('search returns the nearest points first with cosine scores equal to a brute-force computation', async () => {
      const c = fresh();
      const d = 24;
      await index.ensureCollection(c, d);
      const points = fixturePoints(300, d, 42);
      await index.upsert(c, points);
      const rand = prng(7);
      for (let k = 0; k < 6; k++) {
        const q = randomVector(rand, d);
        const expected = bruteSearch(points, q, 10);
        const got = await index.search(c, k % 2 ? q : Float32Array.from(q), { limit: 10 });
        expect(got.map((s) => s.id)).toEqual(expected.map((s) => s.id));
        got.forEach((s, i) => expect(s.score).toBeCloseTo((expected[i] as { score: number }).score, 5));
        for (let i = 1; i < got.length; i++) expect((got[i] as { score: number }).score).toBeLessThanOrEqual((got[i - 1] as { score: number }).score);
      }
      // A stored point's own direction scores 1, whatever its norm was.
      const self = points[5] as VectorPoint;
      const [top] = await index.search(c, Array.from(self.vector, (x) => x * 3), { limit: 1 });
      expect(top?.id).toBe(self.id);
      expect(top?.score).toBeCloseTo(1, 5);
      expect(top?.payload).toEqual(self.payload);
    });

    it('minScore keeps exactly the points at or above the similarity threshold (zhou §6.2.1: cosine >= 0.85)', async () => {
      const c = fresh();
      await index.ensureCollection(c, 3);
      const cosines = [0.99, 0.9, 0.86, 0.84, 0.5, -0.3];
      const ids = cosines.map(() => randomUUID());
      await index.upsert(
        c,
        cosines.map((cos, i) => ({ id: ids[i] as string, vector: atCosine(cos, 3), payload: { i } })),
      );
      const hits = await index.search(c, [1, 0, 0], { limit: 10, minScore: 0.85 });
      expect(hits.map((h) => h.id)).toEqual(ids.slice(0, 3));
      hits.forEach((h, i) => expect(h.score).toBeCloseTo(cosines[i] as number, 5));
      expect(await index.search(c, [1, 0, 0], { limit: 10, minScore: 0.999 })).toEqual([]);
      // Without a threshold even the opposite-leaning point comes back, with its negative cosine.
      const all = await index.search(c, [1, 0, 0], { limit: 10 });
      expect(all).toHaveLength(6);
      expect(all[5]?.score).toBeCloseTo(-0.3, 5);
    });

    it('limit caps the results; it must be an integer >= 1', async () => {
      const c = fresh();
      await index.ensureCollection(c, 8);
      const points = fixturePoints(20, 8, 3);
      await index.upsert(c, points);
      const q = randomVector(prng(9), 8);
      const one = await index.search(c, q, { limit: 1 });
      expect(one.map((s) => s.id)).toEqual(bruteSearch(points, q, 1).map((s) => s.id));
      expect(await index.search(c, q, { limit: 5 })).toHaveLength(5);
      expect(await index.search(c, q, { limit: 500 })).toHaveLength(20);
      await expectRule(index.search(c, q, { limit: 0 }), 'invalid_params', 'limit', 'opts.limit');
      await expectRule(index.search(c, q, { limit: 2.5 }), 'invalid_params', 'limit', 'opts.limit');
      await expectRule(index.search(c, q, { limit: 1, minScore: Number.NaN }), 'invalid_params', 'min_score', 'opts.minScore');
    });

    it('filters select a cohort: must, mustNot, array, integer and boolean matches, missing keys', async () => {
      const c = fresh();
      const d = 12;
      await index.ensureCollection(c, d);
      const points = fixturePoints(120, d, 11);
      await index.upsert(c, points);
      const q = randomVector(prng(5), d);
      const filters: PayloadFilter[] = [
        { must: [{ key: 'cohort', match: 'acme' }] },
        { mustNot: [{ key: 'cohort', match: 'acme' }] }, // keeps points without a cohort
        { must: [{ key: 'tags', match: 'vip' }] }, // any element of a string[] payload
        { must: [{ key: 'rank', match: 2 }] },
        { must: [{ key: 'fresh', match: false }] },
        { must: [{ key: 'cohort', match: 'globex' }, { key: 'tags', match: 'vip' }], mustNot: [{ key: 'rank', match: 0 }] },
        { must: [{ key: 'cohort', match: 'nobody' }] },
        { must: [{ key: 'rank', match: '2' }] }, // a string never equals the integer 2
        {},
      ];
      for (const filter of filters) {
        const expected = bruteSearch(points, q, 15, -Infinity, filter);
        const got = await index.search(c, q, { limit: 15, filter });
        expect(got.map((s) => s.id), JSON.stringify(filter)).toEqual(expected.map((s) => s.id));
        expect(await index.count(c, filter), JSON.stringify(filter)).toBe(points.filter((p) => passes(p.payload, filter)).length);
      }
      // Sanity of the fixture: the filters above are not vacuous.
      expect(await index.count(c, { must: [{ key: 'cohort', match: 'acme' }] })).toBeGreaterThan(10);
      expect(await index.count(c, { must: [{ key: 'cohort', match: 'nobody' }] })).toBe(0);
      // Filter and threshold together.
      const both = await index.search(c, q, { limit: 50, minScore: 0.1, filter: { must: [{ key: 'cohort', match: 'initech' }] } });
      expect(both.map((s) => s.id)).toEqual(bruteSearch(points, q, 50, 0.1, { must: [{ key: 'cohort', match: 'initech' }] }).map((s) => s.id));
      expect(both.every((s) => s.payload['cohort'] === 'initech' && s.score >= 0.1)).toBe(true);
    });

    it('refuses filters the two adapters would read differently', async () => {
      const c = fresh();
      await index.ensureCollection(c, 2);
      await expectRule(index.count(c, { must: [{ key: 'score', match: 0.5 }] }), 'invalid_params', 'match_value', 'filter.must[0].match');
      await expectRule(index.count(c, { mustNot: [{ key: 'a.b', match: 'x' }] }), 'invalid_params', 'payload_key', 'filter.mustNot[0].key');
      await expectRule(
        index.search(c, [1, 0], { limit: 1, filter: { must: [{ key: 'k', match: null as unknown as string }] } }),
        'invalid_params',
        'match_value',
        'opts.filter.must[0].match',
      );
    });

    it('upsert with an existing id replaces its vector and payload; the last duplicate in one call wins', async () => {
      const c = fresh();
      await index.ensureCollection(c, 3);
      const id = randomUUID();
      const other = randomUUID();
      await index.upsert(c, [
        { id, vector: [1, 0, 0], payload: { v: 1 } },
        { id: other, vector: [0, 0, 1], payload: {} },
      ]);
      await index.upsert(c, [{ id, vector: [0, 1, 0], payload: { v: 2, cohort: 'acme' } }]);
      expect(await index.count(c)).toBe(2);
      const [top] = await index.search(c, [0, 1, 0], { limit: 1 });
      expect(top).toMatchObject({ id, payload: { v: 2, cohort: 'acme' } });
      expect(top?.score).toBeCloseTo(1, 5);
      const [old] = await index.search(c, [1, 0, 0], { limit: 2 });
      expect(old?.score).toBeLessThan(0.5); // nothing points along the replaced vector any more
      // Upper-case input is the same UUID; duplicates in one call collapse to the last.
      await index.upsert(c, [
        { id: id.toUpperCase(), vector: [0, 0, 1], payload: { v: 3 } },
        { id, vector: [1, 1, 0], payload: { v: 4 } },
      ]);
      expect(await index.count(c)).toBe(2);
      const got = await index.get(c, [id]);
      expect(got.map((p) => p.payload)).toEqual([{ v: 4 }]);
    });

    it('get returns normalised vectors in the order asked; delete and count agree', async () => {
      const c = fresh();
      await index.ensureCollection(c, 4);
      const points: VectorPoint[] = [
        { id: randomUUID(), vector: [3, 4, 0, 0], payload: { cohort: 'acme', tags: ['a', 'b'] } },
        { id: randomUUID(), vector: [0, 0, 2, 0], payload: { cohort: 'globex', n: 7, ok: true, none: null } },
        { id: randomUUID(), vector: Float32Array.from([0, 0, 0, 5]), payload: {} },
      ];
      await index.upsert(c, points);
      const [p0, p1, p2] = points as [VectorPoint, VectorPoint, VectorPoint];
      const missing = randomUUID();
      const got = await index.get(c, [p2.id, missing, p0.id.toUpperCase()]);
      expect(got.map((p) => p.id)).toEqual([p2.id, p0.id]);
      expect(got[1]?.vector).toBeInstanceOf(Float32Array);
      expect(Array.from(got[1]?.vector ?? [])).toEqual([0.6, 0.8, 0, 0].map((x) => expect.closeTo(x, 6)));
      expect(got[1]?.payload).toEqual(p0.payload);
      expect((await index.get(c, [p1.id]))[0]?.payload).toEqual({ cohort: 'globex', n: 7, ok: true, none: null });
      expect(await index.get(c, [])).toEqual([]);

      expect(await index.count(c)).toBe(3);
      await index.delete(c, [p0.id, missing]);
      expect(await index.count(c)).toBe(2);
      expect(await index.get(c, [p0.id])).toEqual([]);
      const hits = await index.search(c, [3, 4, 0, 0], { limit: 3 });
      expect(hits.map((h) => h.id)).not.toContain(p0.id);
      expect(hits).toHaveLength(2);
      await index.delete(c, []);
      await index.delete(c, [p1.id.toUpperCase()]);
      expect(await index.count(c)).toBe(1);
      expect(await index.count(c, { must: [{ key: 'cohort', match: 'globex' }] })).toBe(0);
    });

    it('a vector of the wrong dimension is refused by rule, and a refused upsert writes nothing', async () => {
      const c = fresh();
      await index.ensureCollection(c, 4);
      const good = { id: randomUUID(), vector: [1, 0, 0, 0], payload: {} };
      const err = await expectRule(
        index.upsert(c, [good, { id: randomUUID(), vector: [1, 0, 0], payload: {} }]),
        'invalid_params',
        'dimensions',
        'points[1].vector',
      );
      expect(err.details).toMatchObject({ expected: 4, actual: 3 });
      expect(await index.count(c)).toBe(0);
      await expectRule(index.search(c, [1, 0, 0, 0, 0], { limit: 1 }), 'invalid_params', 'dimensions', 'vector');
      await expectRule(index.upsert(c, [{ id: good.id, vector: [0, 0, 0, 0], payload: {} }]), 'invalid_params', 'non_zero', 'points[0].vector');
      await expectRule(index.upsert(c, [{ id: good.id, vector: [1, Number.NaN, 0, 0], payload: {} }]), 'invalid_params', 'finite', 'points[0].vector[1]');
      await expectRule(index.search(c, [0, 0, 0, 0], { limit: 1 }), 'invalid_params', 'non_zero', 'vector');
      await expectRule(
        index.upsert(c, [{ id: good.id, vector: [1, 0, 0, 0], payload: { nested: { a: 1 } as unknown as string } }]),
        'invalid_params',
        'payload_value',
        'points[0].payload.nested',
      );
      await expectRule(index.upsert(c, [{ id: good.id, vector: [1, 0, 0, 0], payload: { 'a.b': 1 } }]), 'invalid_params', 'payload_key', 'points[0].payload.a.b');
      await expectRule(index.ensureCollection(fresh(), 0), 'invalid_params', 'dimensions', 'dimensions');
      await expectRule(index.ensureCollection(fresh(), 1.5), 'invalid_params', 'dimensions', 'dimensions');
      expect(await index.count(c)).toBe(0);
    });

    it('ids must be UUIDs (Qdrant accepts nothing else we could use)', async () => {
      const c = fresh();
      await index.ensureCollection(c, 2);
      for (const bad of ['fragment-1', '42', '', '3f2b8c1e5a4d4c7e9b1a2d6f0e8c7a91', `${randomUUID()}x`]) {
        await expectRule(index.upsert(c, [{ id: bad, vector: [1, 0], payload: {} }]), 'invalid_params', 'uuid', 'points[0].id');
      }
      await expectRule(index.get(c, [randomUUID(), 'nope']), 'invalid_params', 'uuid', 'ids[1]');
      await expectRule(index.delete(c, ['nope']), 'invalid_params', 'uuid', 'ids[0]');
      expect(await index.count(c)).toBe(0);
    });

    it('collection names must match ^[a-z0-9_-]{1,64}$; a missing collection is named as such', async () => {
      for (const bad of ['Flight', '', 'a'.repeat(65), 'a/b', 'a.b', 'über']) {
        await expectRule(index.ensureCollection(bad, 2), 'invalid_params', 'collection_name', 'collection');
        await expectRule(index.search(bad, [1, 0], { limit: 1 }), 'invalid_params', 'collection_name', 'collection');
        await expectRule(index.dropCollection(bad), 'invalid_params', 'collection_name', 'collection');
      }
      // The longest valid name, with both punctuation characters, is accepted.
      const longest = `l${run}_${'-'.repeat(64)}`.slice(0, 64);
      used.push(longest);
      await index.ensureCollection(longest, 2);
      expect(await index.count(longest)).toBe(0);
      const missing = fresh();
      const err = await expectRule(index.upsert(missing, []), 'invalid_params', 'collection_exists', 'collection');
      expect(err.details['collection']).toBe(missing);
      await expectRule(index.search(missing, [1, 0], { limit: 1 }), 'invalid_params', 'collection_exists');
      await expectRule(index.count(missing), 'invalid_params', 'collection_exists');
      await expectRule(index.get(missing, [randomUUID()]), 'invalid_params', 'collection_exists');
    });

    it('collections are isolated: same ids, other vectors, other dimensions; dropping one leaves the other', async () => {
      const a = fresh();
      const b = fresh();
      await index.ensureCollection(a, 3);
      await index.ensureCollection(b, 5);
      const id = randomUUID();
      await index.upsert(a, [
        { id, vector: [1, 0, 0], payload: { scenario: 'flight_booking' } },
        { id: randomUUID(), vector: [0, 1, 0], payload: { scenario: 'flight_booking' } },
      ]);
      await index.upsert(b, [{ id, vector: [0, 0, 0, 0, 1], payload: { scenario: 'photo_retouch' } }]);
      expect(await index.count(a)).toBe(2);
      expect(await index.count(b)).toBe(1);
      expect((await index.get(b, [id]))[0]?.payload).toEqual({ scenario: 'photo_retouch' });
      const inA = await index.search(a, [1, 0, 0], { limit: 5 });
      expect(inA.every((s) => s.payload['scenario'] === 'flight_booking')).toBe(true);
      await index.dropCollection(b);
      await index.dropCollection(b); // dropping is idempotent
      await expectRule(index.count(b), 'invalid_params', 'collection_exists');
      expect(await index.count(a)).toBe(2);
      await index.ensureCollection(b, 2); // re-created empty, with a new dimension
      expect(await index.count(b)).toBe(0);
    });

    it('a closed index refuses calls as unavailable (rule closed)', async () => {
      const other = await opts.create();
      await other.close();
      await expectRule(other.ensureCollection(fresh(), 2), 'unavailable', 'closed');
      await expectRule(other.search(fresh(), [1, 0], { limit: 1 }), 'unavailable', 'closed');
      expect(['embedded', 'qdrant']).toContain(other.kind);
    });
  });
}
