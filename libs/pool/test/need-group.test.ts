/**
 * Need groups in the pool (libs/evolution need-group.ts; draft-zhou §6.2.1 dual gate): a choice the clustering split
 * into one cluster per value, each said by too few clients to pass the gate, passes it as a group of clusters whose
 * centroids are close at a looser threshold; one `matured` report speaks for the group, with every value among its
 * samples, and the clusters stay as they are. A stub embedder fixes the geometry: the matte, gloss and satin texts
 * are 0.64 from each other (under the similarity threshold 0.85, over 0.6 × 0.85), and so are the hair-colour texts,
 * which share no context with them; the date-stamp texts are orthogonal. Phrasings from no stream; time is an input (a fixed clock origin).
 */
import { describe, expect, it } from 'vitest';
import { createEmbeddedIndex } from '@parley/vectors';
import { SCENARIOS } from '@parley/examples';
import { createEvolutionEngine, createSemanticPool, type MaturedCluster, type SemanticPool, type SemanticPoolConfig } from '../src/index';
import { type VectorIndex } from '@parley/vectors';

const embedder = {
  id: 'stub-need-group',
  dimensions: 8,
  embed: async (texts: string[]) =>
    texts.map((t) =>
      Float32Array.from(
        t.includes('matte') ? [0.8, 0.6, 0, 0, 0, 0, 0, 0] : t.includes('gloss') ? [0.8, 0, 0.6, 0, 0, 0, 0, 0] : t.includes('satin') ? [0.8, 0, 0, 0.6, 0, 0, 0, 0] : t.includes('hair') ? [0.8, 0, 0, 0, 0.6, 0, 0, 0] : t.includes('velvet') ? [0.8, 0, 0, 0, 0, 0, 0.6, 0] : t.includes('eggshell') ? [0.8, 0.2, 0.2, 0.2, 0, 0, 0, 0.49] : [0, 0, 0, 0, 0, 1, 0, 0],
      ),
    ),
};
const T0 = Date.UTC(2026, 3, 6);
const HOUR = 3_600_000;
const VALUES: Record<string, readonly string[]> = {
  matte: ['a matte finish please', 'matte prints for us'],
  gloss: ['glossy finish on the prints', 'gloss paper please'],
  // Another need whose centroid the stub puts as near as the values' (0.64): it shares no context with them.
  hair: ['dye her hair darker', 'hair colour a shade lighter'],
  satin: ['satin finish would be nice', 'prints on satin paper'],
  stamp: ['remove the date stamp', 'no date stamp in the corner'],
};

/** The index, counting the search limits it is asked for. */
function countingIndex(): { index: VectorIndex; limits: number[] } {
  const inner = createEmbeddedIndex();
  const limits: number[] = [];
  const index: VectorIndex = { ...inner, ensureCollection: inner.ensureCollection.bind(inner), upsert: inner.upsert.bind(inner), get: inner.get.bind(inner), delete: inner.delete.bind(inner), search: (name, vector, opts) => (limits.push(opts.limit), inner.search(name, vector, opts)) };
  return { index, limits };
}

async function run(config: SemanticPoolConfig, extra: readonly string[] = [], solo = false, first: readonly (readonly [string, string])[] = []): Promise<{ matured: MaturedCluster[]; grown: MaturedCluster[]; clusters: number; pool: SemanticPool; t: number; limits: number[] }> {
  const { index, limits } = countingIndex();
  const pool = await createSemanticPool({ embedder, index, config: { similarity_threshold: 0.85, ...config } });
  const matured: MaturedCluster[] = [];
  const grown: MaturedCluster[] = [];
  let t = T0;
  const send = async (client: string, text: string): Promise<void> => {
    const r = await pool.ingest({ ts: (t += HOUR / 4), scenario: 'photo_retouch', client_id: client, text });
    matured.push(...r.matured.filter((m) => m.scope === 'global'));
    grown.push(...r.grown.filter((m) => m.scope === 'global'));
  };
  for (const [client, text] of first) await send(client, text);
  // One client alone, many times, in a wording of its own (a cluster of one client joins no group).
  if (solo) for (let i = 0; i < 6; i++) await send('velvet-solo', i % 2 === 0 ? 'velvet finish on the prints' : 'a velvet finish please');
  for (const [value, texts] of Object.entries(VALUES)) {
    for (const client of [`${value}-1`, `${value}-2`]) for (const text of texts) await send(client, text);
  }
  // Later clients of one value: the fired group grows.
  for (const client of extra) for (const text of VALUES['satin'] as readonly string[]) await send(client, text);
  return { matured, grown, clusters: pool.clusters(t).filter((c) => c.scope === 'global').length, pool, t, limits };
}

describe('need groups in the semantic pool (zhou §6.2.1)', () => {
  it('off (the default): three values of one choice, two clients each, never pass the gate', async () => {
    const r = await run({});
    expect(r.matured).toEqual([]);
    expect(r.clusters).toBe(5);
  });

  it('on: the three values pass the gate as one group, one report with every value; the unrelated need stays out', async () => {
    const r = await run({ need_group_share: 0.6 });
    expect(r.matured).toHaveLength(1);
    const m = r.matured[0] as MaturedCluster;
    expect(m.distinct_clients).toBe(6);
    expect(m.reasons[0]).toMatch(/need group of 3 clusters/);
    const texts = m.samples.map((x) => x.text).join(' | ');
    for (const v of ['matte', 'gloss', 'satin']) expect(texts).toContain(v);
    expect(texts).not.toContain('stamp');
    expect(texts).not.toContain('hair');
    // The clusters stay as they are: purity is measured on them.
    expect(r.clusters).toBe(5);
  });

  it('centroids alone (need_group_context 0) would let a near cluster of another need into the group', async () => {
    const r = await run({ need_group_share: 0.6, need_group_context: 0 });
    expect(r.matured).toHaveLength(1);
    expect((r.matured[0] as MaturedCluster).samples.map((x) => x.text).join(' | ')).toContain('hair');
  });

  it('a fired group that gains regrow_clients clients reports its growth once, under the same cluster, with the group\'s samples', async () => {
    const r = await run({ need_group_share: 0.6 }, ['satin-3', 'satin-4', 'satin-5']);
    expect(r.matured).toHaveLength(1);
    expect(r.grown).toHaveLength(1);
    const g = r.grown[0] as MaturedCluster;
    expect(g.cluster_id).toBe((r.matured[0] as MaturedCluster).cluster_id);
    expect(g.kind).toBe('grown');
    expect(g.distinct_clients).toBe(9);
    expect(g.samples.map((x) => x.text).join(' | ')).toContain('matte');
  });

  it('a cluster of one client (one-offs, a burst) joins no group, however near and however often it asks', async () => {
    const r = await run({ need_group_share: 0.6 }, [], true);
    expect(r.matured).toHaveLength(1);
    expect((r.matured[0] as MaturedCluster).samples.map((x) => x.text).join(' | ')).not.toContain('velvet');
  });

  it('a stricter share than the geometry allows (0.9 × 0.85 = 0.765 above the values\' 0.64) groups nothing: the same clusters and reports as off', async () => {
    const off = await run({});
    const r = await run({ need_group_share: 0.9, need_group_max: 7 });
    // It did look for a group (searches of 2 × need_group_max) and found none.
    expect(r.limits).toContain(14);
    expect(r.matured).toEqual(off.matured);
    expect(r.grown).toEqual(off.grown);
    expect(JSON.stringify(r.pool.clusters(r.t))).toBe(JSON.stringify(off.pool.clusters(off.t)));
  });

  it('off: no search for a group is ever made, whatever need_group_max says', async () => {
    const off = await run({ need_group_max: 7 }, ['satin-3', 'satin-4', 'satin-5'], true);
    expect(off.limits.length).toBeGreaterThan(0);
    expect(off.limits).not.toContain(14);
    const on = await run({ need_group_share: 0.6, need_group_max: 7 }, ['satin-3', 'satin-4', 'satin-5'], true);
    expect(on.limits.length).toBeGreaterThan(off.limits.length);
  });

  it('every member takes the outcome and key told for the group\'s leader, and its view names the leader', async () => {
    const r = await run({ need_group_share: 0.6 });
    const leader = (r.matured[0] as MaturedCluster).cluster_id;
    r.pool.markOutcome(leader, { outcome: 'patched', patch_id: 'p1', key_name: 'finish' });
    const views = r.pool.clusters(r.t).filter((c) => c.scope === 'global');
    const members = views.filter((c) => c.group_leader !== undefined);
    expect(members).toHaveLength(3);
    for (const m of members) {
      expect(m.group_leader).toBe(leader);
      expect(m.trigger_outcome).toBe('patched');
      expect(m.key_name).toBe('finish');
    }
    // Clusters outside the group keep no outcome and name no leader.
    for (const c of views.filter((v) => v.group_leader === undefined)) {
      expect(c.trigger_outcome).toBeNull();
      expect(Object.keys(c)).not.toContain('group_leader');
    }
  });

  it('need_group_max is bounded: a limit above 50 is refused', async () => {
    await expect(createSemanticPool({ embedder, index: createEmbeddedIndex(), config: { need_group_share: 0.6, need_group_max: 51 } })).rejects.toThrow(/need_group_max must be at most 50/);
  });

  it('derived executions: a later fragment joining a member other than the leader is a use of the group\'s key', async () => {
    const template = SCENARIOS.find((x) => x.template.scenario === 'photo_retouch')?.template;
    if (!template) throw new Error('photo_retouch template missing');
    let t = T0;
    const engine = await createEvolutionEngine({ embedder, index: createEmbeddedIndex(), templates: [template], clock: { now: () => t }, config: { similarity_threshold: 0.85, derive_executions: true, need_group_share: 0.6 } });
    for (const value of ['matte', 'gloss', 'satin']) {
      for (const client of [`${value}-1`, `${value}-2`]) for (const text of VALUES[value] as readonly string[]) await engine.ingest({ ts: (t += HOUR / 4), scenario: 'photo_retouch', client_id: client, text });
    }
    const patch = engine.rawPatches()[0];
    expect(patch?.source_cluster_id).toBe('c1'); // the matte cluster leads
    // Nine days of "gloss" requests: they join the gloss member, not the leader.
    for (let d = 1; d < 10; d++) {
      for (let c = 1; c <= 4; c++) {
        t = T0 + d * 24 * HOUR + c * HOUR;
        const r = await engine.ingest({ ts: t, scenario: 'photo_retouch', client_id: `g${c}`, text: 'gloss paper please' });
        expect(r.global_cluster_id).not.toBe('c1');
      }
      engine.tick(T0 + (d + 1) * 24 * HOUR);
    }
    const figures = engine.decisions()[0]?.figures;
    expect(figures?.payloads).toBeGreaterThan(0);
    expect(figures?.payloads_with_key).toBe(figures?.payloads);
  });

  it('the group reports under its member with the most clients, not the older one', async () => {
    const pool = await createSemanticPool({ embedder, index: createEmbeddedIndex(), config: { similarity_threshold: 0.85, need_group_share: 0.6 } });
    const matured: MaturedCluster[] = [];
    let t = T0;
    const plan: [string, number][] = [['matte', 2], ['gloss', 3], ['satin', 2]];
    for (const [value, n] of plan) {
      for (let i = 1; i <= n; i++) {
        for (const text of VALUES[value] as readonly string[]) {
          const r = await pool.ingest({ ts: (t += HOUR / 4), scenario: 'photo_retouch', client_id: `${value}-${i}`, text });
          matured.push(...r.matured.filter((m) => m.scope === 'global'));
        }
      }
    }
    expect(matured).toHaveLength(1);
    const leader = pool.cluster((matured[0] as MaturedCluster).cluster_id, t);
    expect(leader?.samples.join(' ')).toContain('gloss');
    expect(leader?.distinct_clients).toBe(3);
  });
  it('a fired cluster nearer the anchor than the values ends the group there: the need has its key, no second one', async () => {
    // "eggshell" (0.76 from each value, nearer than the values are to each other, 0.64; its own cluster at 0.85) is
    // said first by six clients and fires alone. The values arriving later are wordings as near to that fired need
    // as to each other: gathering them would induce a second key beside the one the need has.
    const eggshell = ['eggshell finish on the prints', 'an eggshell finish please'];
    const first = [1, 2, 3, 4, 5, 6].flatMap((i) => eggshell.map((text) => [`egg-${i}`, text] as const));
    const r = await run({ need_group_share: 0.6 }, [], false, first);
    expect(r.matured).toHaveLength(1);
    expect((r.matured[0] as MaturedCluster).samples.map((x) => x.text).join(' | ')).toContain('eggshell');
    expect(r.matured.some((m) => m.reasons.some((x) => /need group/.test(x)))).toBe(false);
    // Without the fired cluster, the same values pass as a group (the test above).
    const alone = await run({ need_group_share: 0.6 });
    expect(alone.matured[0]?.reasons[0]).toMatch(/need group of 3 clusters/);
  });

  it('a group takes in the values nearer than a fired cluster of its need and leaves out those farther than it', async () => {
    // Geometry (centroids): "matte" and "pearl" 0.78 apart; "eggshell" (fired first, the same finish context) 0.70
    // from each; "gloss" 0.60 from each, above the floor 0.51 and sharing the context, yet farther than the fired one.
    const v = (xs: number[]): Float32Array => Float32Array.from([...xs, ...new Array(8 - xs.length).fill(0)]);
    const geometry = (t: string): Float32Array =>
      t.includes('matte') ? v([0.883, 0.469]) : t.includes('pearl') ? v([0.883, 0, 0.469]) : t.includes('eggshell') ? v([0.686, 0.2, 0.2, 0.67]) : t.includes('gloss') ? v([0.68, 0, 0, 0, 0.733]) : v([0, 0, 0, 0, 0, 1]);
    const said: [string, string[], number][] = [
      ['eggshell', ['eggshell finish on the prints', 'an eggshell finish please'], 6],
      ['gloss', ['glossy finish on the prints', 'gloss paper please'], 3],
      ['pearl', ['pearl finish on the prints', 'a pearl finish please'], 3],
      ['matte', ['a matte finish please', 'matte prints for us'], 3],
    ];
    const r = await sendAll(geometry, said);
    const groups = r.filter((m) => m.reasons.some((x) => /need group/.test(x)));
    expect(groups).toHaveLength(1);
    const g = groups[0] as MaturedCluster;
    expect(g.reasons[0]).toMatch(/need group of 2 clusters/);
    const texts = g.samples.map((x) => x.text).join(' | ');
    expect(texts).toContain('matte');
    expect(texts).toContain('pearl');
    expect(texts).not.toContain('gloss');
  });
  it('a fired cluster of another need ends the group when nearer than the values (the known limit), not when exactly as near', async () => {
    // Six clients first say a hair-colour need, which fires alone; then the three finish values arrive (0.64 apart,
    // sharing "finish / prints / paper"; the hair texts share no content word with them). The cut does not ask for
    // context (narrowing it to a fired cluster sharing context or concept loses parley-dev's fix, BENCHMARKS.md
    // 2026-11-28 "after review"), so a hair centroid 0.76 from each value, nearer than they are to each other,
    // starves the finish group: the price of the rule, pinned here. At 0.64, a tie, the values are taken in.
    const finish: [string, string[], number][] = [
      ['matte', ['a matte finish please', 'matte prints for us'], 2],
      ['gloss', ['glossy finish on the prints', 'gloss paper please'], 2],
      ['satin', ['satin finish would be nice', 'prints on satin paper'], 2],
    ];
    const hair: [string, string[], number] = ['hair', ['dye her hair darker', 'hair colour a shade lighter'], 6];
    const withHairAt = (hairAt: number[]) => (t: string): Float32Array => {
      const x = t.includes('matte') ? [0.8, 0.6] : t.includes('gloss') ? [0.8, 0, 0.6] : t.includes('satin') ? [0.8, 0, 0, 0.6] : t.includes('hair') ? hairAt : [0, 0, 0, 0, 0, 0, 1];
      return Float32Array.from([...x, ...new Array(8 - x.length).fill(0)]);
    };
    const near = await sendAll(withHairAt([0.8, 0.2, 0.2, 0.2, 0, 0, 0, 0.49]), [hair, ...finish]);
    expect(near).toHaveLength(1);
    expect(near[0]?.samples.map((x) => x.text).join(' | ')).toContain('hair');
    const tie = await sendAll(withHairAt([0.8, 0, 0, 0, 0.6]), [hair, ...finish]);
    expect(tie).toHaveLength(2);
    expect(tie[0]?.samples.map((x) => x.text).join(' | ')).toContain('hair');
    expect(tie[1]?.reasons[0]).toMatch(/need group of 3 clusters/);
    // Far away, the group forms as without it.
    const far = await sendAll(withHairAt([0, 0, 0, 0, 0, 1]), [hair, ...finish]);
    expect(far[1]?.reasons[0]).toMatch(/need group of 3 clusters/);
  });
});

/** Sends each wording's texts from `n` clients of its own, in order, to a pool whose stub embedder is `geometry`; the global reports. */
async function sendAll(geometry: (t: string) => Float32Array, said: readonly (readonly [string, readonly string[], number])[]): Promise<MaturedCluster[]> {
  const stub = { id: 'stub-need-group-geometry', dimensions: 8, embed: async (ts: string[]) => ts.map(geometry) };
  const pool = await createSemanticPool({ embedder: stub, index: createEmbeddedIndex(), config: { similarity_threshold: 0.85, need_group_share: 0.6 } });
  const out: MaturedCluster[] = [];
  let t = T0;
  for (const [name, texts, n] of said) {
    for (let i = 1; i <= n; i++) {
      for (const text of texts) {
        const r = await pool.ingest({ ts: (t += HOUR / 4), scenario: 'photo_retouch', client_id: `${name}-${i}`, text });
        out.push(...r.matured.filter((m) => m.scope === 'global'));
      }
    }
  }
  return out;
}
