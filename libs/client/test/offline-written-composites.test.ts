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

  it('hostile ends (long hyphen runs, NUL, prototype names) map or refuse, and never hang', async () => {
    for (const text of [`link ${'A-'.repeat(900)}A<->B is down`, 'link constructor<->__proto__ down', 'link A\u0000-B<->C-\ud800D down', `link ${'<->'.repeat(600)}`]) {
      const m = await client.mapUtterance(faultManagementTemplate, text, PARIS);
      const v = m.payload['suspected_link'];
      expect(v === undefined || (typeof v === 'string' && text.includes(v))).toBe(true);
    }
  });
});
