/**
 * Personal data in `other` fragments (zhou §7: "sensitive personal information
 * ... MUST [be protected]"): each kind found and replaced by its placeholder,
 * ordinary numbers left alone, and sanitizeFragment carrying the kinds as flags.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { PII_PLACEHOLDERS, ibanValid, luhnValid, sanitizeFragment, scrubPersonalData, type PiiKind } from '../src/index';

describe('scrubPersonalData: each kind found and replaced (zhou §7)', () => {
  it.each<[string, string, PiiKind]>([
    // e-mail
    ['mail me at jane.doe@example.com please', 'mail me at [email] please', 'email'],
    ['write to émile+trips@mail.example.fr', 'write to [email]', 'email'],
    ['jane (at) example (dot) com', '[email]', 'email'],
    ['jane[at]example.com', '[email]', 'email'],
    ['reach me: jane at gmail dot com', 'reach me: [email]', 'email'],
    // phone
    ['call +1 555 123 4567 for seat', 'call [phone] for seat', 'phone'],
    ['call (555) 123-4567', 'call [phone]', 'phone'],
    ['+44 (0) 20 7946 0958', '[phone]', 'phone'],
    ['ring 020 7946 0958 tonight', 'ring [phone] tonight', 'phone'],
    ['+8613812345678', '[phone]', 'phone'],
    ['mobile 13812345678', 'mobile [phone]', 'phone'],
    ['1-800-555-0199', '[phone]', 'phone'],
    ['555-0100', '[phone]', 'phone'],
    ['06 12 34 56 78', '[phone]', 'phone'],
    ['555.123.4567', '[phone]', 'phone'],
    ['(call 555 123 4567)', '(call [phone])', 'phone'],
    // payment card (Luhn)
    ['card 4111 1111 1111 1111 exp 12/27', 'card [card] exp 12/27', 'card'],
    ['pay with 5500-0000-0000-0004', 'pay with [card]', 'card'],
    ['4111111111111111', '[card]', 'card'],
    ['amex 3782 822463 10005', 'amex [card]', 'card'],
    // IBAN (mod 97)
    ['IBAN DE89 3704 0044 0532 0130 00 thanks', 'IBAN [iban] thanks', 'iban'],
    ['GB82 WEST 1234 5698 7654 32', '[iban]', 'iban'],
    ['fr1420041010050500013m02606', '[iban]', 'iban'],
    // identity numbers
    ['passport E12345678', 'passport [id-number]', 'id_number'],
    ['passport no. 123456789', 'passport no. [id-number]', 'id_number'],
    ['my ID is 98765', 'my ID is [id-number]', 'id_number'],
    ['ssn 123-45-6789', 'ssn [id-number]', 'id_number'],
    ['NI AB 12 34 56 C', 'NI [id-number]', 'id_number'],
    ['DNI 12345678Z', 'DNI [id-number]', 'id_number'],
    ['身份证 11010119900307757X', '身份证 [id-number]', 'id_number'],
    ['110101199003077578', '[id-number]', 'id_number'],
    ['customer 123456789012', 'customer [id-number]', 'id_number'],
    // IP addresses
    ['server 192.168.1.20 is down', 'server [ip] is down', 'ip'],
    ['from 10.0.0.1.', 'from [ip].', 'ip'],
    ['fe80::1ff:fe23:4567:890a', '[ip]', 'ip'],
    ['2001:db8::8a2e:370:7334 unreachable', '[ip] unreachable', 'ip'],
    ['2001:0db8:85a3:0000:0000:8a2e:0370:7334', '[ip]', 'ip'],
  ])('%j → %j (%s)', (input, text, kind) => {
    expect(scrubPersonalData(input)).toEqual({ text, found: [kind] });
  });

  it('reports every kind once, sorted; the placeholders are the documented ones', () => {
    const r = scrubPersonalData('a@b.co, b@c.io, +1 555 123 4567, 4111 1111 1111 1111 and 10.1.2.3');
    expect(r.text).toBe('[email], [email], [phone], [card] and [ip]');
    expect(r.found).toEqual(['card', 'email', 'ip', 'phone']);
    expect(PII_PLACEHOLDERS).toEqual({ email: '[email]', phone: '[phone]', card: '[card]', iban: '[iban]', id_number: '[id-number]', ip: '[ip]' });
  });

  it('finds numbers in any script or width (NFKC, decimal digits folded)', () => {
    expect(scrubPersonalData('call ٠٢٠ ٧٩٤٦ ٠٩٥٨')).toEqual({ text: 'call [phone]', found: ['phone'] });
    expect(scrubPersonalData('ｃａｌｌ　５５５－１２３－４５６７')).toEqual({ text: 'call [phone]', found: ['phone'] });
    expect(scrubPersonalData('call 555\u2013123\u20134567')).toEqual({ text: 'call [phone]', found: ['phone'] });
    expect(scrubPersonalData('jane＠example．com').found).toEqual(['email']);
  });
});

describe('scrubPersonalData: ordinary numbers stay (no false positives)', () => {
  it.each([
    '2 bags',
    'seat 12A',
    'make it 20% brighter',
    'enlarge the eyes by 15 percent',
    '3 nights',
    'on 2026-05-04 at 14:30',
    '04.05.2026',
    '04/05/2026',
    '4 May 2026',
    '20260504',
    'from 2026-05-04-2026-05-10',
    'flight CA1234 and MU5101',
    'train G1234',
    'between 10:30-12:00',
    '12:30:45',
    'at 2026-05-04T10:30:00Z',
    'rows 10 11 12 13 14',
    'in 2024 2025 2026',
    'room 1204, gate B12, terminal 3',
    'budget 1 299 euro',
    'price 1,299.99',
    'up to 1.000.000 miles',
    '100 000 000 points',
    'pi 3.14159265358',
    'version 1.2.3',
    'ratio 16:9',
    '2x 23kg bags',
    '+20% contrast',
    '1+1 seats',
    'the 21st row',
    'seat at window dot please',
    'GB12 want more room here',
    'photo 4000x3000',
    'ISO 800',
    'alarm 12345 on port 8080',
    'vlan 100 and 200',
  ])('%j', (input) => {
    expect(scrubPersonalData(input)).toEqual({ text: input.normalize('NFKC'), found: [] });
  });

  it('a 16-digit number that fails Luhn is not called a card (but is still not kept)', () => {
    expect(scrubPersonalData('4111 1111 1111 1112')).toEqual({ text: '[id-number]', found: ['id_number'] });
  });
});

describe('check digits', () => {
  it('Luhn (ISO/IEC 7812)', () => {
    for (const ok of ['4111111111111111', '5500000000000004', '378282246310005', '6011111111111117', '79927398713']) expect(luhnValid(ok), ok).toBe(true);
    for (const bad of ['4111111111111112', '79927398710', '1234567812345678', '', 'abcd', '4111-1111']) expect(luhnValid(bad), bad).toBe(false);
  });

  it('property: changing one digit of a Luhn-valid number breaks it; a generated check digit makes any number valid', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 9 }), { minLength: 12, maxLength: 18 }), fc.nat(), fc.integer({ min: 1, max: 9 }), (body, pos, delta) => {
        const check = [...Array(10).keys()].find((d) => luhnValid(body.join('') + d)) as number;
        expect(check).toBeDefined();
        const valid = body.join('') + check;
        const i = pos % valid.length;
        const changed = valid.slice(0, i) + String((Number(valid[i]) + delta) % 10) + valid.slice(i + 1);
        expect(luhnValid(changed)).toBe(false);
      }),
    );
  });

  it('IBAN mod 97 (ISO 13616), with a mostly numeric account part', () => {
    for (const ok of ['DE89 3704 0044 0532 0130 00', 'GB82WEST12345698765432', 'FR1420041010050500013M02606', 'NL91ABNA0417164300']) expect(ibanValid(ok), ok).toBe(true);
    for (const bad of ['DE88 3704 0044 0532 0130 00', 'GB82WEST1234569876543X', 'XX00', 'GB12WANTMOREROOMHERE']) expect(ibanValid(bad), bad).toBe(false);
  });
});

describe('sanitizeFragment scrubs personal data before anything downstream sees it', () => {
  it('placeholders survive sanitising; the kinds become flags', () => {
    expect(sanitizeFragment('window seat please, mail me at jane.doe@example.com')).toEqual({ text: 'window seat please, mail me at [email]', flags: ['email'] });
    expect(sanitizeFragment('aisle seat; card 4111 1111 1111 1111, call +1 555 123 4567')).toEqual({ text: 'aisle seat card [card], call [phone]', flags: ['card', 'phone'] });
    expect(sanitizeFragment('refund to IBAN DE89 3704 0044 0532 0130 00')).toEqual({ text: 'refund to IBAN [iban]', flags: ['iban'] });
    expect(sanitizeFragment('my passport: E12345678')).toEqual({ text: 'my passport [id-number]', flags: ['id_number'] });
    expect(sanitizeFragment('link down at 192.168.1.20')).toEqual({ text: 'link down at [ip]', flags: ['ip'] });
  });

  it('ordinary numbers survive sanitising as before (dates are no longer cut as "long numbers")', () => {
    expect(sanitizeFragment('2 bags, seat 12A, 20% off, flight CA1234 on 2026-05-04')).toEqual({ text: '2 bags, seat 12A, 20% off, flight CA1234 on 2026-05-04', flags: [] });
  });

  it('a fragment that is only personal data is dropped (nothing of the user\'s words is left)', () => {
    expect(sanitizeFragment('jane.doe@example.com')).toEqual({ text: null, flags: ['email', 'empty'] });
    expect(sanitizeFragment(' +1 555 123 4567 , 4111111111111111 ')).toEqual({ text: null, flags: ['card', 'empty', 'phone'] });
  });

  it('the length cap never leaves half a placeholder', () => {
    const s = sanitizeFragment(`${'a'.repeat(44)} [id-number]x 123456789012`, 50);
    expect(s.text).toBe('a'.repeat(44));
    // No space in the second half: a hard cut, and the half placeholder goes.
    expect(sanitizeFragment(`call ${'x'.repeat(40)}5551234567`, 50)).toEqual({ text: `call ${'x'.repeat(40)}`, flags: ['phone', 'truncated'] });
    const t = sanitizeFragment(`window seat please ${'x'.repeat(10)} call 555 123 4567`, 38);
    expect(t.text).toBe(`window seat please ${'x'.repeat(10)} call`);
  });

  it('property: no e-mail, Luhn-valid card or long digit run survives, and sanitising is idempotent', () => {
    const word = fc.constantFrom('window', 'seat', 'please', 'aisle', 'call', 'me', 'at', 'card', 'refund', '2', 'bags', '20%', 'CA1234', '2026-05-04');
    const pii = fc.oneof(
      fc.tuple(fc.stringMatching(/^[a-z][a-z0-9.]{0,8}[a-z0-9]$/), fc.stringMatching(/^[a-z]{2,8}$/), fc.constantFrom('com', 'org', 'de')).map(([u, d, t]) => `${u}@${d}.${t}`),
      fc.array(fc.integer({ min: 0, max: 9 }), { minLength: 15, maxLength: 15 }).map((ds) => {
        const body = `4${ds.join('')}`;
        const check = [...Array(10).keys()].find((d) => luhnValid(body + d)) as number;
        return `${body}${check}`.replace(/(\d{4})(?=\d)/g, '$1 ');
      }),
      fc.array(fc.integer({ min: 0, max: 9 }), { minLength: 10, maxLength: 10 }).map((ds) => `+1 ${ds.slice(0, 3).join('')} ${ds.slice(3, 6).join('')} ${ds.slice(6).join('')}`),
    );
    fc.assert(
      fc.property(fc.array(fc.oneof(word, word, pii), { minLength: 1, maxLength: 12 }), (parts) => {
        const s = sanitizeFragment(parts.join(' '));
        if (s.text === null) return;
        expect(s.text).not.toMatch(/@/);
        expect(s.text.replace(/\D+/g, ' ')).not.toMatch(/\d{9,}/);
        for (const run of s.text.match(/[\d ]{13,}/g) ?? []) expect(luhnValid(run.replace(/\D/g, '')) && run.replace(/\D/g, '').length >= 13).toBe(false);
        expect(sanitizeFragment(s.text).text).toBe(s.text);
      }),
    );
  });

  it('property: sanitising is idempotent, also where scrubbing, clean-up and the length cap interact', () => {
    const tok = fc.constantFrom('window', 'seat', ' ', ', ', '.', '-', '2', '555', '123', '4567', '+1', '(', ')', '@', 'a.b', 'example.com', '4111', '1111', '[email]', '[', ']', 'id', 'passport', 'E1234567', '10.0.0.1', ':', '::', 'fe80', 'DE89', '3704', '0044', '0532', '0130', '00', '2026-05-04', 'é', '٣');
    fc.assert(
      fc.property(fc.array(tok, { maxLength: 30 }), fc.integer({ min: 5, max: 200 }), (parts, max) => {
        const s = sanitizeFragment(parts.join(''), max);
        if (s.text !== null) {
          expect([...s.text].length).toBeLessThanOrEqual(max);
          expect(sanitizeFragment(s.text, max).text).toBe(s.text);
        }
      }),
      { numRuns: 3000 },
    );
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 200 }), (raw) => {
        const s = sanitizeFragment(raw);
        if (s.text !== null) expect(sanitizeFragment(s.text).text).toBe(s.text);
      }),
      { numRuns: 1000 },
    );
  });
});
