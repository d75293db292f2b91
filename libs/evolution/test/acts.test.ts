// A yes/no need said as an act on an object is named by the act and the object (draft-zhou §6.2.2 naming; acts.ts):
// `<object>_<act noun>` when the lexicon derives a noun of the act from the verb, else `<verb>_<object>`. Phrasings
// are made up (no bench stream says them); the words are a table lexicon, as WordNet would read them.
import { describe, expect, it } from 'vitest';
import { KEY_NAME_PATTERN } from '@parley/protocol';
import { DEFAULT_INDUCTION_OPTIONS, createTableLexicon, induceKey, type InductionSample, type Lexicon } from '../src/index';
import { actNounOf, sayAct, type ActFragment } from '../src/acts';
import { namedByAct } from '../src/induce';
import { oneSlot } from '../src/sibling';

const lexicon: Lexicon = createTableLexicon({
  sharpen: { pos: 'v', derived: ['sharpening', 'sharpener'], lexFile: 'verb.change' },
  sharpening: { pos: 'n', lexFile: 'noun.act' },
  sharpener: { pos: 'n' },
  polish: { pos: 'v', derived: ['polishing', 'polisher'] },
  polishing: { pos: 'n', lexFile: 'noun.act' },
  polisher: { pos: 'n' },
  unscrew: { pos: 'v' },
  remove: { pos: 'v', derived: ['remotion', 'remover', 'removal'] },
  removal: { pos: 'n', lexFile: 'noun.act' },
  send: { pos: 'v', derived: ['sending'], lexFile: 'verb.motion' },
  sending: { pos: 'n', lexFile: 'noun.act' },
  technician: { pos: 'n' },
  press: { pos: 'v', derived: ['press', 'pressure', 'pressing'], lexFile: 'verb.contact' },
  pressure: { pos: 'n', lexFile: 'noun.phenomenon' },
  pressing: { pos: 'n', lexFile: 'noun.act' },
  shirt: { pos: 'n' },
  call: { pos: 'v', derived: ['call'] },
  tomorrow: { pos: 'n', lexFile: 'noun.time' },
  blade: { pos: 'n' },
  buckle: { pos: 'n' },
  clasp: { pos: 'n' },
  boot: { pos: 'n' },
  lid: { pos: 'n' },
  jar: { pos: 'n' },
  sticker: { pos: 'n' },
  wheelchair: { pos: 'n' },
  gate: { pos: 'n' },
  dull: { pos: 'a' },
  wait: { pos: 'v' },
  go: { pos: 'v', derived: ['going'] },
  going: { pos: 'n' },
  lounge: { pos: 'n' },
  cottage: { pos: 'n' },
});

let n = 0;
/** One phrasing said by `clients` distinct clients. */
const said = (text: string, clients: number): InductionSample => ({ text, count: clients, clients: Array.from({ length: clients }, () => `c${n++}`) });
const name = (samples: InductionSample[]): string => {
  const r = induceKey(samples, DEFAULT_INDUCTION_OPTIONS, { lexicon });
  if (!r.ok) throw new Error(r.reason);
  expect(r.candidate.key.key_type).toBe('boolean');
  return r.candidate.key.key_name;
};

describe('acts: a yes/no need named by its act and object', () => {
  it('names the act by the noun derived from its verb, whether said as the verb or as that noun', () => {
    expect(name([said('sharpen the blades', 3), said('please sharpen my blades', 2), said('blade sharpening', 2)])).toBe('blade_sharpening');
  });

  it('names a verb with no derived noun of the act <verb>_<object>', () => {
    expect(name([said('unscrew the lids', 3), said('please unscrew the lid', 2), said('unscrew lids of the jars', 2)])).toBe('unscrew_lid');
  });

  it('takes the object the verb governs, not the commonest noun; of two objects the one the cluster says most', () => {
    // "boot" is in every fragment, but the act is done to the buckles (said by 3 + 2) more than to the clasps (2).
    expect(name([said('polish the buckles on my boots', 3), said('polish the clasps on my boots', 2), said('the buckles on the boots are dull', 2)])).toBe('buckle_polishing');
  });

  it('keeps the name for refusals ("dont remove the sticker") and maps them to false', () => {
    const r = induceKey([said('remove the sticker', 3), said('please remove the stickers', 2), said('dont remove the sticker', 2)], DEFAULT_INDUCTION_OPTIONS, { lexicon });
    if (!r.ok) throw new Error(r.reason);
    expect(r.candidate.key.key_name).toBe('sticker_removal');
    expect(r.candidate.values.map((v) => v.value)).toEqual(expect.arrayContaining([true, false]));
  });

  it('keeps needs_<head> for a need said as possession', () => {
    expect(name([said('I need a wheelchair', 3), said('wheelchair at the gate please', 2), said('need wheelchair', 2)])).toBe('needs_wheelchair');
  });

  it('reads no act from a verb that is no imperative ("we are going") or has no direct object ("wait in the lounge")', () => {
    expect(name([said('I want to wait in the lounge', 3), said('lounge please', 2), said('the lounge before boarding', 2)])).toBe('needs_lounge');
    expect(name([said('we are going to the cottage', 3), said('cottage weekend', 2), said('the cottage by the lake', 2)])).toBe('needs_cottage');
    // A counted object is a number asked for, no act on one thing.
    const counted = induceKey([said('sharpen 3 blades', 3), said('sharpen 2 blades please', 2), said('blades', 2)], DEFAULT_INDUCTION_OPTIONS, { lexicon });
    expect(counted.ok).toBe(true);
    if (counted.ok) expect(counted.candidate.key.key_name).toBe('blade_count');
  });

  it('reads no act said by less than half of the fragment mass (a removal: two fifths)', () => {
    const f = (text: string, weight: number): ActFragment => ({ weight, removal: false, seq: text.split(' ').map((v, i) => ({ v, i, pos: lexicon.pos(v).v > 0 ? 'v' : 'n', clause: 0, opens: i === 0 })) });
    const words = { lex: lexicon, isRemoval: () => false, isNoun: (w: string) => lexicon.pos(w).n > 0, isVerb: (w: string) => lexicon.pos(w).v > 0, isAdjective: () => false, said: () => 1 };
    expect(sayAct([f('sharpen blade', 1), f('blade', 2)], 3, words)).toBeNull();
    expect(sayAct([f('sharpen blade', 2), f('blade', 3)], 5, words)).toBeNull();
    expect(sayAct([f('sharpen blade', 2), f('blade', 2)], 4, words)).toEqual({ verb: 'sharpen', actNoun: 'sharpening', object: ['blade'] });
    const removal = { ...words, isRemoval: (w: string) => w === 'remove' };
    expect(sayAct([f('remove blade', 2), f('blade', 3)], 5, removal)).toEqual({ verb: 'remove', actNoun: 'removal', object: ['blade'] });
  });

  it('takes the noun of the act from noun.act, never an agent noun, another sense, nor the verb itself', () => {
    expect(actNounOf(lexicon, 'sharpen')).toBe('sharpening');
    expect(actNounOf(lexicon, 'unscrew')).toBeNull();
    expect(actNounOf(createTableLexicon({ grind: { pos: 'v', derived: ['grinder'] }, grinder: { pos: 'n' } }), 'grind')).toBeNull();
    // press → pressing (noun.act), not pressure (noun.phenomenon) nor the noun "press".
    expect(actNounOf(lexicon, 'press')).toBe('pressing');
    // A verb of motion moves its object: "send a technician" is no sending done to the technician.
    expect(actNounOf(lexicon, 'send')).toBeNull();
  });

  it('names made-up acts by the act on the object: shirt_pressing, send_technician', () => {
    expect(name([said('press my shirts', 3), said('please press the shirts', 2), said('press the shirts today', 2)])).toBe('shirt_pressing');
    expect(name([said('please send a technician', 3), said('send a technician', 2), said('can you send a technician', 2)])).toBe('send_technician');
  });

  it('takes no noun of time for the object (call back tomorrow)', () => {
    const r = induceKey([said('call me back', 3), said('please call me back', 2), said('call back tomorrow', 2)], DEFAULT_INDUCTION_OPTIONS, { lexicon });
    expect(r.ok).toBe(true);
    if (r.ok) expect(r.candidate.key.key_name).toBe('needs_call');
    if (r.ok) expect(r.candidate.act).toBeUndefined();
  });

  it('reads the act noun said alone as no act, and a verb before a determiner as the imperative the cluster read as a noun', () => {
    const lex = createTableLexicon({ tidy: { pos: 'v', derived: ['tidying'], lexFile: 'verb.change' }, tidying: { pos: 'n', lexFile: 'noun.act' }, desk: { pos: 'n' }, water: { pos: 'v', derived: ['watering'], lexFile: 'verb.change' }, watering: { pos: 'n', lexFile: 'noun.act' }, plant: { pos: 'n' } });
    const words = { lex, isRemoval: () => false, isNoun: (w: string) => lex.pos(w).n > 0, isVerb: (w: string) => lex.pos(w).v > 0, isAdjective: () => false, said: () => 1 };
    const f = (raws: string[], weight: number, pos: (v: string) => 'n' | 'v' = (v) => (lex.pos(v).v > 0 ? 'v' : 'n')): ActFragment => ({ weight, removal: false, raws, seq: raws.filter((v) => v !== 'the').map((v) => ({ v, i: raws.indexOf(v), pos: pos(v), clause: 0, opens: raws.indexOf(v) === 0 })) });
    // "tidying" alone says no act on an object: the act is said by 2 of 7, not half.
    expect(sayAct([f(['tidy', 'desk'], 2), f(['tidying'], 2), f(['desk'], 3)], 7, words)).toBeNull();
    // The cluster reads "water" as a noun; before "the" it is the imperative governing "plants".
    const noun = (): 'n' => 'n';
    expect(sayAct([f(['water', 'the', 'plant'], 3, noun), f(['plant'], 1)], 4, words)).toEqual({ verb: 'water', actNoun: 'watering', object: ['plant'] });
  });

  it('takes the verb’s own noun when it is first in noun.act (repair → repair, not reparation)', () => {
    const own = { ...lexicon, lexFile: () => 'verb.change', derived: () => ['mend', 'mendery'] };
    expect(actNounOf(own, 'mend')).toBe('mend');
  });

  it('reads no particle as the object (call me back, call back the plumber)', () => {
    const lex = createTableLexicon({ call: { pos: 'v' }, plumber: { pos: 'n' }, back: { pos: 'n' } });
    const words = { lex, isRemoval: () => false, isNoun: (w: string) => lex.pos(w).n > 0, isVerb: (w: string) => lex.pos(w).v > 0, isAdjective: () => false, said: () => 1, isParticle: (w: string) => w === 'back' };
    const f = (raws: string[], weight: number): ActFragment => ({ weight, removal: false, raws, seq: raws.filter((v) => v !== 'me' && v !== 'the').map((v) => ({ v, i: raws.indexOf(v), pos: lex.pos(v).v > 0 ? 'v' : 'n', clause: 0, opens: raws.indexOf(v) === 0 })) });
    expect(sayAct([f(['call', 'me', 'back'], 3)], 3, words)).toBeNull();
    expect(sayAct([f(['call', 'back', 'the', 'plumber'], 3)], 3, words)).toEqual({ verb: 'call', actNoun: null, object: ['plumber'] });
  });

  it('stays bounded and well-formed on hostile text (constructor, __proto__, NUL, lone surrogates, a MiB, repetition)', () => {
    const hostile = ['constructor', '__proto__', 'toString', 'a\u0000b', '\ud800\udc00\ud800', 'x'.repeat(1 << 20), 'remove the '.repeat(100_000), 'sharpen '.repeat(100_000)];
    for (const h of hostile) {
      const t0 = performance.now();
      const r = induceKey([said(`remove the ${h}`, 3), said(`sharpen the ${h} blades`, 2), said(`${h} removal`, 2)], DEFAULT_INDUCTION_OPTIONS, { lexicon });
      // ≤ 50 ms per MiB of text, with room for a loaded CI machine.
      expect(performance.now() - t0).toBeLessThan(3000);
      // Induction may refuse hostile text; a name it gives is well-formed.
      if (r.ok) expect(r.candidate.key.key_name).toMatch(KEY_NAME_PATTERN);
    }
    const words = { lex: lexicon, isRemoval: (w: string) => w === 'remove', isNoun: () => true, isVerb: () => false, isAdjective: () => false, said: () => 1 };
    const seq = ['remove', 'constructor', '__proto__'].map((v, i) => ({ v, i, pos: null, clause: 0, opens: i === 0 }));
    expect(sayAct([{ weight: 1, removal: true, seq }], 1, words)).toEqual({ verb: 'remove', actNoun: 'removal', object: ['__proto__'] });
  });
});

describe('acts: keys named by an act fill no choice slot', () => {
  it('records which keys the act named (Candidate.act), re-derived from the samples', () => {
    const lids = [said('unscrew the red lids', 3), said('please unscrew the red lid', 2), said('unscrew red lids of the jars', 2)];
    const r = induceKey(lids, DEFAULT_INDUCTION_OPTIONS, { lexicon });
    expect(r.ok && r.candidate.act).toEqual({ verb: 'unscrew', noun: null, object: ['red', 'lid'] });
    const key = { key_name: 'unscrew_red_lid', key_type: 'boolean' as const, required: false, semantic_description: 'x' };
    expect(namedByAct(key, lids, lexicon)).toBe(true);
    const joint = { key_name: 'background_color', key_type: 'string' as const, required: false, semantic_description: 'x', enum: ['red', 'gray'] };
    const colour = { ...joint, enum: ['gray'] };
    expect(oneSlot(joint, key, colour, (k) => namedByAct(k, lids, lexicon))).toBe(false);
    // A flag no act named still fills its slot, whatever its last word's ending (express_shipping, free_parking).
    const shipping = [said('express shipping', 3), said('express shipping please', 2), said('i want express shipping', 2)];
    const flag = { ...key, key_name: 'express_shipping' };
    expect(namedByAct(flag, shipping, lexicon)).toBe(false);
    const speed = { key_name: 'shipping_speed', key_type: 'string' as const, required: false, semantic_description: 'x', enum: ['express', 'standard', 'overnight'] };
    expect(oneSlot(speed, flag, { ...speed, enum: ['standard', 'overnight'] }, (k) => namedByAct(k, shipping, lexicon))).toBe(true);
    expect(oneSlot({ ...speed, key_name: 'parking_type', enum: ['free', 'valet'] }, { ...flag, key_name: 'free_parking' }, { ...flag, key_name: 'valet_parking' })).toBe(true);
  });

  it('keeps an act key out of a choice its object is one value of (red_eye_correction is no background colour)', () => {
    const joint = { key_name: 'background_color', key_type: 'string' as const, required: false, semantic_description: 'x', enum: ['red', 'gray', 'black'] };
    const act = { key_name: 'red_eye_correction', key_type: 'boolean' as const, required: false, semantic_description: 'x' };
    const colour = { key_name: 'background_color', key_type: 'string' as const, required: false, semantic_description: 'x', enum: ['gray', 'black'] };
    expect(oneSlot(joint, act, colour, (k) => k === act)).toBe(false);
    // A possession flag still joins the choice it is one value of.
    expect(oneSlot({ ...joint, enum: ['government', 'enterprise'] }, { ...act, key_name: 'needs_government' }, { ...colour, enum: ['enterprise'] })).toBe(true);
  });
});

describe('acts: a comparative mended to the verb says the act; an inflected verb does not', () => {
  const lex = createTableLexicon({ polish: { pos: 'v', derived: ['polishing'] }, polishing: { pos: 'n', lexFile: 'noun.act' }, floor: { pos: 'n' }, shine: { pos: 'v' } });
  const induce = (samples: InductionSample[]): string => {
    const r = induceKey(samples, DEFAULT_INDUCTION_OPTIONS, { lexicon: lex });
    if (!r.ok) throw new Error(r.reason);
    return r.candidate.key.key_name;
  };
  it('reads "polishing the floors" as no imperative, "polish the floors" and "floor polishing" as the act', () => {
    expect(induce([said('polish the floors', 3), said('floor polishing', 2), said('shiny floors', 2)])).toBe('floor_polishing');
    expect(induce([said('we are polishing the floors', 3), said('floors', 2), said('the floors again', 2)])).toBe('needs_floor');
  });
});
