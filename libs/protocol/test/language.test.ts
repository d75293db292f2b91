import { describe, expect, it } from 'vitest';
import { negotiateLanguage, normalizeLanguageTag } from '../src/index';
import { expectViolation } from './helpers';

describe('§4.2 language negotiation (BCP 47, case-insensitive)', () => {
  it('an exact match wins, compared case-insensitively, returned as the server spells it', () => {
    expect(negotiateLanguage('en-US', ['zh-CN', 'en-US', 'en'], 'zh-CN')).toBe('en-US');
    expect(negotiateLanguage('EN-us', ['zh-CN', 'en-US'], 'zh-CN')).toBe('en-US');
    expect(negotiateLanguage('zh-cn', ['en', 'zh-CN'], 'en')).toBe('zh-CN');
  });

  it('Figure 6: preferred "en-US" falls back to the bare primary language "en"', () => {
    expect(negotiateLanguage('en-US', ['zh', 'en'], 'zh')).toBe('en');
  });

  it('a bare primary language matches a regional variant, and regions match each other', () => {
    expect(negotiateLanguage('en', ['zh', 'en-US'], 'zh')).toBe('en-US');
    expect(negotiateLanguage('en-GB', ['zh', 'en-US'], 'zh')).toBe('en-US');
  });

  it('truncation is preferred over a sibling region (RFC 4647 lookup)', () => {
    expect(negotiateLanguage('zh-Hant-TW', ['zh-Hans', 'zh-Hant'], 'en')).toBe('zh-Hant');
    expect(negotiateLanguage('en-US', ['en-GB', 'en'], 'fr')).toBe('en');
  });

  it('no match, no preference or nothing available gives the fallback', () => {
    expect(negotiateLanguage('fr-FR', ['en', 'zh'], 'en')).toBe('en');
    expect(negotiateLanguage(undefined, ['en', 'zh'], 'zh')).toBe('zh');
    expect(negotiateLanguage('', ['en'], 'zh')).toBe('zh');
    expect(negotiateLanguage('en', [], 'en')).toBe('en');
  });

  it('a primary-subtag prefix that is not a whole subtag does not match', () => {
    // "e" is not "en"; "eng" is a different language subtag.
    expect(negotiateLanguage('eng', ['en'], 'zh')).toBe('zh');
  });
});

describe('normalizeLanguageTag', () => {
  it('returns canonical case: language lower, script title, region upper', () => {
    expect(normalizeLanguageTag('EN-us', 'params.preferred_language')).toBe('en-US');
    expect(normalizeLanguageTag('zh-hant-tw', 'x')).toBe('zh-Hant-TW');
    expect(normalizeLanguageTag('es-419', 'x')).toBe('es-419');
    expect(normalizeLanguageTag('de-CH-x-Phonebk', 'x')).toBe('de-CH-x-phonebk');
  });

  it('rejects strings that are not BCP 47 tags (rule bcp47)', () => {
    for (const bad of ['', 'e', 'en_US', '123', 'en-', 'en--US', 'englishlanguage', 'en-US!', 'en-abcdefghi']) {
      expectViolation(() => normalizeLanguageTag(bad, 'params.preferred_language'), 'invalid_params', 'params.preferred_language', 'bcp47');
    }
  });

  it('rejects non-strings (rule type) and honours the given error type', () => {
    expectViolation(() => normalizeLanguageTag(5, 'params.language'), 'invalid_params', 'params.language', 'type');
    expectViolation(() => normalizeLanguageTag('x', 'language', 'template_invalid'), 'template_invalid', 'language', 'bcp47');
  });
});
