import fc from 'fast-check';
import { photoRetouchTemplate } from '@parley/examples';
import type { SchemaTemplate } from '@parley/protocol';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Lexicon } from '../src/offline/lexicon';
import { loadLexicon, map } from './offline-fixture';

// An enum value with no parallel sense that names a degree of a quality (draft-zhou §6.1: the template's enum values
// read with their meaning): "vintage" is the oldness of wines, oldness an age, a property derived from "old". Sentences
// of our own, not the bench's. Reference: Thursday 2026-11-26 in Paris.
const FILTERS = ['none', 'vintage', 'cinematic', 'warm', 'cool'];
let lex: Lexicon;

beforeAll(async () => {
  lex = await loadLexicon();
}, 120_000);

describe('a value that names a degree of a quality', () => {
  it('evokes the adjectives of the quality, not the words of its other senses', () => {
    const words = lex.senseWords('vintage', FILTERS).map((w) => w.word);
    expect(words).toContain('old');
    expect(words).not.toContain('wine');
    // A value with no quality sense evokes nothing this way.
    expect(lex.senseWords('none', FILTERS)).toEqual([]);
  });

  it('maps the adjective beside a cue of the key or a noun for a quality', async () => {
    expect((await map(photoRetouchTemplate, 'give my portrait an old look')).payload['filter_style']).toBe('vintage');
    expect((await map(photoRetouchTemplate, 'an old-style filter on the beach picture')).payload['filter_style']).toBe('vintage');
  });

  it('does not read an old thing as a style', async () => {
    const m = await map(photoRetouchTemplate, 'whiten the teeth on my old photo of grandma');
    expect(m.payload['filter_style']).toBeUndefined();
    expect(m.payload['teeth_whitening']).toBe(true);
    expect(m.other.join(' ')).toContain('old');
  });

  it('"old" meaning previous does not evoke vintage: under a removal verb or a negation, or pointed at as the one there', async () => {
    for (const text of ['remove that old filter I put on', 'undo the old filter', 'get rid of the old filter', "don't use an old look", 'keep the old look of the room, just whiten the teeth']) {
      expect((await map(photoRetouchTemplate, text)).payload['filter_style'], text).toBeUndefined();
    }
    expect((await map(photoRetouchTemplate, 'keep the old look of the room, just whiten the teeth')).payload['teeth_whitening']).toBe(true);
  });

  it('an old look asked for is still vintage, and a hyphenated word read whole leaves no half of it in other', async () => {
    expect((await map(photoRetouchTemplate, 'an old look please')).payload['filter_style']).toBe('vintage');
    const timey = await map(photoRetouchTemplate, 'give it an old-timey filter');
    expect(timey.payload['filter_style']).toBe('vintage');
    expect(JSON.stringify(timey.other ?? [])).not.toContain('timey');
  });
});

describe('hostile enum values on the quality path', () => {
  const JS_NAMES = ['constructor', '__proto__', 'prototype', 'toString', 'hasOwnProperty', 'valueOf'];
  const hostile = fc.oneof(
    fc.string({ maxLength: 60 }),
    fc.string({ unit: 'binary', maxLength: 60 }),
    fc.constantFrom(...JS_NAMES, '\u0000', '\ud800', '\udc00', 'vintage\u0000', 'old\ud800'),
    fc.tuple(fc.constantFrom('a', 'old', 'vintage ', 'ness'), fc.integer({ min: 1, max: 400 })).map(([s, n]) => s.repeat(n)),
  );

  it('senseWords answers any value, reads no inherited property, throws nothing', () => {
    fc.assert(
      fc.property(hostile, fc.array(hostile, { maxLength: 4 }), (v, siblings) => {
        const out = lex.senseWords(v, [v, ...siblings]);
        expect(Array.isArray(out)).toBe(true);
      }),
      { numRuns: 300, seed: 31 },
    );
    for (const name of JS_NAMES) expect(lex.senseWords(name, [name, 'vintage'])).toEqual([]);
    const started = Date.now();
    expect(lex.senseWords('old'.repeat(350_000), FILTERS)).toEqual([]);
    expect(Date.now() - started).toBeLessThan(1000);
  });

  it('a template whose enum values are hostile maps an old look without pollution', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(hostile.filter((s) => s.length > 0 && s.length < 200), { minLength: 1, maxLength: 4 }), async (values) => {
        const template: SchemaTemplate = {
          ...photoRetouchTemplate,
          keys: photoRetouchTemplate.keys.map((k) => (k.key_name === 'filter_style' ? { ...k, enum: [...new Set(['none', 'vintage', ...values])] } : k)),
        };
        const m = await map(template, 'give it an old look and an old\u0000 feel');
        expect(typeof m.payload).toBe('object');
        expect(Object.getOwnPropertyNames(Object.prototype)).not.toContain('polluted');
      }),
      { numRuns: 40, seed: 37 },
    );
  }, 120_000);
});
