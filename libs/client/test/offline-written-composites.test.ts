import { faultManagementTemplate } from '@parley/examples';
import { describe, expect, it } from 'vitest';
import { createParleyClient } from '../src/index';
import { createOfflineMapper } from '../src/offline/index';

// A composite written as the template writes it ('AGG-03<->CR-01') is copied whole, each end over the hyphens the
// tokenizer splits between letters (draft-zhou §6.1). Sentences of their own, not the bench's.
const client = createParleyClient('http://127.0.0.1:9', { mapper: createOfflineMapper() });
const PARIS = { today: '2026-11-26', timezone: 'Europe/Paris' };
const link = async (text: string) => (await client.mapUtterance(faultManagementTemplate, text, PARIS)).payload['suspected_link'];

describe('a composite written with the template\'s glue', () => {
  it('keeps each end whole: letters and digits joined by hyphens', async () => {
    expect(await link('the microwave link SITE-A<->SITE-B went down at 3:15 pm')).toBe('SITE-A<->SITE-B');
    expect(await link('link AGG-05<->CR-02 is down')).toBe('AGG-05<->CR-02');
    expect(await link('link NODE-7-B<->HUB-C is flapping')).toBe('NODE-7-B<->HUB-C');
  });

  it('single letters alone are no ends, and a spaced hyphen ends an identifier', async () => {
    expect(await link('link X<->Y is down')).toBeUndefined();
    expect(await link('link SITE - A<->SITE-B is down')).toBeUndefined();
    expect(await link('link AB - CD<->EF is down')).toBe('CD<->EF');
  });

  it('an end goes on over capitals and digits only, never over lowercase words', async () => {
    expect(await link('link SITE-A<->SITE-B-is-down since 3 pm')).toBe('SITE-A<->SITE-B');
    expect(await link('the re-routed-SITE-A<->SITE-B link is down')).toBe('SITE-A<->SITE-B');
  });

  it('an end longer than any the tokenizer splits is refused, not cut', async () => {
    expect(await link('link X-X-X-X-X-X-X-X-X-X-A<->B-C down')).toBeUndefined();
    expect(await link('link X-X-X-A<->B-C down')).toBe('X-X-X-A<->B-C');
  });

  it('hostile ends (long hyphen runs, NUL, prototype names) are refused or copied whole as written, and never hang', async () => {
    expect(await link(`link ${'A-'.repeat(900)}A<->B is down`)).toBeUndefined();
    expect(await link('link constructor<->__proto__ down')).toBeUndefined();
    for (const text of ['link A\u0000-B<->C-\ud800D down', `link ${'<->'.repeat(600)}`]) {
      const v = (await client.mapUtterance(faultManagementTemplate, text, PARIS)).payload['suspected_link'];
      // A value is a whole composite of the text: its glue once, between two ends of capitals, digits or identifiers.
      expect(v === undefined || (typeof v === 'string' && text.includes(v) && /^[^<>]+<->[^<>]+$/.test(v))).toBe(true);
    }
  });
});
