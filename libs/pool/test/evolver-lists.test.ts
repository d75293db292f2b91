/**
 * One key per intent for lists (draft-zhou §6.2.2): two clusters listing identifiers are one list only when the
 * identifiers are of one kind (one shape and a shared letter prefix). Bag tags and bookings of one shape are two
 * lists, whichever is heard first; a replay of the logged inductions decides the same.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { loadWordNetLexicon } from '@parley/embeddings';
import { induceKey, type InductionResult, type Lexicon } from '@parley/evolution';
import { SCENARIOS } from '@parley/examples';
import { APPLY_RULES, createEvolver } from '../src/index';
import { matured } from './induction-fixture';

const DAY = 86_400_000;
const T0 = Date.UTC(2026, 4, 4);
const templates = SCENARIOS.map((s) => s.template);
let lexicon: Lexicon;
beforeAll(async () => {
  lexicon = await loadWordNetLexicon();
});


const BAGS: [string, string[]][] = [['lost bags BG-1201 and BG-1207', ['a1', 'a2', 'a3']], ['my bags BG-3301, BG-3302', ['a4', 'a5']], ['bags BG-0042 BG-0043 are missing', ['a6', 'a7']]];
const MORE_BAGS: [string, string[]][] = [['bags BG-5501 and BG-5502 please', ['c1', 'c2', 'c3']], ['tags BG-6601, BG-6602', ['c4', 'c5']], ['luggage BG-7701 BG-7702 lost', ['c6', 'c7']]];
const BOOKINGS: [string, string[]][] = [['also rebook bookings PN-7781 and PN-7790', ['b1', 'b2', 'b3']], ['merge my bookings PN-2201, PN-2207', ['b4', 'b5']], ['bookings PN-0033 PN-0040 together', ['b6', 'b7']]];

async function run(order: [string, string[]][][]): Promise<{ keys: string[]; siblings: (string | undefined)[] }> {
  const ev = createEvolver({ templates, lexicon });
  const siblings: (string | undefined)[] = [];
  for (const [i, s] of order.entries()) {
    const m = matured(`c${i}`, s, T0 + i * DAY);
    const ind = await ev.induce(m);
    siblings.push((ind as { sibling_key?: string }).sibling_key);
    ev.applyMatured(m, ind);
  }
  return { keys: ev.patches().flatMap((r) => r.patch.new_keys.map((k) => k.definition.key_name)), siblings };
}

describe('lists of identifiers of one shape (zhou §6.2.2)', () => {
  it('bag tags and bookings of one shape are two lists, in either order', async () => {
    for (const order of [[BAGS, BOOKINGS], [BOOKINGS, BAGS]]) {
      const { keys, siblings } = await run(order);
      expect(keys).toHaveLength(2);
      expect(siblings[1]).toBeUndefined();
    }
  });

  it('two clusters of one kind of identifier are one list: the second is the first key\'s sibling', async () => {
    const { keys, siblings } = await run([BAGS, MORE_BAGS]);
    expect(keys).toHaveLength(1);
    expect(siblings[1]).toBe(keys[0]);
  });

  it('a record logged when shape alone made one list replays as it was applied: the logged sibling decides', async () => {
    const ev = createEvolver({ templates, lexicon });
    const a = matured('c0', BAGS, T0);
    const first = ev.applyMatured(a, await ev.induce(a)).report.key_name as string;
    const b = matured('c1', BOOKINGS, T0 + DAY);
    // What the earlier rule logged: the joint induction over both clusters, with the bag list as sibling.
    const joint = induceKey([...b.samples, ...a.samples], undefined, { lexicon });
    const old = JSON.parse(JSON.stringify({ ...joint, sibling_key: first, apply_rules: APPLY_RULES })) as InductionResult;
    const r = ev.applyMatured(b, old);
    expect(r.report.outcome).not.toBe('patched');
    expect(ev.patches().flatMap((p) => p.patch.new_keys.map((k) => k.definition.key_name))).toEqual([first]);
  });
});
