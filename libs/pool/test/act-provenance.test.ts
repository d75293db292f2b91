/**
 * A yes/no key named by an act on an object (Candidate.act: acne_removal) fills no choice slot (draft-zhou §6.2.2, one key
 * per intent; libs/evolution acts.ts and sibling.ts oneSlot): the evolver records which applied inductions the act named
 * (actKeys) and the sibling check reads it, live and after a replay of the JSON log.
 */
import { describe, expect, it } from 'vitest';
import type { InductionResult } from '@parley/evolution';
import { SCENARIOS } from '@parley/examples';
import type { KeyDefinition } from '@parley/protocol';
import { createEvolver, type Evolver, type InduceFn } from '../src/index';
import { matured } from './induction-fixture';

const DAY = 86_400_000;
const T0 = Date.UTC(2026, 4, 4);
const templates = SCENARIOS.map((s) => s.template);

/**
 * An inducer (as an LLM one would) that names the acne cluster acne_removal by an act, its samples saying no English
 * act the rule inducer could re-derive; the other cluster a flag; both together a choice holding a word of each.
 */
const induce: InduceFn = async ({ samples }) => {
  const text = samples.map((s) => s.text).join(' ');
  const flag = (key_name: string): KeyDefinition => ({ key_name, key_type: 'boolean', required: false, semantic_description: `Wants ${key_name}.` });
  const base = { kind: 'boolean' as const, head_words: [], values: [], examples: [], fragments_used: samples.length, fragments_excluded: 0 };
  if (/akne/i.test(text) && /oily|express/.test(text)) {
    const values = /oily/.test(text) ? ['acne', 'oily'] : ['acne', 'express'];
    return { ok: true, candidate: { ...base, kind: 'enum', key: { key_name: 'skin_concern', key_type: 'string', required: false, enum: values, semantic_description: 'x' } } } as InductionResult;
  }
  if (/akne/i.test(text)) return { ok: true, candidate: { ...base, key: flag('acne_removal'), act: { verb: 'remove', noun: 'removal', object: ['acne'] } } } as InductionResult;
  return { ok: true, candidate: { ...base, key: flag(/oily/.test(text) ? 'oily_skin' : 'express_acne') } } as InductionResult;
};

const ACNE: [string, string[]][] = [['Akne weg bitte', ['#1', '#2', '#3']], ['die Akne weg', ['#4', '#5']]];
const OILY: [string, string[]][] = [['oily skin here', ['#6', '#7', '#8']], ['very oily skin', ['#9', '#10']]];

type Logged = { kind: 'matured'; body: string };

describe('act provenance in the pool: a key named by an act fills no choice slot, live and replayed', () => {
  it('records the act key when applied and keeps a later flag out of a choice with it; a replay of the JSON log decides the same', async () => {
    const ev = createEvolver({ templates, induce });
    const log: Logged[] = [];
    const a = matured('c-a', ACNE, T0);
    const induced = await ev.induce(a);
    ev.applyMatured(a, induced);
    log.push({ kind: 'matured', body: JSON.stringify({ matured: a, induction: induced }) });
    const b = matured('c-b', OILY, T0 + DAY);
    // skin_concern [acne, oily] holds a word of acne_removal, but acne is what the act is done to, no value.
    expect((await ev.induce(b)).sibling_key).toBeUndefined();
    const replayed: Evolver = createEvolver({ templates, induce });
    for (const { body } of log) {
      const r = JSON.parse(body) as { matured: typeof a; induction: InductionResult };
      replayed.applyMatured(r.matured, r.induction);
    }
    expect((await replayed.induce(b)).sibling_key).toBeUndefined();
  });

  it('a key no act named still fills its slot (the record without act)', async () => {
    const ev = createEvolver({ templates, induce });
    const a = matured('c-a', ACNE, T0);
    const induced = await ev.induce(a);
    if (!induced.ok) throw new Error(induced.reason);
    const { act: _act, ...plain } = induced.candidate;
    ev.applyMatured(a, { ...induced, candidate: plain });
    expect((await ev.induce(matured('c-b', OILY, T0 + DAY))).sibling_key).toBe('acne_removal');
  });
});
