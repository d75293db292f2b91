/**
 * The pure helpers behind draft-zhou §6.2.2 induction of structured needs and one key per intent across clusters:
 * identifier patterns, hyphenated words, alternatives read off noun phrases, spelling variants of a value, the
 * object of a removal, and the sibling tests the evolver applies before adding a key. Examples are made up here.
 */
import { describe, expect, it } from 'vitest';
import { choiceLike, hyphenParts, idPattern, identifiers, oneSlot, profileCosine, properNouns, sameListShape, samePatternIntent, wordProfile } from '../src/index';
import { foldVariants, paradigmModifiers } from '../src/kinds';
import { editDistance } from '../src/lexicon';
import type { KeyDefinition } from '@parley/protocol';

const key = (key_name: string, extra: Partial<KeyDefinition> = {}): KeyDefinition => ({ key_name, key_type: 'string', required: false, default_value: null, semantic_description: 'x', ...extra });
const seq = (...ws: string[]): { v: string; i: number }[] => ws.map((v, i) => ({ v, i }));

describe('idPattern', () => {
  it('keeps a shared letter prefix, generalises the rest by class and length', () => {
    expect(idPattern(['LOT-4471', 'LOT-0192'])).toBe('^LOT-[0-9]{4}$');
    expect(idPattern(['AB-12X', 'CD-9QZ'])).toBe('^[A-Z]{2}-[A-Z0-9]{3}$');
    expect(idPattern(['R-1', 'R-100'])).toBe('^R-[0-9]{1,3}$');
  });
  it('is null for identifiers of different shapes or none', () => {
    expect(idPattern(['LOT-4471', 'LOT_44_71'])).toBeNull();
    expect(idPattern([])).toBeNull();
  });
});

describe('identifiers and sameListShape', () => {
  const s = (text: string) => ({ text, count: 2 });
  it('reads identifiers as the inducer does, an underscore lost to sanitising included', () => {
    expect(identifiers('boxes BX-1201 and BX-1207')).toEqual(['BX-1201', 'BX-1207']);
    expect(identifiers('scan PG_1042, PG_1043')).toEqual(['PG-1042', 'PG-1043']);
    // Capitals before a number are words, not a code: a shouted count, a currency, a PIN said aloud.
    expect(identifiers('I NEED 300 COPIES, budget USD 500, EUR 1200, PIN 1234 BY 2027')).toEqual([]);
    // A date shape inside an identifier is part of it.
    expect(identifiers('tickets INC-2024-11-05 and INC-2024-11-06')).toEqual(['INC-2024-11-05', 'INC-2024-11-06']);
    expect(identifiers('no codes here, 14 November')).toEqual([]);
  });
  it('two clusters listing identifiers of one shape are one list; other shapes, or no list, are not', () => {
    expect(sameListShape([s('boxes BX-1201 and BX-1207')], [s('the boxes BX-0033, BX-0040')])).toBe(true);
    // One shape, other letters: bag tags and bookings, sites and tickets are two lists.
    expect(sameListShape([s('boxes BX-1201 and BX-1207')], [s('crates CR-0033, CR-0040')])).toBe(false);
    expect(sameListShape([s('sites NB-0231, NB-0232')], [s('tickets TK-0001 and TK-0007')])).toBe(false);
    expect(sameListShape([s('boxes BX-1201 and BX-1207')], [s('orders ORD-77A1, ORD-77B2')])).toBe(false);
    expect(sameListShape([s('box BX-1201')], [s('crates CR-0033, CR-0040')])).toBe(false);
  });
});

describe('hyphenParts', () => {
  it('joins a hyphenated word the lexicon knows, else splits it', () => {
    expect(hyphenParts('check-in', (w) => w === 'checkin')).toEqual(['checkin']);
    expect(hyphenParts('snow-white', () => false)).toEqual(['snow', 'white']);
    expect(hyphenParts('A1-B2', () => true)).toEqual([]);
  });
});

describe('properNouns', () => {
  it('words capitalised inside a sentence and never lower case are proper nouns; a sentence start says nothing', () => {
    expect([...properNouns(['two hours to change in Oslo', 'Trains to Bergen. Please hurry', 'my Kindle died', 'the kindle is fine'])].sort()).toEqual(['bergen', 'oslo']);
    expect(properNouns([]).size).toBe(0);
  });
});

describe('paradigmModifiers', () => {
  const frag = (clients: string[], ...ws: string[]) => ({ voters: new Map(clients.map((c) => [c, 1])), seq: seq(...ws) });
  const noun = (w: string): boolean => ['desk', 'lamp'].includes(w);
  it('modifiers of one noun from distinct clients are alternatives; the noun is their head', () => {
    const p = paradigmModifiers([frag(['a', 'b'], 'oak', 'desk'), frag(['c', 'd'], 'pine', 'desk'), frag(['e', 'f'], 'walnut', 'desk')], noun, () => true, 2, 0.5);
    expect([...p.modifiers].sort()).toEqual(['oak', 'pine', 'walnut']);
    expect([...p.heads]).toEqual(['desk']);
  });
  it('modifiers the same clients say together are phrasings of one need, not alternatives', () => {
    const p = paradigmModifiers([frag(['a', 'b'], 'desk', 'lamp'), frag(['a', 'b'], 'bright', 'lamp')], noun, () => true, 2, 0.5);
    expect(p.modifiers.size).toBe(0);
  });
  it('two words of one value (sameValue: aluminium is a metal) share clients without ceasing to be alternatives of another value', () => {
    const fs = [frag(['a', 'b', 'c'], 'aluminium', 'desk'), frag(['a', 'b'], 'metal', 'desk'), frag(['d', 'e'], 'oak', 'desk')];
    const same = (x: string, y: string): boolean => [x, y].sort().join() === 'aluminium,metal';
    expect([...paradigmModifiers(fs, noun, () => true, 2, 0.5, same).modifiers].sort()).toEqual(['aluminium', 'metal', 'oak']);
    // Without it the two wordings overlap and fall, and one value is left: no alternatives.
    expect(paradigmModifiers(fs, noun, () => true, 2, 0.5).modifiers.size).toBe(0);
    // Two other values the same clients say stay phrasings, whatever sameValue says of other pairs.
    expect(paradigmModifiers([frag(['a', 'b'], 'pine', 'desk'), frag(['a', 'b'], 'oak', 'desk')], noun, () => true, 2, 0.5, same).modifiers.size).toBe(0);
  });
});

describe('foldVariants', () => {
  it('folds values one edit apart into the one more clients say', () => {
    const clients = new Map([['grey', 5], ['gray', 2], ['teal', 3]]);
    const out = foldVariants(['gray', 'grey', 'teal'], (w) => clients.get(w) ?? 0, editDistance);
    expect([...out]).toEqual([['grey', ['gray', 'grey']], ['teal', ['teal']]]);
  });
  it('leaves short values alone', () => {
    expect([...foldVariants(['red', 'rad'], () => 1, editDistance).keys()]).toEqual(['red', 'rad']);
  });
  it('keeps two values apart that the caller says are different words, one edit apart or not', () => {
    const words = new Set(['gold', 'bold', 'mild', 'wild']);
    const spellings = (a: string, b: string): boolean => !words.has(a) || !words.has(b);
    const out = foldVariants(['gold', 'bold', 'mild', 'milld'], (w) => (w === 'milld' ? 1 : 3), editDistance, spellings);
    expect([...out]).toEqual([['gold', ['gold']], ['bold', ['bold']], ['mild', ['mild', 'milld']]]);
  });
});

describe('sibling tests (one key per intent across clusters)', () => {
  it('word profiles: alike clusters have a high cosine, unrelated ones zero', () => {
    const a = wordProfile([{ text: 'oak desk please', count: 3 }, { text: 'a pine desk', count: 2 }]);
    const b = wordProfile([{ text: 'walnut desk', count: 1, clients: ['x', 'y'] }]);
    const c = wordProfile([{ text: 'late check out', count: 4 }]);
    expect(profileCosine(a, b)).toBeGreaterThan(0.5);
    expect(profileCosine(a, c)).toBe(0);
    expect(profileCosine(a, new Map())).toBe(0);
  });
  it('the same identifier pattern is one intent; clock patterns only under the same last name word', () => {
    expect(samePatternIntent(key('locker_number', { pattern: '^LK-[0-9]{3}$' }), key('locker_id', { pattern: '^LK-[0-9]{3}$' }))).toBe(true);
    const clock = '^([01][0-9]|2[0-3]):[0-5][0-9]$';
    expect(samePatternIntent(key('pickup_time', { pattern: clock }), key('shuttle_time', { pattern: clock }))).toBe(true);
    expect(samePatternIntent(key('pickup_time', { pattern: clock }), key('arrive_by', { pattern: clock }))).toBe(false);
    expect(samePatternIntent(key('a'), key('b'))).toBe(false);
  });
  it('a yes/no key and a choice fill one slot when the joint choice holds a word of each', () => {
    const yes = key('oak_desk', { key_type: 'boolean' });
    const choice = key('desk_preference', { enum: ['pine', 'walnut'] });
    expect(choiceLike(yes) && choiceLike(choice)).toBe(true);
    expect(oneSlot(key('desk_preference', { enum: ['oak', 'pine', 'walnut'] }), yes, choice)).toBe(true);
    expect(oneSlot(key('desk_preference', { enum: ['pine', 'walnut'] }), yes, choice)).toBe(false);
    expect(oneSlot(key('needs_desk', { key_type: 'boolean' }), yes, choice)).toBe(false);
  });
});
