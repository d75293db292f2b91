/**
 * The embedded index against the shared contract (draft-zhou §6.2.1's pool as
 * `npm start` runs it), plus what only an in-process index can promise: its
 * storage stays dense after deletes, and results are copies.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createEmbeddedIndex, createVectorIndexFromEnv } from '../src/index';
import { bruteCosine, prng, vectorIndexContract } from './vector-index-contract';

vectorIndexContract('embedded', { create: () => createEmbeddedIndex() });

describe('embedded index specifics', () => {
  it('stays exact through growth and swap-removal deletes (rows stay dense)', async () => {
    const index = createEmbeddedIndex();
    await index.ensureCollection('pool', 8);
    const rand = prng(1);
    const points = Array.from({ length: 500 }, () => ({
      id: randomUUID(),
      vector: Array.from({ length: 8 }, () => rand() * 2 - 1),
      payload: {},
    }));
    await index.upsert('pool', points); // grows past the initial capacity several times
    const removed = new Set(points.filter((_, i) => i % 3 === 0).map((p) => p.id));
    await index.delete('pool', [...removed]);
    const kept = points.filter((p) => !removed.has(p.id));
    expect(await index.count('pool')).toBe(kept.length);
    const q = Array.from({ length: 8 }, () => rand() * 2 - 1);
    const expected = kept
      .map((p) => ({ id: p.id, score: bruteCosine(q, p.vector) }))
      .sort((a, b) => b.score - a.score)
      .slice(0, 20);
    const got = await index.search('pool', q, { limit: 20 });
    expect(got.map((s) => s.id)).toEqual(expected.map((s) => s.id));
    // Every moved row kept its own vector.
    const stored = await index.get('pool', kept.map((p) => p.id));
    stored.forEach((s, i) => expect(bruteCosine(s.vector, (kept[i] as { vector: number[] }).vector)).toBeCloseTo(1, 6));
  });

  it('hands out copies: mutating a result or an input changes nothing stored', async () => {
    const index = createEmbeddedIndex();
    await index.ensureCollection('pool', 2);
    const id = randomUUID();
    const input = { id, vector: [1, 0], payload: { tags: ['a'] as string[] } };
    await index.upsert('pool', [input]);
    input.vector[0] = 0;
    input.vector[1] = 1;
    input.payload.tags.push('mutated');
    const [hit] = await index.search('pool', [1, 0], { limit: 1 });
    expect(hit?.score).toBeCloseTo(1, 6);
    expect(hit?.payload).toEqual({ tags: ['a'] });
    (hit?.payload['tags'] as string[]).push('x');
    const [got] = await index.get('pool', [id]);
    got?.vector.fill(0);
    expect((await index.get('pool', [id]))[0]).toMatchObject({ payload: { tags: ['a'] }, vector: Float32Array.from([1, 0]) });
  });
});

describe('createVectorIndexFromEnv', () => {
  it('chooses the embedded index without QDRANT_URL, Qdrant with it', async () => {
    expect(createVectorIndexFromEnv({}).kind).toBe('embedded');
    expect(createVectorIndexFromEnv({ QDRANT_URL: '  ' }).kind).toBe('embedded');
    const q = createVectorIndexFromEnv({ QDRANT_URL: 'http://127.0.0.1:6333', QDRANT_COLLECTION_PREFIX: 'tenant_a_' });
    expect(q.kind).toBe('qdrant');
    await q.close();
  });

  it('names the variable when its value is malformed', () => {
    for (const [env, variable, rule] of [
      [{ QDRANT_URL: 'qdrant:6333' }, 'QDRANT_URL', 'url'],
      [{ QDRANT_URL: 'ftp://host' }, 'QDRANT_URL', 'url'],
      [{ QDRANT_URL: 'http://h:6333', QDRANT_COLLECTION_PREFIX: 'Tenant/A' }, 'QDRANT_COLLECTION_PREFIX', 'collection_name'],
    ] as const) {
      expect(() => createVectorIndexFromEnv(env)).toThrow(expect.objectContaining({ type: 'invalid_params', path: `env.${variable}`, rule }));
    }
  });
});
