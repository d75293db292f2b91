/**
 * A choice whose values the clustering split into one cluster per value (draft-zhou §6.2.2 one key per intent):
 * "a taxi from the airport" and "a limousine from the airport" clusters are one choice among kinds of car. The
 * first cluster alone is a yes/no key; the second makes one string enum named by the values' shared WordNet
 * hypernym (`car_type`) that supersedes the flag (a new key plus a deprecation, never a silent retype); a value
 * said later by distinct clients refines the experimental key through modified_keys. Phrasings from no stream.
 */
import { describe, expect, it } from 'vitest';
import { SCENARIOS } from '@parley/examples';
import { createEvolver, type Evolver, type MaturedCluster } from '../src/index';
import { lexicon, matured } from './induction-fixture';

const templates = SCENARIOS.map((s) => s.template);
const DAY = 86_400_000;
const T0 = Date.UTC(2026, 2, 2);
/** Each phrasing said by two clients of its own (the value's clients never say another value). */
const saidBy = (texts: readonly string[], tag: string): [string, string[]][] => texts.map((t, i) => [t, [`${tag}-${i}`, `${tag}-${i + 10}`]]);
const TAXI = ['a taxi from the airport', 'book a taxi on arrival', 'taxi waiting when I land'];
const LIMO = ['a limousine from the airport', 'send a limousine on arrival', 'limousine waiting when I land'];
const VAN = ['a minivan from the airport', 'book a minivan on arrival', 'minivan waiting when I land'];

async function fire(ev: Evolver, m: MaturedCluster, grown = false): Promise<void> {
  const induced = await ev.induce(m);
  if (grown) ev.applyGrown(m, induced);
  else ev.applyMatured(m, induced);
}

const newKeys = (ev: Evolver) => ev.patches().flatMap((r) => r.patch.new_keys.map((k) => ({ name: k.definition.key_name, type: k.definition.key_type, values: k.definition.enum ?? null, state: k.lifecycle.state })));
const modified = (ev: Evolver) => ev.patches().flatMap((r) => r.patch.modified_keys.map((k) => ({ name: k.key_name, values: k.enum ?? null })));

describe('a choice split into one cluster per value becomes one enum key (zhou §6.2.2)', () => {
  it('taxi and limousine clusters: one car_type key [taxi, limousine]; the first cluster\'s flag is superseded, not kept beside it', async () => {
    const ev = createEvolver({ templates, lexicon });
    await fire(ev, matured('c-taxi', saidBy(TAXI, 'tx'), T0));
    expect(newKeys(ev)).toEqual([expect.objectContaining({ name: 'needs_taxi', type: 'boolean' })]);
    await fire(ev, matured('c-limo', saidBy(LIMO, 'lm'), T0 + DAY));
    const keys = newKeys(ev);
    const choice = keys.find((k) => k.type === 'string');
    expect(choice).toEqual(expect.objectContaining({ name: 'car_type', values: expect.arrayContaining(['taxi', 'limousine']) }));
    expect(choice?.values).toHaveLength(2);
    // One live key for the intent: the flag is deprecated in favour of the choice, recorded as decisions.
    expect(keys.find((k) => k.name === 'needs_taxi')?.state).toBe('deprecated');
    const log = ev.decisions();
    expect(log.find((d) => d.action === 'supersede')?.key_name).toBe('car_type');
    expect(log.find((d) => d.action === 'deprecate' && d.key_name === 'needs_taxi')?.reasons.join(' ')).toMatch(/car_type/);
  });

  it('a value said later by distinct clients refines the experimental choice through modified_keys, recorded as a refine', async () => {
    const ev = createEvolver({ templates, lexicon });
    await fire(ev, matured('c-taxi', saidBy(TAXI, 'tx'), T0));
    await fire(ev, matured('c-limo', saidBy(LIMO, 'lm'), T0 + DAY));
    await fire(ev, matured('c-van', saidBy(VAN, 'mv'), T0 + 5 * DAY));
    expect(newKeys(ev).filter((k) => k.state !== 'deprecated').map((k) => k.name)).toEqual(['car_type']);
    expect(modified(ev)).toEqual([{ name: 'car_type', values: expect.arrayContaining(['taxi', 'limousine', 'minivan']) }]);
    const refine = ev.decisions().find((d) => d.action === 'refine');
    expect(refine?.key_name).toBe('car_type');
    expect(refine?.figures).toEqual(expect.objectContaining({ values_added: 1 }));
  });

  it('the same late value, when the choice\'s own cluster grows to hold it, widens the key the same way', async () => {
    const ev = createEvolver({ templates, lexicon });
    await fire(ev, matured('c-cars', [...saidBy(TAXI, 'tx'), ...saidBy(LIMO, 'lm')], T0));
    expect(newKeys(ev).map((k) => [k.name, k.values])).toEqual([['car_type', expect.arrayContaining(['taxi', 'limousine'])]]);
    await fire(ev, matured('c-cars', [...saidBy(TAXI, 'tx'), ...saidBy(LIMO, 'lm'), ...saidBy(VAN, 'mv')], T0 + 9 * DAY), true);
    expect(modified(ev)).toEqual([{ name: 'car_type', values: expect.arrayContaining(['minivan']) }]);
  });

  it('found as one choice by its co-hyponym values even when other flags fired in between (no joint probe spent on it)', async () => {
    const ev = createEvolver({ templates, lexicon });
    await fire(ev, matured('c-taxi', saidBy(TAXI, 'tx'), T0));
    await fire(ev, matured('c-ins', saidBy(['travel insurance please', 'add travel insurance', 'insurance for the trip'], 'in'), T0 + DAY));
    await fire(ev, matured('c-pet', saidBy(['my cat flies with me', 'the cat comes along', 'a cat in the cabin'], 'pt'), T0 + 2 * DAY));
    await fire(ev, matured('c-limo', saidBy(['send a limousine', 'limousine please', 'a limousine for us'], 'lm'), T0 + 3 * DAY));
    const live = newKeys(ev).filter((k) => k.state !== 'deprecated').map((k) => k.name);
    expect(live.filter((k) => /taxi|limousine|car/.test(k))).toEqual(['car_type']);
    expect(ev.triggers().at(-1)?.reasons.join(' ')).toMatch(/one key per intent/);
  });

  it('the built choice is part of the logged induction: a replay of the log applies it as decided live', async () => {
    const ev = createEvolver({ templates, lexicon });
    const log: { m: MaturedCluster; induced: unknown }[] = [];
    const steps: [string, [string, string[]][], number][] = [
      ['c-taxi', saidBy(TAXI, 'tx'), T0],
      ['c-ins', saidBy(['travel insurance please', 'add travel insurance', 'insurance for the trip'], 'in'), T0 + DAY],
      ['c-pet', saidBy(['my cat flies with me', 'the cat comes along', 'a cat in the cabin'], 'pt'), T0 + 2 * DAY],
      ['c-limo', saidBy(['send a limousine', 'limousine please', 'a limousine for us'], 'lm'), T0 + 3 * DAY],
    ];
    for (const [id, samples, at] of steps) {
      const m = matured(id, samples, at);
      const induced = await ev.induce(m);
      ev.applyMatured(m, induced);
      log.push(JSON.parse(JSON.stringify({ m, induced })) as { m: MaturedCluster; induced: unknown });
    }
    const again = createEvolver({ templates, lexicon, induce: () => Promise.reject(new Error('a replay never induces')) });
    for (const { m, induced } of log) again.applyMatured(m, induced as never);
    expect(again.patches()).toEqual(ev.patches());
    expect(again.decisions()).toEqual(ev.decisions());
  });

  it('hostile sample texts beside the co-hyponym clusters: no throw, and only values two voices said reach the choice', async () => {
    const ev = createEvolver({ templates, lexicon });
    const hostile = ['constructor', '__proto__ toString', 'a\u0000b taxi', '\ud800 limousine', 'x'.repeat(1 << 20), 'limousine '.repeat(5000)];
    await fire(ev, matured('c-taxi', [...saidBy(TAXI, 'tx'), ...hostile.map((t, i): [string, string[]] => [t, [`h-${i}`]])], T0));
    await fire(ev, matured('c-limo', [...saidBy(['send a limousine', 'limousine please', 'a limousine for us'], 'lm'), ...hostile.map((t, i): [string, string[]] => [t, [`k-${i}`]])], T0 + DAY));
    const keys = newKeys(ev);
    for (const k of keys) {
      expect(k.name).toMatch(/^[a-z][a-z0-9_]*$/);
      for (const v of k.values ?? []) expect(['taxi', 'limousine']).toContain(v);
    }
    // The choice is there: the test fails when no key (or no choice) comes out.
    expect(keys.find((k) => k.type === 'string')).toEqual(expect.objectContaining({ name: 'car_type', values: expect.arrayContaining(['taxi', 'limousine']) }));
  });

  it('values beside a head they modify keep the head\'s name (window / aisle seat stays a seat choice)', async () => {
    const ev = createEvolver({ templates, lexicon });
    await fire(ev, matured('c-seat', [...saidBy(['a window seat please', 'window seat for me', 'seat by the window'], 'w'), ...saidBy(['an aisle seat please', 'aisle seat for me', 'seat on the aisle'], 'a')], T0));
    expect(newKeys(ev).map((k) => k.name)).toEqual(['seat_preference']);
  });

  it('a value one client says in several samples is no value: voices are distinct clients (review finding 3)', async () => {
    const ev = createEvolver({ templates, lexicon });
    await fire(ev, matured('c-taxi', saidBy(TAXI, 'tx'), T0));
    // The limousine cluster: three phrasings of one client ("solo"), and a minivan said by two clients.
    await fire(ev, matured('c-limo', [['a limousine from the airport', ['solo']], ['send a limousine on arrival', ['solo']], ['limousine waiting when I land', ['solo', 'solo']], ['a minivan from the airport', ['v1', 'v2']]], T0 + DAY));
    expect(newKeys(ev).flatMap((k) => k.values ?? [])).not.toContain('limousine');
    // The control: the same phrasings from distinct clients do make limousine a value, so the check above can fail.
    const control = createEvolver({ templates, lexicon });
    await fire(control, matured('c-taxi', saidBy(TAXI, 'tx'), T0));
    await fire(control, matured('c-limo', [['a limousine from the airport', ['l1']], ['send a limousine on arrival', ['l2']], ['limousine waiting when I land', ['l3', 'l4']], ['a minivan from the airport', ['v1', 'v2']]], T0 + DAY));
    expect(newKeys(control).flatMap((k) => k.values ?? [])).toContain('limousine');
  });
});

