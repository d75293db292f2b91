/**
 * Need groups (need-group.ts; draft-zhou §6.2.1 dual gate): a need split by value or wording into clusters that are
 * each below the gate is gated as one group, on the group's heat and distinct clients, with the per-client heat cap
 * still in force. Time is an input everywhere (a fixed origin, never the wall clock). Made-up phrasings.
 */
import { describe, expect, it } from 'vitest';
import { DEFAULT_POOL_CONFIG, addToCluster, contextCosine, emptyCluster, evaluateNeedGroup, evaluateTrigger, markTriggered, needGroupHeat, profileCosine, wordProfile, type Cluster, type PoolKey } from '../src/index';
import { DAY, HOUR, T0 } from './helpers';

const GLOBAL: PoolKey = { scenario: 'photo_retouch', scope: 'global' };
const config = DEFAULT_POOL_CONFIG;

/** One cluster of `id`, each client sending `texts` once an hour from `start`. */
function cluster(id: string, clients: readonly string[], texts: readonly string[], start: number): Cluster {
  let c = emptyCluster(id, GLOBAL, start);
  let t = start;
  for (const client of clients) {
    for (const text of texts) c = addToCluster(c, { text, client_id: client, at: (t += HOUR / 4) }, text, 0.9, config);
  }
  return c;
}

// Three values of one choice said apart (one cluster each), two clients per value: no cluster reaches 5 clients.
const start = T0 + 2 * DAY;
const matte = cluster('c1', ['a1', 'a2'], ['a matte finish please', 'matte prints for us'], start);
const gloss = cluster('c2', ['b1', 'b2'], ['glossy finish on the prints', 'gloss paper please'], start + HOUR);
const satin = cluster('c3', ['d1', 'd2'], ['satin finish would be nice', 'prints on satin paper'], start + 2 * HOUR);
const now = start + 4 * HOUR;

describe('need groups: the gate over a group of clusters (zhou §6.2.1)', () => {
  it('each value alone stays below the gate; the group of three passes it and fires once', () => {
    for (const c of [matte, gloss, satin]) expect(evaluateTrigger(c, now, config).fires).toBe(false);
    const g = evaluateNeedGroup([matte, gloss, satin], now, config);
    expect(g.evaluation.distinct_clients).toBe(6);
    expect(g.evaluation.heat).toBeGreaterThanOrEqual(config.heat_threshold);
    expect(g.evaluation.fires).toBe(true);
    expect(g.member_ids).toEqual(['c1', 'c2', 'c3']);
    expect(g.evaluation.reasons[0]).toContain('need group of 3 clusters');
    // The inducer reads the group's samples: every value is among them.
    const texts = g.group.samples.map((s) => s.text).join(' | ');
    for (const v of ['matte', 'gloss', 'satin']) expect(texts).toContain(v);
    // A group with a member that already fired has had its trigger.
    const fired = markTriggered(gloss, { at: now, outcome: 'matured', patch_id: null });
    expect(evaluateNeedGroup([matte, fired, satin], now, config).evaluation.fires).toBe(false);
  });

  it('is driven by the clock: the same group read three days later has cooled below the heat gate', () => {
    const later = now + 3 * DAY;
    const g = evaluateNeedGroup([matte, gloss, satin], later, config);
    expect(g.evaluation.heat).toBeLessThan(config.heat_threshold);
    expect(g.evaluation.fires).toBe(false);
  });

  it('a group of one is the cluster itself', () => {
    const g = evaluateNeedGroup([matte], now, config);
    expect(g.evaluation.fires).toBe(evaluateTrigger(matte, now, config).fires);
    expect(g.evaluation.heat).toBe(evaluateTrigger(matte, now, config).heat);
  });

  it('caps each client once over the group: fragments that leave one cluster below the gate leave their group below it', () => {
    // Clients A and B each send two fragments into each of three value clusters, C one: 13 fragments in 2h10m.
    const vals = ['matte', 'gloss', 'satin'];
    let members = vals.map((v, i) => emptyCluster(`v${i}`, GLOBAL, start));
    let one = emptyCluster('one', GLOBAL, start);
    let t = start;
    const send = (i: number, client_id: string, text: string) => {
      t += 10 * 60_000;
      members = members.map((m, j) => (j === i ? addToCluster(m, { text, client_id, at: t }, text, 0.9, config) : m));
      one = addToCluster(one, { text, client_id, at: t }, text, 0.9, config);
    };
    vals.forEach((v, i) => {
      for (const c of ['A', 'B']) for (const text of [`a ${v} finish please`, `${v} prints for us`]) send(i, c, text);
    });
    send(2, 'C', 'satin finish would be nice');
    const alone = evaluateTrigger(one, t, config);
    expect(alone.fires).toBe(false);
    expect(alone.heat).toBeLessThan(config.heat_threshold);
    const g = evaluateNeedGroup(members, t, config);
    // Two increments per client per day, as in one cluster: the group's heat is that cluster's, not three clusters' worth.
    expect(g.evaluation.heat).toBeCloseTo(alone.heat, 9);
    expect(g.evaluation.fires).toBe(false);
  });

  it('one client speaking in five clusters holds the heat it would hold in one', () => {
    const texts = ['remove the date stamp', 'erase the stamp', 'no date stamp'];
    const spread = ['s1', 's2', 's3', 's4', 's5'].map((id, i) => cluster(id, ['solo'], texts, start + i * HOUR));
    let one = emptyCluster('one', GLOBAL, start);
    for (const c of spread) for (const x of c.clients) for (const at of x.recent) one = addToCluster(one, { text: 'erase the stamp', client_id: 'solo', at }, 'erase the stamp', 0.9, config);
    const at = start + 6 * HOUR; // after the last fragment
    const sum = spread.reduce((n, c) => n + evaluateTrigger(c, at, config).heat, 0);
    expect(sum).toBeGreaterThanOrEqual(config.heat_threshold);
    expect(needGroupHeat(spread, at, config)).toBeCloseTo(evaluateTrigger(one, at, config).heat, 9);
    expect(needGroupHeat(spread, at, config)).toBeLessThanOrEqual(2 * config.heat_increment);
  });

  it('refuses members of another pool, client pools and an empty group', () => {
    const other = emptyCluster('x', { scenario: 'flight_booking', scope: 'global' }, start);
    expect(() => evaluateNeedGroup([matte, other], now, config)).toThrow(/not in the pool/);
    expect(() => evaluateNeedGroup([emptyCluster('p', { scenario: 'photo_retouch', scope: { client_id: 'a1' } }, start)], now, config)).toThrow(/global pools only/);
    expect(() => evaluateNeedGroup([], now, config)).toThrow(/at least one/);
  });

  it('client ids that name Object members are counted as clients, not as prototype keys', () => {
    const odd = cluster('o1', ['constructor', '__proto__', 'toString'], ['a vintage film look', 'old film style'], start);
    const plain = cluster('o2', ['hasOwnProperty', 'valueOf'], ['vintage look please', 'a film look'], start + HOUR);
    const g = evaluateNeedGroup([odd, plain], now, config);
    expect(g.evaluation.distinct_clients).toBe(5);
    expect(g.evaluation.heat).toBeGreaterThan(0);
    expect(Number.isFinite(g.evaluation.heat)).toBe(true);
  });
});

describe('the context two clusters share once the value word is set aside', () => {
  const profile = (c: Cluster) => wordProfile(c.samples);
  it('values of one frame share it; the value word alone would have kept them apart', () => {
    const plain = profileCosine(profile(matte), profile(satin));
    const ctx = contextCosine(profile(matte), profile(satin));
    expect(ctx).toBeGreaterThan(plain);
    expect(ctx).toBeGreaterThanOrEqual(DEFAULT_POOL_CONFIG.need_group_context);
    expect(plain).toBeLessThan(DEFAULT_POOL_CONFIG.need_group_context);
  });

  it('two needs that share no frame stay apart, and a word both say is never set aside', () => {
    const hair = cluster('h', ['h1', 'h2'], ['dye her hair darker', 'hair colour a shade lighter'], start);
    expect(contextCosine(profile(matte), profile(hair))).toBeLessThan(DEFAULT_POOL_CONFIG.need_group_context);
    expect(contextCosine(profile(matte), profile(matte))).toBeCloseTo(1, 10);
    expect(contextCosine(new Map(), profile(matte))).toBe(0);
  });

  it('reads outside words as Map keys: Object member names are words like any other', () => {
    const a = new Map([['constructor', 3], ['__proto__', 2], ['finish', 2]]);
    const b = new Map([['toString', 3], ['__proto__', 2], ['finish', 2]]);
    expect(contextCosine(a, b)).toBeCloseTo(1, 10);
  });
});
