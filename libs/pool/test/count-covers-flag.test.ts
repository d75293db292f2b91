/**
 * A count covers the yes/no need of the thing it counts (draft-zhou §6.2.2 one key per intent, types from evidence):
 * the clients who say "travelling with a puppy" and those who say "two puppies on board" ask one thing. When the
 * embedder splits them, the flag fires first and the count later; the count supersedes the flag (a new key plus a
 * deprecation, never a silent retype). Phrasings from no stream.
 */
import { describe, expect, it } from 'vitest';
import { SCENARIOS } from '@parley/examples';
import { countCoversFlag } from '@parley/evolution';
import type { KeyDefinition } from '@parley/protocol';
import { APPLY_RULES, createEvolver, type Evolver, type EvolverInduction, type MaturedCluster } from '../src/index';
import { lexicon, matured } from './induction-fixture';

const templates = SCENARIOS.map((s) => s.template);
const DAY = 86_400_000;
const T0 = Date.UTC(2026, 4, 4);
const saidBy = (texts: readonly string[], tag: string): [string, string[]][] => texts.map((t, i) => [t, [`${tag}-${i}`, `${tag}-${i + 10}`]]);

async function fire(ev: Evolver, m: MaturedCluster): Promise<void> {
  ev.applyMatured(m, await ev.induce(m));
}
const newKeys = (ev: Evolver) => ev.patches().flatMap((r) => r.patch.new_keys.map((k) => ({ name: k.definition.key_name, type: k.definition.key_type, state: k.lifecycle.state })));
const key = (key_name: string, key_type: KeyDefinition['key_type']): KeyDefinition => ({ key_name, key_type, required: false, default_value: null, semantic_description: 'x' });

describe('countCoversFlag', () => {
  it('a count of a noun covers the flag of that noun or of a WordNet synonym (baby / infant), not of another thing', () => {
    expect(countCoversFlag(key('puppy_count', 'integer'), key('needs_puppy', 'boolean'), lexicon)).toBe(true);
    expect(countCoversFlag(key('infant_count', 'integer'), key('needs_baby', 'boolean'), lexicon)).toBe(true);
    expect(countCoversFlag(key('infant_count', 'integer'), key('needs_insurance', 'boolean'), lexicon)).toBe(false);
    // Only a count and only a one-noun flag: a choice, a duration or a two-word flag is no such pair.
    expect(countCoversFlag(key('puppy_minutes', 'integer'), key('needs_puppy', 'boolean'), lexicon)).toBe(false);
    expect(countCoversFlag(key('puppy_count', 'integer'), key('puppy_food_removal', 'boolean'), lexicon)).toBe(false);
    expect(countCoversFlag(key('needs_puppy', 'boolean'), key('puppy_count', 'integer'), lexicon)).toBe(false);
  });

  it('co-hyponyms are different things, whatever their word vectors say: dog/cat, tea/coffee, wife/husband', () => {
    expect(countCoversFlag(key('dog_count', 'integer'), key('needs_cat', 'boolean'), lexicon)).toBe(false);
    expect(countCoversFlag(key('tea_count', 'integer'), key('needs_coffee', 'boolean'), lexicon)).toBe(false);
    expect(countCoversFlag(key('wife_count', 'integer'), key('needs_husband', 'boolean'), lexicon)).toBe(false);
    // A direct hypernym link is one thing counted at two levels: puppies are dogs.
    expect(countCoversFlag(key('puppy_count', 'integer'), key('needs_dog', 'boolean'), lexicon)).toBe(true);
  });

  it("one synset means each word in the other's first synset, not a shared first member: photo/exposure, seat/place, bag/purse", () => {
    expect(countCoversFlag(key('photo_count', 'integer'), key('needs_exposure', 'boolean'), lexicon)).toBe(false);
    expect(countCoversFlag(key('seat_count', 'integer'), key('needs_place', 'boolean'), lexicon)).toBe(false);
    expect(countCoversFlag(key('bag_count', 'integer'), key('needs_purse', 'boolean'), lexicon)).toBe(false);
    expect(countCoversFlag(key('bag_count', 'integer'), key('needs_handbag', 'boolean'), lexicon)).toBe(false);
  });

  it("the scenario's own noun names no need: photo_count over needs_photo in photo_retouch is no pair", () => {
    expect(countCoversFlag(key('photo_count', 'integer'), key('needs_photo', 'boolean'), lexicon, 'photo_retouch')).toBe(false);
    expect(countCoversFlag(key('photo_count', 'integer'), key('needs_photo', 'boolean'), lexicon, 'flight_booking')).toBe(true);
  });

  it('reads hostile names without throwing and finds no pair in them', () => {
    for (const n of ['constructor', '__proto__', '\u0000_count', '\ud800_count', `${'a_'.repeat(1 << 19)}count`]) {
      expect(countCoversFlag(key(n, 'integer'), key('needs___proto__', 'boolean'), lexicon, n)).toBe(false);
    }
  });
});

describe('a count split from the yes/no need of its noun supersedes the flag (zhou §6.2.2)', () => {
  it('needs_puppy, then a puppy count cluster: one live key puppy_count, the flag deprecated by a supersede decision', async () => {
    const ev = createEvolver({ templates, lexicon });
    await fire(ev, matured('c-flag', saidBy(['travelling with my puppy', 'the puppy flies with me', 'a puppy in the cabin'], 'pf'), T0));
    expect(newKeys(ev)).toEqual([expect.objectContaining({ name: 'needs_puppy', type: 'boolean' })]);
    await fire(ev, matured('c-count', saidBy(['two puppies on board', '3 puppies in the cabin', 'we bring four puppies'], 'pc'), T0 + DAY));
    const live = newKeys(ev).filter((k) => k.state !== 'deprecated');
    expect(live).toEqual([expect.objectContaining({ name: 'puppy_count', type: 'integer' })]);
    expect(newKeys(ev).find((k) => k.name === 'needs_puppy')?.state).toBe('deprecated');
    expect(ev.decisions().find((d) => d.action === 'supersede')?.key_name).toBe('puppy_count');
  });

  it('the flag after its count is covered by the count: one live key', async () => {
    const ev = createEvolver({ templates, lexicon });
    await fire(ev, matured('c-count', saidBy(['two puppies on board', '3 puppies in the cabin', 'we bring four puppies'], 'pc'), T0));
    await fire(ev, matured('c-flag', saidBy(['travelling with my puppy', 'the puppy flies with me', 'a puppy in the cabin'], 'pf'), T0 + DAY));
    expect(newKeys(ev).filter((k) => k.state !== 'deprecated').map((k) => k.name)).toEqual(['puppy_count']);
    expect(ev.triggers().at(-1)?.outcome).toBe('redundant');
  });

  it('a count of another thing leaves the flag alone: two keys', async () => {
    const ev = createEvolver({ templates, lexicon });
    await fire(ev, matured('c-flag', saidBy(['travelling with my puppy', 'the puppy flies with me', 'a puppy in the cabin'], 'pf'), T0));
    await fire(ev, matured('c-count', saidBy(['two suitcases in the hold', '3 suitcases checked', 'we bring four suitcases'], 'sc'), T0 + DAY));
    expect(newKeys(ev).filter((k) => k.state !== 'deprecated').map((k) => k.name).sort()).toEqual(['needs_puppy', 'suitcase_count']);
  });

  const PUPPY_FLAG = ['travelling with my puppy', 'the puppy flies with me', 'a puppy in the cabin'];
  const PUPPY_COUNT = ['two puppies on board', '3 puppies in the cabin', 'we bring four puppies'];
  const live = (ev: Evolver) => newKeys(ev).filter((k) => k.state !== 'deprecated').map((k) => k.name).sort();
  const supersedes = (ev: Evolver) => ev.decisions().filter((d) => d.action === 'supersede' || d.action === 'deprecate');

  it.each([
    ['cat / dog', ['travelling with my cat', 'the cat flies with me', 'a cat in the cabin'], ['two dogs on board', '3 dogs in the hold', 'we bring four dogs']],
    ['coffee / tea', ['a coffee on board please', 'I want coffee on the flight', 'coffee served in my seat'], ['two teas on board please', '3 teas on the flight', 'we want four teas']],
    ['husband / wife', ['my husband joins me', 'travelling with my husband', 'my husband flies with me'], ['two wives join me', '3 wives travelling', 'we bring four wives']],
  ])('a count of a co-hyponym (%s) leaves the flag alone: nothing superseded or deprecated', async (_, flag, count) => {
    const ev = createEvolver({ templates, lexicon });
    await fire(ev, matured('c-flag', saidBy(flag, 'f'), T0));
    const first = live(ev);
    expect(first).toHaveLength(1);
    await fire(ev, matured('c-count', saidBy(count, 'n'), T0 + DAY));
    expect(supersedes(ev)).toEqual([]);
    expect(live(ev)).toEqual(expect.arrayContaining(first));
  });

  it('a count of dogs before a cat flag does not swallow the cat need: the cat cluster is not redundant', async () => {
    const ev = createEvolver({ templates, lexicon });
    await fire(ev, matured('c-count', saidBy(['two dogs on board', '3 dogs in the hold', 'we bring four dogs'], 'n'), T0));
    await fire(ev, matured('c-flag', saidBy(['travelling with my cat', 'the cat flies with me', 'a cat in the cabin'], 'f'), T0 + DAY));
    expect(ev.triggers().at(-1)?.outcome).not.toBe('redundant');
  });

  it('photo_retouch: a photo count does not supersede an exposure flag (photo is the scenario, exposure another need)', async () => {
    const ev = createEvolver({ templates, lexicon });
    const inRetouch = (m: MaturedCluster): MaturedCluster => ({ ...m, scenario_id: 'photo_retouch' });
    await fire(ev, inRetouch(matured('c-flag', saidBy(['fix the exposure please', 'the exposure is too dark', 'correct the exposure'], 'f'), T0)));
    const first = live(ev);
    await fire(ev, inRetouch(matured('c-count', saidBy(['retouch 5 photos', 'I have 3 photos', 'please edit two photos'], 'n'), T0 + DAY)));
    expect(supersedes(ev)).toEqual([]);
    expect(live(ev)).toEqual(expect.arrayContaining(first));
  });

  it('one trigger report per cluster, and the supersede reason says the clusters are siblings (not that one grew)', async () => {
    const ev = createEvolver({ templates, lexicon });
    await fire(ev, matured('c-flag', saidBy(PUPPY_FLAG, 'pf'), T0));
    await fire(ev, matured('c-count', saidBy(PUPPY_COUNT, 'pc'), T0 + DAY));
    expect(ev.triggers().filter((t) => t.cluster_id === 'c-count')).toHaveLength(1);
    const why = ev.decisions().find((d) => d.action === 'supersede')?.reasons.join(' ') ?? '';
    expect(why).toContain('says what the cluster behind "needs_puppy" says');
    expect(why).not.toContain('grew to');
  });

  it('a stable flag only covers its count: the count cluster is redundant, the flag stays', async () => {
    const ev = createEvolver({ templates, lexicon });
    await fire(ev, matured('c-flag', saidBy(PUPPY_FLAG, 'pf'), T0));
    const patchId = ev.patches()[0]?.patch.patch_id as string;
    for (let d = 1; d <= 9; d++) {
      for (let i = 0; i < 25; i++) ev.recordExecution({ at: T0 + d * DAY + i * 60_000, scenario: 'flight_booking', client_id: `x${i}`, keys_present: ['needs_puppy'] });
      for (let i = 0; i < 3; i++) ev.recordAudit({ at: T0 + d * DAY + i * 60_000, patch_id: patchId, key_name: 'needs_puppy', aligned: true });
      ev.tick(T0 + (d + 1) * DAY);
    }
    expect(newKeys(ev).find((k) => k.name === 'needs_puppy')?.state).toBe('stable');
    await fire(ev, matured('c-count', saidBy(PUPPY_COUNT, 'pc'), T0 + 11 * DAY));
    expect(ev.triggers().at(-1)).toMatchObject({ cluster_id: 'c-count', outcome: 'redundant', key_name: 'needs_puppy' });
    expect(live(ev)).toEqual(['needs_puppy']);
  });
});

describe('replay of a count beside its flag decides what applying it live decided (apply rules, zhou §6.2.3)', () => {
  const PUPPY_FLAG = ['travelling with my puppy', 'the puppy flies with me', 'a puppy in the cabin'];
  const PUPPY_COUNT = ['two puppies on board', '3 puppies in the cabin', 'we bring four puppies'];
  async function logged(): Promise<{ flag: MaturedCluster; flagInduction: EvolverInduction; count: MaturedCluster; countInduction: EvolverInduction }> {
    const ev = createEvolver({ templates, lexicon });
    const flag = matured('c-flag', saidBy(PUPPY_FLAG, 'pf'), T0);
    const flagInduction = await ev.induce(flag);
    ev.applyMatured(flag, flagInduction);
    const count = matured('c-count', saidBy(PUPPY_COUNT, 'pc'), T0 + DAY);
    return { flag, flagInduction, count, countInduction: await ev.induce(count) };
  }

  it('the induction logs the decision: sibling needs_puppy, relation count_covers_flag, the current rules', async () => {
    const { countInduction } = await logged();
    expect(countInduction).toMatchObject({ ok: true, sibling_key: 'needs_puppy', sibling_relation: 'count_covers_flag', apply_rules: APPLY_RULES });
    expect(APPLY_RULES).toBe(3);
  });

  it('a record logged under rules 2 (no relation) replays as before: redundant, one key, no supersede', async () => {
    const { flag, flagInduction, count, countInduction } = await logged();
    const { sibling_relation: _, ...old } = countInduction;
    const ev = createEvolver({ templates, lexicon });
    ev.applyMatured(flag, flagInduction);
    ev.applyMatured(count, { ...old, apply_rules: 2 });
    expect(ev.triggers().at(-1)).toMatchObject({ outcome: 'redundant', key_name: 'needs_puppy' });
    expect(ev.decisions().filter((d) => d.action === 'supersede')).toEqual([]);
    expect(newKeys(ev).map((k) => k.name)).toEqual(['needs_puppy']);
  });

  it('a relation logged with rules 2 is ignored (it did not exist then)', async () => {
    const { flag, flagInduction, count, countInduction } = await logged();
    const ev = createEvolver({ templates, lexicon });
    ev.applyMatured(flag, flagInduction);
    ev.applyMatured(count, { ...countInduction, apply_rules: 2 });
    expect(ev.triggers().at(-1)?.outcome).toBe('redundant');
  });

  it('a rules-3 record replays on a node without any lexicon to the same supersede: the lexicon is not read when applying', async () => {
    const { flag, flagInduction, count, countInduction } = await logged();
    const ev = createEvolver({ templates });
    ev.applyMatured(flag, flagInduction);
    ev.applyMatured(count, countInduction);
    expect(ev.decisions().filter((d) => d.action === 'supersede').map((d) => d.key_name)).toEqual(['puppy_count']);
    expect(newKeys(ev).find((k) => k.name === 'needs_puppy')?.state).toBe('deprecated');
  });

  it('a count that needs review is no redundant sibling: it goes the ordinary way, a patch pending review', async () => {
    const { flag, flagInduction, count, countInduction } = await logged();
    if (!countInduction.ok) throw new Error('no induction');
    const ev = createEvolver({ templates, lexicon });
    ev.applyMatured(flag, flagInduction);
    const out = ev.applyMatured(count, { ...countInduction, candidate: { ...countInduction.candidate, review: ['closed vocabulary value "xl" needs an operator'] } });
    expect(out.report.outcome).not.toBe('redundant');
    expect(ev.decisions().filter((d) => d.action === 'supersede')).toEqual([]);
    expect(newKeys(ev).find((k) => k.name === 'needs_puppy')?.state).toBe('experimental');
  });

  it('a relation other than count_covers_flag is refused', async () => {
    const { flag, flagInduction, count, countInduction } = await logged();
    const ev = createEvolver({ templates, lexicon });
    ev.applyMatured(flag, flagInduction);
    expect(() => ev.applyMatured(count, { ...countInduction, sibling_relation: '__proto__' } as unknown as EvolverInduction)).toThrow(/sibling_relation/);
  });
});
