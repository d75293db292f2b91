import fc from 'fast-check';
import { ParleyError, type SchemaTemplate } from '@parley/protocol';
import { faultManagementTemplate, flightBookingTemplate, photoRetouchTemplate } from '@parley/examples';
import { beforeAll, describe, expect, it } from 'vitest';
import { fastestMs } from '@parley/testkit';
import { createParleyClient, MAX_UTTERANCE_CHARS, prepareUtterance } from '../src/index';
import { createOfflineMapper } from '../src/offline/index';
import { examplePairs } from '../src/offline/examples';
import { safePattern } from '../src/offline/plan';
import { glossTokens, GLOSSES, MAX_GLOSSED } from '../src/offline/glossary';
import { splitCjk } from '../src/offline/languages';
import { tokenize } from '../src/offline/text';

// Hostile text on every path the words take: the utterance, and a template's descriptions and patterns.
const client = createParleyClient('http://127.0.0.1:9', { mapper: createOfflineMapper() });
const TEMPLATES: SchemaTemplate[] = [flightBookingTemplate, photoRetouchTemplate, faultManagementTemplate];
const REF = { today: '2026-11-26', timezone: 'Europe/Paris' };

const JS_NAMES = ['constructor', '__proto__', 'prototype', 'toString', 'hasOwnProperty', 'valueOf', '__defineGetter__'];
/** Pieces that are hard on tokenizers and regexes: repetitions, separators, lone surrogates, NUL, nested brackets. */
const hostilePiece = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.constantFrom(...JS_NAMES, '\u0000', '\ud800', '\udc00', '\ud83d', '\u202e', '\ufeff', '\u200b', 'Beijing', 'from', 'to', 'no', 'sites', 'incident', "'", '->', '广州',
    // The paths of other languages, ranges, scores and snake_case names (languages.ts, dates.ts).
    '从', '到', 'から', 'まで', '에서', '까지', '两个人', '한', '명', 'de', 'von', 'nach', 'zwei Personen', 'Ciudad de', '5/10', 'to 503', 'half past', 'Christmas Eve', 'weeks from today', 'at maximum', 'CPU load high',
    // Glossed words of other languages, alone and inside CJK runs (glossary.ts).
    'Hintergrund', 'dents blanches', 'severidad mayor', '经济舱', '背景虚化', '無線基地局', '비즈니스석', 'критично',
    // Concept words said (spelled or by a WordNet synonym) beside a sister of the concept (mapper.ts conceptsSaid, rivalWords).
    'pics', 'picture', 'flights', 'train', 'trains are on strike', 'booking', 'faults', 'first class train', 'two bus tickets', 'slower',
    // The request's head and a name word used as a verb (mapper.ts headTokens, verbUse); a gloss that names a value.
    'book a train', 'not a flight,', 'picture this', 'photograph the', 'get me a', 'optical', 'links',
    // Enum senses, degrees, parties, inflected glosses, base-form slips, acts (lexicon.ts senseWords, polarity; mapper.ts partyCounts, grades; glossary.ts inflectedGloss).
    'chilly blue tone', 'film grain', 'hollywood film', 'cheapest cabin', 'most expensive', 'two adults and one kid', 'with my husband and', 'me and my two', 'for 1 to', 'blanquea', 'suaviza la piel', 'lissée', 'whitn', 'a quick look',
    // Towns said in lowercase or slipped, people added to a party (lexicon.ts placeName, placeSlip, isAddingVerb; mapper.ts placeAt, addedParties).
    'from dehli to', 'Vancuver', 'to dublin', 'add our three kids', 'I added 2 kids', 'include my two'),
  fc.tuple(fc.constantFrom('a', '-', '1-', "'", '(', 'a1', 'INC-', '1, ', 'from ', 'no ', '9:', '->', '从上海到', 'から', 'de X ', '1 to 2 ', 'high ', '\ud800到', '背景', '磨皮\ud800', 'filtre ', 'and two kids ', 'cheapest ', 'more ', 'suaviz', 'add 2 kids and ', 'londn '), fc.integer({ min: 1, max: 300 })).map(([s, n]) => s.repeat(n)),
  fc.integer({ min: -1e9, max: 1e9 }).map(String),
);
const hostileUtterance = fc.array(hostilePiece, { minLength: 1, maxLength: 12 }).map((xs) => xs.join(' '));

function objectPrototypeIsClean(): void {
  expect(Object.getOwnPropertyNames(Object.prototype).sort()).toEqual(PROTO_NAMES);
  expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
}
const PROTO_NAMES = Object.getOwnPropertyNames(Object.prototype).sort();

describe('hostile utterances', () => {
  // Warm-up (WordNet, word vectors, each template's plan): the time budgets below are for the text, not for loading.
  beforeAll(async () => {
    for (const template of TEMPLATES) await client.mapUtterance(template, 'window seat please', REF);
  }, 120_000);

  it('map or fail with a typed error; other and sources are the user\'s words; nothing leaks into prototypes', async () => {
    await fc.assert(
      fc.asyncProperty(hostileUtterance, fc.constantFrom(...TEMPLATES), async (text, template) => {
        let prepared: string;
        try {
          prepared = prepareUtterance(text);
        } catch (e) {
          expect(e).toBeInstanceOf(ParleyError);
          expect(['required', 'max_length']).toContain((e as ParleyError).rule);
          await expect(client.mapUtterance(template, text, REF)).rejects.toMatchObject({ type: 'invalid_params', path: 'utterance' });
          return;
        }
        const started = Date.now();
        const m = await client.mapUtterance(template, text, REF);
        expect(Date.now() - started).toBeLessThan(3000);
        const keys = new Set(template.keys.map((k) => k.key_name));
        for (const k of Object.keys(m.payload)) expect(keys.has(k)).toBe(true);
        for (const o of m.other) expect(prepared.includes(o)).toBe(true);
        for (const [k, words] of Object.entries(m.sources)) {
          expect(prepared.includes(words)).toBe(true);
          const c = m.confidence[k] as number;
          expect(c >= 0 && c <= 1).toBe(true);
        }
        expect(Array.isArray(m.violations)).toBe(true);
        // Concept words said are the scenario's own name words; rivals are single lowercase words (the user's, or a
        // gloss of them), never the concept itself.
        const concepts = template.scenario.split('_');
        for (const w of m.named ?? []) expect(concepts).toContain(w);
        for (const w of m.rivals ?? []) expect(w === w.toLowerCase() && w.length <= 64 && !concepts.includes(w)).toBe(true);
        objectPrototypeIsClean();
      }),
      { numRuns: 150, seed: 1414 },
    );
  }, 120_000);

  it('a 1 MiB utterance is refused at once, before any pattern runs', async () => {
    const big = `from Beijing ${'a-'.repeat(512 * 1024)}`;
    await expect(client.mapUtterance(flightBookingTemplate, big, REF)).rejects.toMatchObject({ type: 'invalid_params', path: 'utterance', rule: 'max_length' });
    expect(await fastestMs(() => client.mapUtterance(flightBookingTemplate, big, REF).catch(() => undefined), 200)).toBeLessThan(200);
  });

  it('the longest utterance accepted, made of regex-hostile repetitions, maps in bounded time', async () => {
    for (const unit of ['from ', 'a', '1-', "'", 'no ', '1, ', 'INC-1 ', 'next Monday ', 'twenty one ', 'Beijing to ', '从上海到', '서울에서 ', 'de Ciudad ', '1 to 2 ', 'high load ', 'half past two ', 'ten past ten this morning ', 'no wait, make that 3 ', 'rather than economy ']) {
      const text = unit.repeat(Math.floor(MAX_UTTERANCE_CHARS / unit.length)).slice(0, MAX_UTTERANCE_CHARS);
      for (const template of TEMPLATES) {
        const started = Date.now();
        await client.mapUtterance(template, text, REF);
        expect(Date.now() - started, `${JSON.stringify(unit)} × ${template.schema_id}`).toBeLessThan(5000);
      }
    }
  }, 120_000);

  it('words no template knows always reach other (nothing silently dropped)', async () => {
    // Letters English words are made of rarely: none of these is a WordNet lemma.
    const nonsense = fc.stringMatching(/^[qxzvj][qxzvjk]{4,8}$/);
    await fc.assert(
      fc.asyncProperty(fc.array(nonsense, { minLength: 1, maxLength: 4 }), fc.constantFrom(...TEMPLATES), async (words, template) => {
        const text = `from PEK to SHA tomorrow, ${words.join(' and ')}, please`;
        const m = await client.mapUtterance(template, text, REF);
        const other = m.other.join(' | ');
        for (const w of words) expect(other, `${w} in ${JSON.stringify(m.other)}`).toContain(w);
      }),
      { numRuns: 60, seed: 14 },
    );
  });
});

describe('hostile templates', () => {
  it('descriptions with odd quoting, arrows and JS names parse into examples or nothing, never throw', () => {
    fc.assert(
      fc.property(fc.array(fc.oneof(hostilePiece, fc.constantFrom("'x' -> 'y'", "'a' -> [", "-> 'z'", "'it's' -> true", "'p' (q) -> 3", "'__proto__' -> 'constructor'")), { maxLength: 10 }), (parts) => {
        const pairs = examplePairs(parts.join(' '));
        for (const p of pairs) {
          expect(typeof p.source).toBe('string');
          expect(p.source.length).toBeLessThanOrEqual(400);
        }
      }),
      { numRuns: 300, seed: 7 },
    );
    expect(examplePairs("Example mapping: 'the site is on a rooftop and needs the landlord's key' -> ['site access requires landlord key'].")).toEqual([
      { source: "the site is on a rooftop and needs the landlord's key", value: ['site access requires landlord key'] },
    ]);
    expect(examplePairs("Example: 'next Monday' (asked on 2026-04-30) -> '2026-05-04'; 'two people' -> 2; 'no' -> false; 'later' -> today + 2 days")).toEqual([
      { source: 'next Monday', value: '2026-05-04' },
      { source: 'two people', value: 2 },
      { source: 'no', value: false },
    ]);
  });

  it('patterns with nested quantifiers or alternations under a quantifier are not run', () => {
    for (const p of ['^(a+)+$', '(a|aa)*', '(\\d+)*x', '((ab)*)+', '(x+x+)+y', '(a|b){2,}', '(.*a){12}', '\\1']) expect(safePattern(p), p).toBe(false);
    for (const p of ['^[A-Za-z0-9][A-Za-z0-9_.:-]{0,63}$', '^INC-\\d{8}-\\d{4}$', '^(PEK|SHA)$', '^[a-z]+(-[a-z]+)?$']) expect(safePattern(p), p).toBe(true);
  });

  it('a template whose key names and values are JS property names maps without pollution', async () => {
    const t: SchemaTemplate = {
      schema_id: 'odd_v1',
      scenario: 'odd',
      keys: [
        { key_name: 'proto_value', key_type: 'string', required: false, enum: ['__proto__', 'constructor', 'toString'], semantic_description: "Odd. Example mapping: 'the constructor' -> 'constructor'." },
        { key_name: 'has_own_property', key_type: 'boolean', required: false, semantic_description: "Odd. Example: '__proto__ toString' -> true." },
      ],
    };
    const m = await client.mapUtterance(t, 'the constructor, __proto__ toString and hasOwnProperty valueOf', REF);
    expect(m.payload['proto_value']).toBe('constructor');
    objectPrototypeIsClean();
  });
});

describe('tokens', () => {
  it('every token is a slice of the text at its offsets, CJK runs cut at their particles too', () => {
    fc.assert(
      fc.property(hostileUtterance, (text) => {
        const s = text.slice(0, 4000);
        for (const t of [...tokenize(s), ...splitCjk(tokenize(s)), ...glossTokens(splitCjk(tokenize(s)))]) {
          expect(s.slice(t.start, t.end)).toBe(t.text);
          expect(t.end).toBeGreaterThan(t.start);
        }
      }),
      { numRuns: 300, seed: 11 },
    );
  });
});

describe('glosses of other languages', () => {
  it('keep the user\'s text and offsets, gloss only known forms, and read no inherited property as a gloss', () => {
    for (const name of JS_NAMES) {
      expect(GLOSSES.has(name)).toBe(false);
      expect(glossTokens(tokenize(name)).map((t) => t.lower)).toEqual(tokenize(name).map((t) => t.lower));
    }
    const text = 'Hintergrund unscharf, 背景虚化X复古滤镜';
    const out = glossTokens(splitCjk(tokenize(text)));
    for (const t of out) expect(text.slice(t.start, t.end)).toBe(t.text);
    expect(out.map((t) => t.lower)).toEqual(['background', 'blurred', ',', 'background', 'blur', 'x', 'vintage', 'filter']);
    // A glossed word is not a capitalised name.
    expect(out[0]?.capital).toBe(false);
  });

  it('cut a long CJK run in linear time, glossing at most MAX_GLOSSED words', () => {
    const run = `${'背景虚化'.repeat(20_000)}\ud800${'猫'.repeat(200_000)}`;
    const started = Date.now();
    const out = glossTokens(tokenize(run));
    expect(Date.now() - started).toBeLessThan(3000);
    expect(out.filter((t) => t.lower === 'blur' || t.lower === 'background')).toHaveLength(MAX_GLOSSED);
    for (const t of out) expect(run.slice(t.start, t.end)).toBe(t.text);
  });
});
