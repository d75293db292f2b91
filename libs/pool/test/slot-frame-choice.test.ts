/**
 * A choice read from the slot its values fill (draft-zhou §6.2.2 step 4, "boolean only when no alternatives
 * appear"; libs/evolution/src/frames.ts): distinct clients filling one side of one governing word with different
 * words state alternatives, though the words are no WordNet siblings. Phrasings from no stream.
 */
import { describe, expect, it } from 'vitest';
import { frameChoices, type FramePhrase, type FrameWords } from '@parley/evolution';
import { candidate, said } from './induction-fixture';

/** Words of a made-up phrase, each after the raw token before it; nouns, verbs and prepositions by the given sets. */
const NOUNS = new Set(['trip', 'business', 'leisure', 'card', 'invoice', 'company', 'delivery', 'express', 'standard', 'work']);
const VERBS = new Set(['pay', 'book']);
const words: FrameWords = {
  isNoun: (w) => NOUNS.has(w),
  isVerb: (w) => VERBS.has(w),
  canAnchor: (w) => NOUNS.has(w) || VERBS.has(w),
  canFill: (w) => NOUNS.has(w),
  sameConcept: (a, b) => a === b,
};
function phrase(text: string, clients: string[]): FramePhrase<string> {
  const raws = text.split(' ');
  const seq = raws.map((v, i) => ({ v, i, before: raws[i - 1] ?? '' })).filter((t) => NOUNS.has(t.v) || VERBS.has(t.v));
  return { p: text, seq, voters: new Map(clients.map((c) => [c, 1])) };
}

describe('frameChoices: one slot of one word, filled differently by distinct clients', () => {
  it('a business trip / a leisure trip by two clients each: the trip slot holds business and leisure', () => {
    const got = frameChoices([phrase('a business trip', ['a', 'b']), phrase('a leisure trip', ['c', 'd'])], words, 2, 0.1);
    expect(got[0]?.anchor).toBe('trip');
    expect([...(got[0]?.values.keys() ?? [])].sort()).toEqual(['business', 'leisure']);
  });
  it('a verb\'s slot is its object after a preposition; the word before a verb (its subject) fills none', () => {
    const got = frameChoices([phrase('pay by card', ['a', 'b']), phrase('we pay on invoice', ['c', 'd']), phrase('company pay', ['e', 'f'])], words, 2, 0.1);
    const pay = got.find((f) => f.anchor === 'pay');
    expect([...(pay?.values.keys() ?? [])].sort()).toEqual(['card', 'invoice']);
  });
  it('the same clients saying both values state no alternative (two clients each say business and leisure)', () => {
    expect(frameChoices([phrase('a business trip', ['a', 'b']), phrase('a leisure trip', ['a', 'b'])], words, 2, 0.1)).toEqual([]);
    // The control: two other clients for leisure make the choice.
    expect(frameChoices([phrase('a business trip', ['a', 'b']), phrase('a leisure trip', ['c', 'd'])], words, 2, 0.1).map((f) => f.anchor)).toEqual(['trip']);
  });
  it('no choice: one client saying both, a value one client says, or fragments that list both', () => {
    expect(frameChoices([phrase('a business trip', ['a']), phrase('a leisure trip', ['a'])], words, 2, 0.1)).toEqual([]);
    expect(frameChoices([phrase('a business trip', ['a', 'b']), phrase('a leisure trip', ['c'])], words, 2, 0.1)).toEqual([]);
    expect(frameChoices([phrase('pay by card or by invoice', ['a', 'b']), phrase('pay by card or by invoice', ['c', 'd'])], words, 2, 0.1).find((f) => f.anchor === 'pay')).toBeUndefined();
  });
  it('hostile words (property names, NUL, lone surrogates, a MiB, repetitions) are only compared: no throw, no prototype write', () => {
    const protoBefore = Object.getOwnPropertyNames(Object.prototype).sort();
    const hostile = ['constructor', '__proto__', 'toString', 'a\u0000b', '\ud800', 'x'.repeat(1 << 20), 'trip '.repeat(5000)];
    const any: FrameWords = { isNoun: () => true, isVerb: () => false, canAnchor: () => true, canFill: () => true, sameConcept: () => false };
    const ps = hostile.map((h, k) => ({ p: h, seq: [{ v: h, i: 0 }, { v: 'trip', i: 1 }, { v: '__proto__', i: 3, before: 'for' }], voters: new Map([[`c${k}`, 1], [`d${k}`, 1]]) }));
    const got = frameChoices(ps, any, 2, 0.1);
    expect(got.find((f) => f.anchor === 'trip')?.values.size).toBeGreaterThanOrEqual(2);
    // Fillers named like Object.prototype's members are Map keys: the prototype keeps its own members, gains none.
    expect(Object.getOwnPropertyNames(Object.prototype).sort()).toEqual(protoBefore);
    expect(Object.getPrototypeOf({})).toBe(Object.prototype);
  });
});

/** The frame choice is opt-in (InductionOptions.frame_choices): these cases turn it on. */
const FRAMES = { frame_choices: true };

describe('the rule inducer: a choice where a flag stood, with frame_choices on (zhou §6.2.2)', () => {
  it('express / standard delivery from distinct clients: delivery_type [express, standard]', () => {
    const c = candidate([said('an express delivery please', 3), said('we want express delivery', 2), said('standard delivery is fine', 3), said('a standard delivery for us', 2)], undefined, FRAMES);
    expect(c.key).toEqual(expect.objectContaining({ key_name: 'delivery_type', key_type: 'string' }));
    expect([...(c.key.enum ?? [])].sort()).toEqual(['express', 'standard']);
  });
  it('a value a fragment capitalises, even at a sentence start ("Jack trip please"), goes to an operator (zhou §7)', () => {
    const c = candidate([said('Jack trip please', 3), said('Rose trip please', 3), said('trip planning', 2)], undefined, FRAMES);
    expect(c.key.enum ?? []).toEqual(expect.arrayContaining(['jack', 'rose']));
    expect(c.review ?? []).toEqual(expect.arrayContaining([expect.stringContaining('capitalised')]));
    // The control: the same words written lower case make the same frame choice, which no capital sends to review.
    const lower = candidate([said('jack trip please', 3), said('rose trip please', 3), said('trip planning', 2)], undefined, FRAMES);
    expect(lower.key.enum ?? []).toEqual(expect.arrayContaining(['jack', 'rose']));
    expect(lower.review ?? []).toEqual([]);
  });
  it('a minority filling a slot keeps the majority\'s flag: 26 voices ask for a wheelchair, 4 say what for', () => {
    const c = candidate([said('wheelchair assistance', 9), said('need a wheelchair', 9), said('wheelchair at the gate', 8), said('wheelchair for knee', 2), said('wheelchair for hip', 2)], undefined, FRAMES);
    expect(c.key.key_type).toBe('boolean');
    expect(c.key.enum).toBeUndefined();
  });
  it('health words, places and dates fill no slot (zhou §7): a seat for pregnancy / diabetes, a trip to paris / on monday stay flags', () => {
    for (const [a, b, rest] of [['seat for pregnancy', 'seat for diabetes', 'seat please'], ['meal for ramadan', 'meal for passover', 'special meal'], ['a trip to paris', 'a trip to london', 'trip booking please'], ['a trip on monday', 'a trip on friday', 'trip planning']]) {
      const c = candidate([said(a as string, 3), said(b as string, 3), said(rest as string, 2)], undefined, FRAMES);
      expect(c.key.key_type).toBe('boolean');
    }
    // The control: the same frame with other values is a choice.
    expect(candidate([said('a business trip', 3), said('a leisure trip', 3), said('trip planning', 2)], undefined, FRAMES).key.enum).toEqual(expect.arrayContaining(['business', 'leisure']));
  });
  it('a verb\'s slot is named by the noun of its act ("payment"), never a noun that only starts like the verb ("payee")', () => {
    expect(candidate([said('pay by card', 3), said('pay on invoice', 3), said('the payee details', 2)], undefined, FRAMES).key.key_name).not.toBe('payee_type');
    // The control: with "payment" said, the slot is payment_type.
    expect(candidate([said('pay by card', 3), said('pay on invoice', 3), said('payment please', 2)], undefined, FRAMES).key.key_name).toBe('payment_type');
  });
  it('without frame_choices (the default) the same slot stays a yes/no need', () => {
    const c = candidate([said('settle the bill by cheque', 3), said('we settle by cheque', 2), said('settle in cash', 3), said('settlement in cash', 2)]);
    expect(c.key.key_type).toBe('boolean');
    expect(c.key.enum).toBeUndefined();
  });
  it('settle in cash / settle by cheque: the verb\'s slot after a preposition, never its direct object ("the bill")', () => {
    const c = candidate([said('settle the bill by cheque', 3), said('we settle by cheque', 2), said('settle in cash', 3), said('settlement in cash', 2)], undefined, FRAMES);
    expect(c.key.key_type).toBe('string');
    expect([...(c.key.enum ?? [])].sort()).toEqual(['cash', 'cheque']);
  });
  it('no alternatives: a receipt asked for in several words stays a yes/no need', () => {
    const c = candidate([said('please include a paper receipt', 4), said('a printed receipt in the box', 3), said('receipt with the order', 3)], undefined, FRAMES);
    expect(c.key.key_type).toBe('boolean');
  });
});
