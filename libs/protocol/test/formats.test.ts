import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { fullFormats } from 'ajv-formats/dist/formats.js';
import { compilePayloadValidator, isFullDate, type SchemaTemplate } from '@parley/protocol';
import { expectViolation, figure } from './helpers';

// ajv-formats' own date check: isFullDate must decide every string as it does.
const ajvDate = (fullFormats.date as { validate: (s: string) => boolean }).validate;

const dateLike = fc
  .tuple(fc.integer({ min: 0, max: 9999 }), fc.integer({ min: 0, max: 13 }), fc.integer({ min: 0, max: 32 }))
  .map(([y, m, d]) => `${String(y).padStart(4, '0')}-${String(m).padStart(2, '0')}-${String(d).padStart(2, '0')}`);

describe('isFullDate decides as ajv-formats date', () => {
  it('on dates, near-dates and any string', () => {
    const mutated = fc.tuple(dateLike, fc.nat(9), fc.string({ maxLength: 2 })).map(([s, i, c]) => s.slice(0, i) + c + s.slice(i + 1));
    fc.assert(
      fc.property(fc.oneof(dateLike, mutated, fc.string(), fc.string({ unit: 'grapheme' })), (s) => {
        expect(isFullDate(s)).toBe(ajvDate(s));
      }),
      { numRuns: 5000 },
    );
  });

  it('on leap days, month ends and hostile text', () => {
    const cases = [
      '2024-02-29', '2023-02-29', '1900-02-29', '2000-02-29', '2026-04-31', '2026-12-31', '2026-00-10', '2026-13-01', '0000-01-01',
      '2026-05-04\n', ' 2026-05-04', '2026-05-4', '２０２６-05-04', '2026/05/04', '2026-05-04T00:00:00Z',
      'constructor', '__proto__', 'toString', '\u0000\u0000\u0000\u0000-\u0000\u0000-\u0000\u0000', '\ud800026-05-04', '2026-05-\udc04',
      '1'.repeat(1 << 20), '-'.repeat(10), '9999-99-99',
    ];
    for (const s of cases) expect(isFullDate(s), JSON.stringify(s.slice(0, 40))).toBe(ajvDate(s));
  });

  it('a payload date key refuses an impossible date with a typed error naming the key and the format rule', () => {
    // Figure 2 (flight_booking_v1) with departure_date of format date, as the example agent declares it.
    const t = figure<SchemaTemplate>(2);
    const v = compilePayloadValidator({ ...t, keys: t.keys.map((k) => (k.key_name === 'departure_date' ? { ...k, format: 'date' } : k)) });
    const ok = { origin: 'PEK', destination: 'SHA', departure_date: '2028-02-29' };
    expect(v.validate(ok).payload.departure_date).toBe('2028-02-29');
    expectViolation(() => v.validate({ ...ok, departure_date: '2027-02-29' }), 'payload_invalid', 'payload.departure_date', 'format');
  });
});
