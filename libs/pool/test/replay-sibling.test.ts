/**
 * The evolver is a deterministic fold of its logged inputs (apps/evolution input-log.ts replays `matured` and `grown`
 * with the induction logged beside them, never inducing again): one key per intent across sibling clusters
 * (draft-zhou §6.2.2, by word profile or by concept) must come out of a replay exactly as it was decided live.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { loadWordNetLexicon } from '@parley/embeddings';
import type { InductionResult, Lexicon } from '@parley/evolution';
import { SCENARIOS } from '@parley/examples';
import type { KeyDefinition } from '@parley/protocol';
import { APPLY_RULES, createEvolver, type Evolver, type InduceFn, type MaturedCluster } from '../src/index';
import { matured } from './induction-fixture';

const DAY = 86_400_000;
const T0 = Date.UTC(2026, 4, 4);
const templates = SCENARIOS.map((s) => s.template);

let lexicon: Lexicon;
beforeAll(async () => {
  lexicon = await loadWordNetLexicon();
});


type Logged = { kind: 'matured' | 'grown'; body: string };

/** Live: induce then apply, logging the body as apps/evolution does (JSON, so nothing but data survives). */
async function live(ev: Evolver, log: Logged[], kind: Logged['kind'], m: MaturedCluster): Promise<void> {
  const induction = await ev.induce(m);
  if (kind === 'matured') ev.applyMatured(m, induction);
  else ev.applyGrown(m, induction);
  log.push({ kind, body: JSON.stringify({ matured: m, induction }) });
}

/** Replay: the logged bodies, applied to a fresh evolver, never induced again. */
function replay(log: readonly Logged[], induce?: InduceFn): Evolver {
  const ev = createEvolver({ templates, lexicon, ...(induce ? { induce } : {}) });
  for (const { kind, body } of log) {
    const b = JSON.parse(body) as { matured: MaturedCluster; induction: InductionResult };
    if (kind === 'matured') ev.applyMatured(b.matured, b.induction);
    else ev.applyGrown(b.matured, b.induction);
  }
  return ev;
}

const state = (ev: Evolver) => ({ patches: ev.patches(), triggers: ev.triggers(), decisions: ev.decisions(), keys: ev.patches().flatMap((r) => [...r.patch.new_keys.map((k) => k.definition.key_name), ...r.patch.modified_keys.map((k) => `~${k.key_name}`)]) });

const MEAL_A: [string, string[]][] = [['vegetarian meal please', ['#1', '#2', '#3']], ['a vegan meal', ['#4', '#5']], ['vegan meal for me', ['#1']]];
const MEAL_B: [string, string[]][] = [['a halal meal', ['#1', '#2']], ['kosher meal please', ['#3', '#4']], ['halal meal on the plane', ['#5']]];
const BABY: [string, string[]][] = [['travelling with a baby', ['#1', '#2', '#3']], ['we bring our baby along', ['#4', '#5']], ['a baby comes too', ['#6']]];
const INFANT: [string, string[]][] = [['an infant flies with us', ['#1', '#2']], ['one infant on the trip', ['#3', '#4']], ['the infant sits on my knee', ['#5']]];

describe('sibling refinements replay as they were decided live (zhou §6.2.2 one key per intent)', () => {
  it('by word profile and by concept: a replay of the log gives the same patches, keys, triggers and decisions', async () => {
    const ev = createEvolver({ templates, lexicon });
    const log: Logged[] = [];
    await live(ev, log, 'matured', matured('c-a', MEAL_A, T0));
    await live(ev, log, 'matured', matured('c-b', MEAL_B, T0 + DAY));
    await live(ev, log, 'matured', matured('c-c', BABY, T0 + 2 * DAY));
    await live(ev, log, 'matured', matured('c-d', INFANT, T0 + 3 * DAY));
    const before = state(ev);
    // Live decided one meal key (refined by c-b) and one baby key (c-d refines or is covered by it).
    expect(before.triggers.map((t) => t.outcome)).toEqual(['patched', 'merged', 'patched', expect.stringMatching(/^(merged|redundant)$/)]);
    expect(before.keys.filter((k) => !k.startsWith('~'))).toHaveLength(2);
    expect(state(replay(log))).toEqual(before);
  });

  it('a restart between the two clusters decides as a run without one: the replayed evolver knows the first cluster\'s samples', async () => {
    const ev = createEvolver({ templates, lexicon });
    const log: Logged[] = [];
    await live(ev, log, 'matured', matured('c-c', BABY, T0));
    const restarted = replay(log);
    await live(ev, log, 'matured', matured('c-d', INFANT, T0 + DAY));
    const after: Logged[] = [];
    await live(restarted, after, 'matured', matured('c-d', INFANT, T0 + DAY));
    expect(state(restarted)).toEqual(state(ev));
    expect(after).toEqual(log.slice(1));
  });

  it('a grown cluster whose first induction was rejected, then finds a sibling, replays the same', async () => {
    const ev = createEvolver({ templates, lexicon });
    const log: Logged[] = [];
    await live(ev, log, 'matured', matured('c-a', MEAL_A, T0));
    ev.applyMatured(matured('c-b', MEAL_B, T0 + DAY), { ok: false, reason: 'too few phrasings', fragments_excluded: 0 });
    log.push({ kind: 'matured', body: JSON.stringify({ matured: matured('c-b', MEAL_B, T0 + DAY), induction: { ok: false, reason: 'too few phrasings', fragments_excluded: 0 } }) });
    await live(ev, log, 'grown', matured('c-b', [...MEAL_B, ['halal meal again', ['#6']]], T0 + 2 * DAY));
    expect(ev.triggers().map((t) => t.outcome)).toEqual(['patched', 'rejected', 'merged']);
    expect(state(replay(log))).toEqual(state(ev));
  });

  it('old log records (no sibling decision in the induction) still replay: no sibling refinement, as they were applied then', async () => {
    const ev = createEvolver({ templates, lexicon });
    const a = matured('c-a', MEAL_A, T0);
    ev.applyMatured(a, await ev.induce(a));
    const b = matured('c-b', MEAL_B, T0 + DAY);
    const induced = await ev.induce(b);
    expect(induced.sibling_key).toBe('meal_preference');
    const { sibling_key: _dropped, ...old } = induced;
    const r = ev.applyMatured(b, JSON.parse(JSON.stringify(old)) as InductionResult);
    expect(r.report.reasons.join(' ')).not.toMatch(/one key per intent/);
    expect(r.report.outcome).toBe('merged'); // conflict detection: the joint candidate collides with meal_preference
  });

  it('a logged sibling_key that is no key name is a typed error naming the path, and changes nothing', async () => {
    const ev = createEvolver({ templates, lexicon });
    const b = matured('c-b', MEAL_B, T0);
    const induced = await ev.induce(b);
    for (const bad of [42, '', 'x'.repeat(300), { k: 1 }]) {
      expect(() => ev.applyMatured(b, { ...induced, sibling_key: bad } as never)).toThrow(expect.objectContaining({ path: 'induction.sibling_key', rule: 'fragment_invalid' }));
      expect(() => ev.applyGrown(b, { ...induced, sibling_key: bad } as never)).toThrow(/induction\.sibling_key/);
    }
    expect(ev.triggers()).toEqual([]);
    expect(ev.patches()).toEqual([]);
  });
});

describe('a sibling refinement never retypes a published key under its name (zhou §6.2.2: a new key plus deprecation)', () => {
  // An inducer that names a yes/no flag and, once the values show, the choice, both "meal_choice".
  const induce: InduceFn = async ({ samples }) => {
    const values = [...new Set(samples.flatMap((s) => s.text.split(' ')).filter((w) => ['vegan', 'halal', 'kosher'].includes(w)))].sort();
    const key: KeyDefinition = values.length >= 2
      ? { key_name: 'meal_choice', key_type: 'string', required: false, enum: values, semantic_description: `Meal. One of ${values.join(', ')}.` }
      : { key_name: 'meal_choice', key_type: 'boolean', required: false, semantic_description: 'Wants a special meal.' };
    return { ok: true, candidate: { key, kind: key.key_type === 'boolean' ? 'boolean' : 'enum', head_words: ['meal'], values: values.map((value) => ({ value, count: 2 })), examples: [], fragments_used: samples.length, fragments_excluded: 0 } } as InductionResult;
  };

  it('a yes/no key whose sibling induces a choice of the same name keeps its name and type: the choice is not published over it', async () => {
    const ev = createEvolver({ templates, induce });
    const log: Logged[] = [];
    await live(ev, log, 'matured', matured('c-a', [['vegan meal please', ['#1', '#2', '#3']], ['meal please vegan', ['#4', '#5']]], T0));
    expect(ev.patches()[0]?.patch.new_keys[0]?.definition).toMatchObject({ key_name: 'meal_choice', key_type: 'boolean' });
    await live(ev, log, 'matured', matured('c-b', [['halal meal please', ['#1', '#2']], ['kosher meal please', ['#3', '#4']]], T0 + DAY));
    const published = ev.patches().flatMap((r) => r.patch.new_keys.map((k) => k.definition));
    expect(published.filter((k) => k.key_name === 'meal_choice').map((k) => k.key_type)).toEqual(['boolean']);
    expect(ev.patches().flatMap((r) => r.patch.modified_keys).filter((k) => k.key_name === 'meal_choice' && k.enum !== undefined)).toEqual([]);
    expect(state(replay(log, induce))).toEqual(state(ev));
  });
});

describe('siblings share an audience (zhou §6.2.2 personalized adaptation: per-client and global keys stay apart)', () => {
  it('a cluster of a client named "global" is no sibling of the global cluster (the trigger label is the same, the audience is not)', async () => {
    const ev = createEvolver({ templates, lexicon });
    const a = matured('c-a', MEAL_A, T0);
    expect(ev.applyMatured(a, await ev.induce(a)).report.key_name).toBe('meal_preference');
    for (const client of ['global', 'c9']) {
      const b = { ...matured(`c-${client}`, MEAL_B, T0 + DAY), scope: `client:${client}` };
      expect((await ev.induce(b)).sibling_key, client).toBeUndefined();
    }
    const g = matured('c-g', MEAL_B, T0 + DAY);
    expect((await ev.induce(g)).sibling_key).toBe('meal_preference');
  });
});

describe('a grown cluster with a key of its own (zhou §6.2.2 induction over the cluster\'s life)', () => {
  it('gives its key no values of another need: meal_preference never gains seats', async () => {
    const ev = createEvolver({ templates, lexicon });
    const X: [string, string[]][] = [['vegetarian meal please', ['#1', '#2', '#3']], ['a vegan meal', ['#4', '#5']]];
    const x = matured('c-x', X, T0);
    expect(ev.applyMatured(x, await ev.induce(x)).report.key_name).toBe('meal_preference');
    const y = matured('c-y', [['window seat please', ['#1', '#2', '#3']], ['aisle seat please', ['#4', '#5']]], T0 + DAY);
    expect(ev.applyMatured(y, await ev.induce(y)).report.key_name).toBe('seat_preference');
    // c-x drifted: most of its clients now ask for seats (the pool's concern); its key stays a meal choice.
    const g = matured('c-x', [...X, ['middle seat please', ['#6', '#7', '#8', '#9']], ['window seat please', ['#10', '#11', '#12']], ['aisle seat', ['#13', '#14']]], T0 + 2 * DAY);
    const induced = await ev.induce(g);
    expect(induced.ok && induced.candidate.key.key_name).toBe('seat_preference');
    expect(ev.applyGrown(g, induced).changes).toEqual([]);
    const meal = ev.patches().flatMap((r) => r.patch.modified_keys).filter((k) => k.key_name === 'meal_preference');
    expect(meal.flatMap((k) => k.enum ?? [])).not.toEqual(expect.arrayContaining(['window']));
  });

  it('a record logged before the rule replays as it was applied then, and a record names only rules that exist', async () => {
    const X: [string, string[]][] = [['vegetarian meal please', ['#1', '#2', '#3']], ['a vegan meal', ['#4', '#5']]];
    const run = async (strip: boolean) => {
      const ev = createEvolver({ templates, lexicon });
      const x = matured('c-x', X, T0);
      ev.applyMatured(x, await ev.induce(x));
      const g = matured('c-x', [...X, ['middle seat please', ['#6', '#7', '#8', '#9']], ['window seat please', ['#10', '#11', '#12']], ['aisle seat', ['#13', '#14']]], T0 + 2 * DAY);
      const induced = await ev.induce(g);
      expect(induced.apply_rules).toBe(APPLY_RULES);
      // A record from before the field: the same induction without it, as older logs hold it.
      const logged = strip ? (({ apply_rules: _, ...rest }) => rest)(induced) : induced;
      return ev.applyGrown(g, logged).changes;
    };
    expect(await run(false)).toEqual([]);
    // Rules 1 widened the key with whatever the grown cluster supported: a replay of such a record must do the same,
    // or a patch published then would be missing after the upgrade and the next patch would take its id.
    expect((await run(true)).length).toBe(1);
    const ev = createEvolver({ templates, lexicon });
    const x = matured('c-x', X, T0);
    const bad = { ...(await ev.induce(x)), apply_rules: APPLY_RULES + 1 };
    expect(() => ev.applyMatured(x, bad)).toThrow(/induction\.apply_rules/);
  });
});

