/**
 * The co-hyponym choice, held against what a review found (draft-zhou §6.2.2 "names from concepts, not frequent
 * words", one key per intent): kinds too near WordNet's root name nothing, the inducer and the evolver name a choice
 * one way, an action word keeps a flag out of a choice, and a joint refusal or review is never overridden.
 * Examples from no stream.
 */
import { describe, expect, it } from 'vitest';
import { SCENARIOS } from '@parley/examples';
import { coHyponymChoice, induceKey, kindChoiceName, MIN_KIND_DEPTH, sharedKind } from '@parley/evolution';
import type { KeyDefinition } from '@parley/protocol';
import { createEvolver, type EvolverInduction } from '../src/index';
import { candidate, lexicon as lex, matured, said } from './induction-fixture';

const templates = SCENARIOS.map((s) => s.template);
const flag = (name: string): KeyDefinition => ({ key_name: name, key_type: 'boolean', required: false, default_value: null, semantic_description: name });
const choice = (name: string, values: string[]): KeyDefinition => ({ ...flag(name), key_type: 'string', enum: values });

describe('sharedKind: a kind near the root names no choice (review finding 1)', () => {
  it('screen / tower, access / group, oxygen / fiber, keyboard / vehicle: no kind (artifact, abstraction, substance)', () => {
    for (const pair of [['screen', 'tower'], ['access', 'group'], ['oxygen', 'fiber'], ['keyboard', 'vehicle'], ['power', 'background'], ['adult', 'driver']]) expect(sharedKind(lex, pair)).toBeNull();
  });
  it('specific kinds still name the choice: taxi / limousine are cars, red / green colours', () => {
    expect(sharedKind(lex, ['taxi', 'limousine'])).toBe('car');
    expect(sharedKind(lex, ['red', 'green'])).toBe('chromatic_color');
    expect(MIN_KIND_DEPTH).toBeGreaterThanOrEqual(6);
  });
  it('a kind\'s depth is its shortest way to the root: person (a causal agent, three levels under entity) names no choice', () => {
    for (const pair of [['child', 'adult'], ['patient', 'visitor'], ['man', 'child']]) expect(sharedKind(lex, pair)).toBeNull();
    expect(coHyponymChoice(flag('needs_child'), flag('needs_adult'), lex)).toBeNull();
    // A kind deep on every way up still names the choice (guitar / piano: stringed instruments).
    expect(sharedKind(lex, ['guitar', 'piano'])).toBe('stringed_instrument');
  });
  it('two flags under a general kind are two needs, not artifact_type', () => {
    expect(coHyponymChoice(flag('needs_screen'), flag('needs_tower'), lex)).toBeNull();
  });
});

describe('one naming rule (review finding 6) and the action word (review finding 5)', () => {
  it('the inducer and the evolver both name a choice by the kind\'s last word', () => {
    expect(kindChoiceName('national_capital', null)).toEqual(['capital', 'type']);
    expect(kindChoiceName('chromatic_color', 'lip')).toEqual(['lip', 'color']);
    expect(coHyponymChoice(flag('needs_taxi'), flag('needs_limousine'), lex)?.key_name).toBe('car_type');
    const c = candidate([said('a taxi from the airport', 3), said('a limousine from the airport', 3), said('send a taxi', 2), said('send a limousine', 2)]);
    expect(c.key.key_name.split('_').length).toBeLessThanOrEqual(2);
  });
  it('red_eye_removal is no value of eye_color [blue, green]; needs_red_eye is', () => {
    expect(coHyponymChoice(flag('red_eye_removal'), choice('eye_color', ['blue', 'green']), lex)).toBeNull();
    expect(coHyponymChoice(flag('needs_red_eye'), choice('eye_color', ['blue', 'green']), lex)).not.toBeNull();
  });
});

describe('a built choice never overrides the joint induction (review finding 2)', () => {
  const TAXI: [string, string[]][] = [['a taxi from the airport', ['t1', 't2']], ['book a taxi on arrival', ['t3', 't4']], ['taxi waiting when I land', ['t5', 't6']]];
  const LIMO: [string, string[]][] = [['a limousine from the airport', ['l1', 'l2']], ['send a limousine on arrival', ['l3', 'l4']], ['limousine waiting when I land', ['l5', 'l6']]];
  const DAY = 86_400_000;
  const T0 = Date.UTC(2026, 2, 2);
  async function run(joint: (ok: EvolverInduction) => EvolverInduction): Promise<{ name: string; state: string }[]> {
    let calls = 0;
    const ev = createEvolver({
      templates,
      lexicon: lex,
      induce: async (input) => {
        calls++;
        const r = induceKey(input.samples, undefined, { lexicon: lex, existing: input.existing_keys });
        // The third call is the joint induction over both clusters (alone, then alone again for the sibling).
        return calls >= 3 ? joint(r) : r;
      },
    });
    for (const m of [matured('c-taxi', TAXI, T0), matured('c-limo', LIMO, T0 + DAY)]) ev.applyMatured(m, await ev.induce(m));
    return ev.patches().flatMap((r) => r.patch.new_keys.map((k) => ({ name: k.definition.key_name, state: k.lifecycle.state })));
  }
  it('a joint refusal stands: no car_type, the flag is not deprecated', async () => {
    const keys = await run(() => ({ ok: false, reason: 'personal need', fragments_excluded: 0 }));
    expect(keys.map((k) => k.name)).not.toContain('car_type');
    expect(keys.find((k) => k.name === 'needs_taxi')?.state).toBe('experimental');
  });
  it('a joint candidate an operator must review stands: no built car_type published in its place', async () => {
    const keys = await run((r) => (r.ok ? { ...r, candidate: { ...r.candidate, review: ['security relevant: operator must check'] } } : r));
    expect(keys.find((k) => k.name === 'needs_taxi')?.state).toBe('experimental');
  });
  it('without the override the same clusters do make car_type (the control: the two tests above can fail)', async () => {
    const keys = await run((r) => r);
    expect(keys.map((k) => k.name)).toContain('car_type');
  });
});
