import fc from 'fast-check';
import { faultManagementTemplate, flightBookingTemplate, photoRetouchTemplate } from '@parley/examples';
import type { SchemaTemplate } from '@parley/protocol';
import { beforeAll, describe, expect, it } from 'vitest';
import { glossTokens, inflectedGloss } from '../src/offline/glossary';
import type { Lexicon } from '../src/offline/lexicon';
import { loadLexicon, map } from './offline-fixture';
import { correct, spellingIndex } from '../src/offline/spelling';
import { tokenize } from '../src/offline/text';

// The rules that read more of the template (draft-zhou §6.1): an enum value's WordNet sense, a value WordNet defines
// by a degree, a party said group by group, inflected verbs of the glossary, slips of base forms, alarm names that
// say what happened. Sentences of their own, not the bench's. Reference: Thursday 2026-11-26 in Paris.
let lex: Lexicon;

beforeAll(async () => {
  lex = await loadLexicon();
}, 120_000);

describe('an enum value read through its WordNet sense', () => {
  it('evokes the nouns a relational adjective pertains to and its cluster, only for the value alone', () => {
    const values = ['none', 'vintage', 'cinematic', 'warm', 'cool'];
    const words = (v: string) => lex.senseWords(v, values).map((w) => w.word);
    expect(words('cinematic')).toContain('film');
    expect(words('cool')).toContain('cold');
    expect(words('warm')).toContain('hot');
    // The parallel colour senses: their definitions' own words, marked as definition words.
    expect(lex.senseWords('cool', values).find((w) => w.word === 'blues')?.gloss).toBe(true);
    expect(words('cool')).not.toContain('warm');
  });

  it('maps a word of the sense, not a noun qualifying another, not a definition word without a cue', async () => {
    expect((await map(photoRetouchTemplate, 'give my portrait an icy filter')).payload['filter_style']).toBe('cool');
    expect((await map(photoRetouchTemplate, 'grade it with a film style')).payload['filter_style']).toBe('cinematic');
    expect((await map(photoRetouchTemplate, 'add some film grain to the portrait')).payload['filter_style']).toBeUndefined();
    expect((await map(photoRetouchTemplate, 'my shirt looks too yellow in this portrait')).payload['filter_style']).toBeUndefined();
    expect((await map(photoRetouchTemplate, 'a blue filter on my portrait')).payload['filter_style']).toBe('cool');
  });
});

describe('a value defined by a degree of a quality', () => {
  it('reads the degree beside the key\'s cue, and leaves it under the threshold alone', async () => {
    const cheap = await map(flightBookingTemplate, 'Lisbon to Porto on Friday in the least expensive class');
    expect(cheap.payload['cabin_class']).toBe('economy');
    const dear = await map(flightBookingTemplate, 'Lisbon to Porto on Friday, the most expensive cabin you have');
    expect(dear.payload['cabin_class']).toBe('first');
    const fare = await map(flightBookingTemplate, 'the cheapest fare from Lisbon to Porto on Friday');
    expect(fare.payload['cabin_class']).toBeUndefined();
    expect(fare.other.join(' ')).toContain('cheapest');
  });
});

describe('a party said group by group', () => {
  it('adds the groups up and counts the speaker before "with"', async () => {
    expect((await map(flightBookingTemplate, 'three adults and two children from Oslo to Rome')).payload['passenger_count']).toBe(5);
    expect((await map(flightBookingTemplate, 'me and my three nephews, Oslo to Rome')).payload['passenger_count']).toBe(4);
    expect((await map(flightBookingTemplate, 'I travel with my sister and her two sons from Oslo to Rome')).payload['passenger_count']).toBe(4);
    // A pet is no passenger; a plural without a number is no count.
    expect((await map(flightBookingTemplate, 'one adult and a cat, Oslo to Rome')).payload['passenger_count']).toBe(1);
    expect((await map(flightBookingTemplate, 'two adults and my kids, Oslo to Rome')).payload['passenger_count']).toBe(2);
  });

  it('counts "for <n>" before the route', async () => {
    expect((await map(flightBookingTemplate, 'seats for 3 from Oslo to Rome on Friday')).payload['passenger_count']).toBe(3);
  });
});

describe('inflected verbs of the glossary', () => {
  it('reads an inflected form by its infinitive\'s stem, only for words English lacks, in another language', () => {
    expect(inflectedGloss('suaviza')).toEqual(['smooth']);
    expect(inflectedGloss('blanquean')).toEqual(['whiten']);
    expect(inflectedGloss('suav')).toBeUndefined();
    const out = glossTokens(tokenize('blanquea los dientes'), (w) => lex.known(w)).map((t) => t.lower);
    expect(out).toEqual(['whiten', 'los', 'teeth']);
    // An English utterance is left as said.
    expect(glossTokens(tokenize('suaviza things'), (w) => lex.known(w)).map((t) => t.lower)).toEqual(['suaviza', 'things']);
  });
});

describe('slips and alarm names', () => {
  it('corrects to a base form of a template word, two closest words of one family being no tie', () => {
    const index = spellingIndex(['whitening', 'whiten', 'white', 'whiter', 'blue']);
    expect(['whiten', 'white']).toContain(correct('whitn', index, lex));
    expect(['whiten', 'white']).toContain(correct('whitne', index, lex));
    // Two closest words of different families stay a tie: no correction.
    expect(correct('bluk', spellingIndex(['bulk', 'blue']), lex)).toBeUndefined();
  });

  it('names no alarm after an act ("a quick look", "run a full check")', async () => {
    const m = await map(faultManagementTemplate, 'INC-77 site 4410, take a quick look and run a full check');
    expect(m.payload['alarm_type']).toBeUndefined();
    expect(lex.isEvent('outage')).toBe(true);
    expect(lex.isEvent('look')).toBe(false);
  });
});

// Ordinary requests the rules above must not misread: sense words without a cue, negations, parties that are not travelling.
describe('the template-reading rules, as reviewed', () => {
  const count = async (text: string) => (await map(flightBookingTemplate, text)).payload['passenger_count'];

  it('counts a party\'s groups written in digits', async () => {
    expect(await count('me and 3 kids from Paris to Rome on Friday')).toBe(4);
    expect(await count('3 adults and 2 children from Paris to Rome on Friday')).toBe(5);
    expect(await count('one adult and 2 kids from Paris to Rome on Friday')).toBe(3);
    expect(await count('3 adults, 2 children Paris to Rome')).toBe(5);
    expect(await count('2 adults + 1 child Paris to Rome')).toBe(3);
    expect((await map(flightBookingTemplate, '3 adults, 2 children Paris to Rome')).other).toEqual([]);
  });

  it('adds the speaker only to a party travelling with them now', async () => {
    const met = await map(flightBookingTemplate, 'I\'m flying to Rome to meet with my mother and my two sisters');
    expect(met.payload['passenger_count']).toBeUndefined();
    expect(met.other.join(' ')).toContain('my two sisters');
    const spoke = await map(flightBookingTemplate, 'I spoke with my two brothers and my dad, Paris to Rome');
    expect(spoke.payload['passenger_count']).toBeUndefined();
    expect(spoke.other.join(' ')).toContain('my two brothers and my dad');
    expect(await count('last year I went with my wife and two kids; this time alone, Paris to Rome')).toBe(1);
    expect(await count('I\'m flying with my husband and our two kids from Paris to Rome')).toBe(4);
    const visited = await map(flightBookingTemplate, 'I visited my aunt and my two cousins last summer; now only me, Berlin to Vienna');
    expect(visited.payload['passenger_count']).toBe(1);
    expect(visited.other.join(' ')).toContain('my aunt and my two cousins');
  });

  it('does not join the subject of another clause to the party', async () => {
    const home = await map(flightBookingTemplate, 'me and my two kids, my husband stays home');
    expect(home.payload['passenger_count']).toBe(3);
    expect(home.other.join(' ')).toContain('husband stays home');
    expect(await count('two adults and one kid, my husband joins later')).toBe(3);
    expect(await count('two adults, one child, one infant Paris Rome')).toBe(4);
  });

  it('reads the head noun of a group and its number by WordNet\'s morphology', async () => {
    const dog = await map(flightBookingTemplate, 'two adults and a guide dog Paris to Rome');
    expect(dog.payload['passenger_count']).toBe(2);
    expect(dog.other.join(' ')).toContain('dog');
    const women = await map(flightBookingTemplate, 'two adults and the women Paris to Rome');
    expect(women.payload['passenger_count']).toBe(2);
    expect(women.other.join(' ')).toContain('women');
  });

  it('maps a word a value\'s sense evokes only beside a cue of the key', async () => {
    const leading = await map(faultManagementTemplate, 'the leading cause is a fibre cut');
    expect(leading.payload['severity']).toBeUndefined();
    expect(leading.payload['alarm_type']).not.toBe('cause');
    expect((await map(faultManagementTemplate, 'the star topology router failed')).payload['severity']).toBeUndefined();
    expect((await map(faultManagementTemplate, 'a secondary link went down')).payload['severity']).toBeUndefined();
    const sore = await map(photoRetouchTemplate, 'remove the cold sore on my lip');
    expect(sore.payload['filter_style']).toBeUndefined();
    expect(sore.other.join(' ')).toContain('remove');
    for (const text of ['a hot day at the beach', 'my hot chocolate', 'my spicy dish', 'the film of my wedding']) {
      const m = await map(photoRetouchTemplate, text);
      expect(m.payload['filter_style'], text).toBeUndefined();
    }
    expect((await map(photoRetouchTemplate, 'give my portrait an icy feel')).other.join(' ')).toContain('icy');
    // Beside a noun for a quality the word describes how the picture looks.
    expect((await map(photoRetouchTemplate, 'a chilly bluish tint please')).payload['filter_style']).toBe('cool');
  });

  it('sends no value a negation or "less" turns, and keeps the negating word in other', async () => {
    for (const text of ['not the cheapest cabin', 'never the cheapest class', 'no cheaper cabin', 'the cheapest cabin is not what I want,']) {
      const m = await map(flightBookingTemplate, `${text} from Paris to Rome`);
      expect(m.payload['cabin_class'], text).toBeUndefined();
      expect(m.other.join(' '), text).toMatch(/\b(not|never|no)\b/);
    }
    const hot = await map(photoRetouchTemplate, 'no hot tones');
    expect(hot.payload['filter_style']).toBeUndefined();
    expect(hot.other.join(' ')).toContain('no hot');
    const cold = await map(photoRetouchTemplate, 'make it less cold');
    expect(cold.payload['filter_style']).toBeUndefined();
    expect(cold.other.join(' ')).toContain('less cold');
    // A comparative is no superlative: first class is "the most expensive".
    const more = await map(flightBookingTemplate, 'a slightly more expensive class Paris to Rome');
    expect(more.payload['cabin_class']).toBeUndefined();
    expect(more.other.join(' ')).toContain('more expensive');
  });

  it('reads inflected forms of the glossary\'s verbs only', async () => {
    for (const w of ['schwach', 'schwarz', 'premio', 'fehlt', 'nutzen', 'kund']) expect(inflectedGloss(w), w).toBeUndefined();
    expect(inflectedGloss('suavizan')).toEqual(['smooth']);
    expect((await map(faultManagementTemplate, 'das Funksignal ist schwach an Standort 4001')).payload['severity']).toBeUndefined();
    const premio = await map(flightBookingTemplate, 'un vuelo de Madrid a Roma el viernes, es un premio para mi madre');
    expect(premio.payload['cabin_class']).toBeUndefined();
    expect(premio.other.join(' ')).toContain('premio');
  });

  it('names an alarm after a change or a failure to do, unless a light verb asks for it', async () => {
    const alarm = async (text: string) => (await map(faultManagementTemplate, text)).payload['alarm_type'];
    expect(await alarm('configuration error')).toBe('configuration_error');
    // A depletion is a change of magnitude: it names an alarm only with a thing the template talks about (power).
    expect(await alarm('power depletion')).toBe('power_depletion');
    expect(await alarm('battery depletion')).toBeUndefined();
    expect(await alarm('a quick look at site 4410')).toBeUndefined();
    expect(await alarm('site 4410: run a full diagnosis')).toBeUndefined();
    expect(lex.isEventOrAct('error')).toBe(true);
    expect(lex.isEventOrAct('test')).toBe(false);
  });

  it('plans a template with a thousand-value enum quickly', async () => {
    // A thousand adjectives of WordNet's index as one enum, as a server might send: every value is a sense to read.
    const { defaultDictDir } = await import('@parley/embeddings');
    const { readFileSync, readdirSync } = await import('node:fs');
    const dir = defaultDictDir();
    const index = readdirSync(dir).find((f) => /index\.adj/.test(f)) as string;
    const values = readFileSync(`${dir}/${index}`, 'utf8').split('\n').filter((l) => /^[a-z]+ a /.test(l)).map((l) => l.split(' ')[0] as string).slice(0, 1000);
    expect(values.length).toBe(1000);
    const template = {
      schema_id: 'big_v1',
      scenario: 'big',
      keys: [
        { key_name: 'tone', key_type: 'string', required: false, semantic_description: 'Tone of the thing.', enum: values },
        { key_name: 'other', key_type: 'string', required: false, semantic_description: 'Anything else.' },
      ],
    } as unknown as SchemaTemplate;
    const started = Date.now();
    const m = await map(template, 'a chilly blue tone please');
    expect(Date.now() - started).toBeLessThan(5000);
    expect(m.other.join(' ')).toContain('chilly');
  }, 60_000);
});

describe('hostile words on the new paths', () => {
  const JS_NAMES = ['constructor', '__proto__', 'prototype', 'toString', 'hasOwnProperty', 'valueOf'];
  const hostile = fc.oneof(
    fc.string({ maxLength: 60 }),
    fc.string({ unit: 'binary', maxLength: 60 }),
    fc.constantFrom(...JS_NAMES, '\u0000', '\ud800', '\udc00', 'suaviz\u0000a', 'blanque\ud800'),
    fc.tuple(fc.constantFrom('a', 'ar', 'suaviz', 'est', 'more ', 'and ', 'two kids and ', 'with '), fc.integer({ min: 1, max: 400 })).map(([s, n]) => s.repeat(n)),
  );

  it('inflectedGloss and the lexicon answer any word quickly, read no inherited property, throw nothing', () => {
    fc.assert(
      fc.property(hostile, (w) => {
        const g = inflectedGloss(w.toLowerCase());
        expect(g === undefined || Array.isArray(g)).toBe(true);
        for (const f of [() => lex.isEventOrAct(w), () => lex.isQuality(w), () => lex.isTravelVerb(w), () => lex.isPastVerbForm(w), () => lex.isFiniteVerbForm(w), () => lex.isPluralNoun(w), () => lex.adjectiveForms(w), () => lex.polarity(w, 'expensive'), () => lex.isGraded(w), () => lex.evokes(w, 'cold'), () => lex.hasNoun(w), () => lex.isPersonFirst(w), () => lex.compoundGlosses(w, 'class'), () => lex.senseWords(w, [w, 'cool'])]) f();
      }),
      { numRuns: 300, seed: 23 },
    );
    for (const name of JS_NAMES) {
      expect(inflectedGloss(name)).toBeUndefined();
      expect(lex.adjectiveForms(name).size).toBe(0);
      expect(lex.polarity(name, name)).toBe(0);
    }
  });

  it('a MiB word is answered at once', () => {
    const big = 'suaviz'.repeat(180_000);
    const started = Date.now();
    expect(inflectedGloss(big)).toBeUndefined();
    expect(lex.polarity(big, 'expensive')).toBe(0);
    expect(lex.isGraded(big)).toBe(false);
    expect(lex.adjectiveForms(big).size).toBe(0);
    expect(Date.now() - started).toBeLessThan(1000);
  });

  it('hostile party, degree and sense phrases map without pollution, every unmapped word reaching other', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(hostile, { minLength: 1, maxLength: 6 }), fc.constantFrom(flightBookingTemplate, photoRetouchTemplate), async (pieces, template) => {
        const text = `${pieces.join(' ')} two adults and one kid, the cheapest cabin, a chilly blue tone`.slice(-1900);
        const m = await map(template, text);
        expect(typeof m.payload).toBe('object');
        expect(Object.getOwnPropertyNames(Object.prototype)).not.toContain('polluted');
      }),
      { numRuns: 60, seed: 29 },
    );
  }, 120_000);
});

// Requests a too-wide negation or party rule once misread: each must keep the value it says.
describe('one narrow negation scope', () => {
  const cabin = async (text: string) => (await map(flightBookingTemplate, `${text}, Paris to Rome Friday`)).payload['cabin_class'];
  const filter = async (text: string) => (await map(photoRetouchTemplate, text)).payload['filter_style'];

  it('"at least" lessens nothing', async () => {
    expect(await cabin('at least business class')).toBe('business');
    expect(await cabin('at least premium economy')).toBe('premium_economy');
  });

  it('"is not" turns the value only right after it or its cue, and not when it judges ("not a problem", "not bad", "not too X")', async () => {
    expect(await cabin('economy if it is not too expensive')).toBe('economy');
    expect(await cabin('economy is not a problem')).toBe('economy');
    expect(await filter('a warm filter that is not too strong')).toBe('warm');
    expect(await filter('the vintage filter is not bad')).toBe('vintage');
    // Still a refusal: the value is not sent, and the words reach other.
    const refused = await map(flightBookingTemplate, "economy's not what I want, Paris to Rome Friday");
    expect(refused.payload['cabin_class']).toBeUndefined();
    expect(refused.other.join(' ')).toContain('economy');
  });

  it('a negation before a value crosses no other content word and claims no other key\'s words', async () => {
    expect(await cabin('I do not mind economy')).toBe('economy');
    expect(await filter('no grain just warm')).toBe('warm');
    expect(await cabin('no layover business class')).toBe('business');
    expect(await cabin('20% off voucher for business class')).toBe('business');
    const heading = await map(flightBookingTemplate, 'Oslo to Rome, heading off Friday in business class');
    expect(heading.payload['cabin_class']).toBe('business');
    expect(heading.payload['departure_date']).toBe('2026-11-27');
    // Still refusals.
    expect(await cabin('not economy')).toBeUndefined();
    expect(await cabin("I'd rather not fly economy")).toBeUndefined();
  });

  it('a contraction\'s span starts at its auxiliary', async () => {
    const economy = await map(flightBookingTemplate, "I don't want economy, Paris to Rome Friday");
    expect(economy.payload['cabin_class']).toBeUndefined();
    expect(economy.other).toContain("don't want economy");
    const vintage = await map(photoRetouchTemplate, "I don't like the vintage filter, make it warm");
    expect(vintage.payload['filter_style']).toBe('warm');
    expect(vintage.other).toContain("don't like the vintage");
  });
});

describe('parties: travel verbs, clauses and lists', () => {
  const count = async (text: string) => (await map(flightBookingTemplate, `${text}, Paris to Rome Friday`)).payload['passenger_count'];

  it('"alone" drops the speaker only in the speaker\'s clause and not before "with"', async () => {
    expect(await count("I'm flying alone with my 2 kids")).toBe(3);
    expect(await count("I'm flying with my 2 kids, they travel alone back")).toBe(3);
  });

  it('particles and nouns before "with" are no verb; a verb of going counts the speaker', async () => {
    expect(await count("I'm going on holiday with my 2 kids")).toBe(3);
    expect(await count("I'm flying out with my 2 kids")).toBe(3);
    expect(await count("I'm leaving with my 2 kids")).toBe(3);
    expect((await map(flightBookingTemplate, "I'm visiting Rome with my 2 kids, from Paris Friday")).payload['passenger_count']).toBe(3);
    expect((await map(flightBookingTemplate, 'a trip to Rome with my 2 kids, from Paris Friday')).payload['passenger_count']).toBe(2);
  });

  it('an Oxford comma joins the list', async () => {
    expect(await count('2 adults, 2 kids, and 1 infant')).toBe(5);
    expect(await count('my wife, 2 kids, and me')).toBe(4);
  });
});

describe('alarm names, and other in the order said', () => {
  it('an act another verb asks for is no alarm name; what went wrong under a verb still is', async () => {
    const window = await map(faultManagementTemplate, 'schedule a maintenance window on AGG-03');
    expect(window.payload['alarm_type']).toBeUndefined();
    expect(window.other.join(' ')).toContain('maintenance window');
    expect((await map(faultManagementTemplate, 'fix the configuration error on AGG-03')).payload['alarm_type']).toBe('configuration_error');
  });

  it('other keeps the user\'s order and joins neighbouring pieces', async () => {
    expect((await map(photoRetouchTemplate, 'remove the cold sore')).other).toEqual(['remove the cold sore']);
    // "chilly" and "blue" agree on cool (two words evoking one value say it, offline-enum-meanings.test.ts); what is left
    // keeps its order.
    const chilly = await map(photoRetouchTemplate, 'make it feel chilly and blue');
    expect(chilly.payload['filter_style']).toBe('cool');
    expect(chilly.other).toEqual(['feel', 'blue']);
    expect((await map(flightBookingTemplate, "business wouldn't be a problem, Paris to Rome Friday")).other).toEqual(["wouldn't be a problem"]);
  });
});

describe('an alarm named by a change of magnitude', () => {
  it('a decrease or an increase is something that happened ("loss", a decline); a plant, a power or a hop is not', () => {
    expect(lex.isEvent('loss')).toBe(true);
    for (const w of ['hop', 'power', 'microwave', 'router']) expect(lex.isEvent(w), w).toBe(false);
  });

  it('names the alarm after it, in snake_case, when the thing that changed is one the template talks about', async () => {
    const m = await map(faultManagementTemplate, 'INC-20261126-0031: power loss on router PE-9 since 10:00, major');
    expect(m.payload['alarm_type']).toBe('power_loss');
    // The template never speaks of frames: the change reaches other rather than naming an alarm.
    const frame = await map(faultManagementTemplate, 'INC-20261126-0031: frame loss on router PE-9 since 10:00, major');
    expect(frame.payload['alarm_type']).toBeUndefined();
    expect(frame.other).toEqual(['frame loss']);
  });
});
