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
import { createEvolver, type Evolver, type MaturedCluster } from '../src/index';
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

  it('reads hostile names without throwing and finds no pair in them', () => {
    for (const n of ['constructor', '__proto__', '\u0000_count', '\ud800_count', `${'a_'.repeat(1 << 19)}count`]) {
      expect(countCoversFlag(key(n, 'integer'), key('needs___proto__', 'boolean'), lexicon)).toBe(false);
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
});
