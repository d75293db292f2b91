/**
 * Online agglomeration by concept (draft-zhou §6.2.1: one cluster per recurring intent): two clusters of one pool
 * whose centroids sit under the merge threshold join when most of the clients of each say one noun concept (a
 * WordNet synset), so paraphrases of one need cross the gate together. A stub embedder fixes the geometry: "baby"
 * texts and "infant" texts are 0.5 apart in cosine, under the similarity threshold (0.85) but over the concept floor.
 */
import { describe, expect, it } from 'vitest';
import { createTableLexicon } from '@parley/evolution';
import { createEmbeddedIndex } from '@parley/vectors';
import { scenarioId } from '@parley/protocol';
import { collectionOf, createSemanticPool } from '../src/index';

const embedder = {
  id: 'stub-concept',
  dimensions: 3,
  embed: async (texts: string[]) =>
    texts.map((t) => (t.includes('baby') ? Float32Array.from([1, 0, 0]) : t.includes('infant') ? Float32Array.from([0.5, Math.sqrt(3) / 2, 0]) : Float32Array.from([0, 0, 1]))),
};
const lexicon = createTableLexicon({ baby: { pos: 'n', synonyms: ['babe', 'infant'] }, infant: { pos: 'n', synonyms: ['babe', 'baby'] }, guitar: { pos: 'n' } });
const T0 = Date.UTC(2026, 9, 12);
const BABY = ['travelling with a baby', 'our baby comes along', 'a baby on board'];
const INFANT = ['one infant on my lap', 'an infant flies too', 'the infant is small'];

async function clustersAfter(withLexicon: boolean, texts: readonly string[][]): Promise<number> {
  const pool = await createSemanticPool({ embedder, index: createEmbeddedIndex(), config: { similarity_threshold: 0.85 }, ...(withLexicon ? { lexicon } : {}) });
  let t = T0;
  for (let round = 0; round < 2; round++) {
    for (const group of texts) {
      for (let c = 0; c < group.length; c++) await pool.ingest({ ts: (t += 60_000), scenario: 'flight_booking', client_id: `${group[0]}-${c}`, text: group[c] as string });
    }
  }
  return pool.clusters(t).filter((c) => c.scope === 'global').length;
}

describe('online agglomeration by concept', () => {
  it('joins a "baby" cluster and an "infant" cluster (one synset) that the centroids alone keep apart', async () => {
    expect(await clustersAfter(false, [BABY, INFANT])).toBe(2);
    expect(await clustersAfter(true, [BABY, INFANT])).toBe(1);
  });

  it('keeps clusters of other concepts apart, and a one-client cluster never carries a concept', async () => {
    // The stub embeds these next to the infant texts (the substring), so only the concept keeps them apart.
    const guitar = ['a guitar in the cabin, infant-free', 'my guitar on board, infant-free', 'travelling with a guitar, infant-free'];
    expect(await clustersAfter(true, [BABY, guitar])).toBe(2);
    const pool = await createSemanticPool({ embedder, index: createEmbeddedIndex(), config: { similarity_threshold: 0.85 }, lexicon });
    let t = T0;
    for (const text of [...BABY, ...BABY]) await pool.ingest({ ts: (t += 60_000), scenario: 'flight_booking', client_id: 'b-solo', text });
    for (const text of [...INFANT, ...INFANT]) await pool.ingest({ ts: (t += 60_000), scenario: 'flight_booking', client_id: 'i-solo', text });
    expect(pool.clusters(t).filter((c) => c.scope === 'global').length).toBe(2);
  });
});

describe('pools of different scenarios never meet (zhou §6.2.1 one collection per scenario)', () => {
  // Two scenario ids sharing their first 70 characters: a collection name cut at 64 characters held both pools, so
  // one scenario's fragments found (and threw on, or merged with) the other's clusters.
  const A = `${'long_scenario_'.repeat(5)}alpha`;
  const B = `${'long_scenario_'.repeat(5)}beta`;

  it('long scenario ids sharing a prefix get their own collections, and their clusters stay apart', async () => {
    expect(collectionOf(A)).not.toBe(collectionOf(B));
    for (const c of [collectionOf(A), collectionOf(B)]) expect(c.length).toBeLessThanOrEqual(64);
    expect(collectionOf('flight_booking')).toBe('dsp_flight_booking');
    // The shortened name is no other scenario's plain name: a 60-character id spelled like it is refused its shape.
    const impostor = collectionOf(A).slice(4);
    expect(() => scenarioId(impostor)).not.toThrow();
    expect(collectionOf(scenarioId(impostor))).not.toBe(collectionOf(A));
    const pool = await createSemanticPool({ embedder, index: createEmbeddedIndex(), config: { similarity_threshold: 0.85 }, lexicon });
    let t = T0;
    for (let c = 0; c < 4; c++) {
      for (const sc of [A, B]) await pool.ingest({ ts: (t += 60_000), scenario: sc, client_id: `${sc.slice(-5)}-${c}`, text: BABY[c % BABY.length] as string });
    }
    const clusters = pool.clusters(t).filter((c) => c.scope === 'global');
    expect(clusters.map((c) => c.scenario).sort()).toEqual([A, B].sort());
  });
});
