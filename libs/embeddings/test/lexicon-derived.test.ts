// The WordNet lexicon's derivational links (`+`), read by the rule inducer to name a yes/no need by its act
// (draft-zhou §6.2.2; libs/evolution acts.ts: remove → removal, whiten → whitening).
import { beforeAll, describe, expect, it } from 'vitest';
import { loadWordNetLexicon } from '../src/index';
import { DEFAULT_INDUCTION_OPTIONS, induceKey, type InductionSample, type Lexicon } from '@parley/evolution';

let lex: Lexicon;
beforeAll(async () => {
  lex = await loadWordNetLexicon({ wordVectors: false });
}, 60_000);

describe('WordNet lexicon: derived', () => {
  it('reads the nouns derived from a verb’s most frequent sense, the word’s own links only', () => {
    expect(lex.derived?.('whiten', 'v', 'n')).toContain('whitening');
    expect(lex.derived?.('remove', 'v', 'n')).toEqual(expect.arrayContaining(['removal', 'remover']));
    expect(lex.derived?.('correct', 'v', 'n')).toContain('correction');
    // "straighten" links no noun of its act in WordNet 3.1: the inducer names it straighten_<object>.
    expect(lex.derived?.('straighten', 'v', 'n') ?? []).not.toContain('straightening');
  });

  it('reads inflected forms through their lemma, and nothing for unknown or hostile words', () => {
    expect(lex.derived?.('whitened', 'v', 'n')).toContain('whitening');
    for (const w of ['constructor', '__proto__', 'a\u0000b', '\ud800', 'x'.repeat(1 << 20), 'zzqxv']) expect(lex.derived?.(w, 'v', 'n')).toEqual([]);
  });
});

describe('WordNet lexicon: nouns of an act and lexicographer files', () => {
  it('keeps noun.act targets of the most frequent sense, the most frequent first', () => {
    expect(lex.derived?.('press', 'v', 'n', 'noun.act')[0]).toBe('pressing');
    expect(lex.derived?.('remove', 'v', 'n', 'noun.act')[0]).toBe('removal');
    // "deliver"'s most frequent sense is delivering a speech: its delivery is a communication, no noun.act.
    expect(lex.derived?.('deliver', 'v', 'n', 'noun.act')).not.toContain('deliverance');
    expect(lex.lexFile?.('tomorrow', 'n')).toBe('noun.time');
    expect(lex.lexFile?.('send', 'v')).toBe('verb.motion');
    // "constructor" is a WordNet noun (a person who builds); the others are none.
    expect(lex.lexFile?.('constructor', 'n')).toBe('noun.person');
    for (const w of ['__proto__', 'a\u0000b', '\ud800', 'x'.repeat(1 << 20)]) expect(lex.lexFile?.(w, 'n') ?? null).toBeNull();
  });
});

let n = 0;
const said = (text: string, clients: number): InductionSample => ({ text, count: clients, clients: Array.from({ length: clients }, () => `c${n++}`) });
const named = (samples: InductionSample[]): string => {
  const r = induceKey(samples, DEFAULT_INDUCTION_OPTIONS, { lexicon: lex });
  if (!r.ok) throw new Error(r.reason);
  return r.candidate.key.key_name;
};

// Made-up phrasings (draft-zhou §6.2.2 naming; libs/evolution acts.ts), read with WordNet.
describe('rule inducer on WordNet: a yes/no need named by its act on its object', () => {
  it('names the act from its verb’s most frequent sense, or <verb>_<object>', () => {
    expect(named([said('deliver the package', 3), said('please deliver the package today', 2), said('package delivery', 2)])).toBe('deliver_package');
    expect(named([said('press my shirts', 3), said('please press the shirts', 2), said('shirts pressed', 2)])).toBe('shirt_pressing');
    expect(named([said('please send a technician', 3), said('send a technician today', 2), said('can you send a technician', 2)])).toBe('send_technician');
    expect(named([said('keep the original', 3), said('please keep the original file', 2), said('keep the originals too', 2)])).toBe('keep_original');
    expect(named([s('remove the logo'), said('please remove the logo', 2), said('remove logo', 2)])).toBe('logo_removal');
    expect(named([said('whiten my teeth', 3), said('please whiten teeth', 2), said('teeth whitening', 2)])).toBe('tooth_whitening');
  });

  it('reads the verb of a verb-object pair as the act, never its object noun', () => {
    expect(named([said('water the plants', 3), said('please water my plants', 2), said('plant watering', 2)])).toBe('plant_watering');
  });

  it('names the act by the verb’s own noun when WordNet files it as the act (repair → screen_repair)', () => {
    expect(named([said('repair the screen', 3), said('please repair the screen', 2), said('screen repair', 2)])).toBe('screen_repair');
  });

  it('takes no noun of time for the object, before or after the act', () => {
    expect(named([said('paint the walls on sunday', 3), said('please paint the walls on sunday', 2), said('sunday painting', 2)])).toBe('wall_painting');
    // Nor the head of needs_<head>: the need's verb names it.
    expect(named([said('call me back', 3), said('please call me back', 2), said('call back tomorrow', 2)])).toBe('needs_call');
    expect(named([said('clean the room in the morning', 3), said('please clean the room in the morning', 2), said('morning cleaning', 2)])).toBe('room_removal');
  });

  it('reads no particle nor pronoun as the object (call me back)', () => {
    const r = induceKey([said('call me back', 3), said('please call me back', 2), said('call me back later', 2)], DEFAULT_INDUCTION_OPTIONS, { lexicon: lex });
    expect(r.ok).toBe(true);
    if (r.ok) expect(r.candidate.act).toBeUndefined();
    const back = induceKey([said('call back the plumber', 3), said('please call back the plumber', 2), said('call back plumber', 2)], DEFAULT_INDUCTION_OPTIONS, { lexicon: lex });
    expect(back.ok && back.candidate.act).toEqual({ verb: 'call', noun: null, object: ['plumber'] });
  });
});

function s(text: string): InductionSample {
  return said(text, 3);
}
