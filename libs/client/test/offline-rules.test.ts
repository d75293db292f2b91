import { SCENARIOS, faultManagementTemplate, flightBookingTemplate, photoRetouchTemplate } from '@parley/examples';
import { scenarioId } from '@parley/protocol';
import { describe, expect, it } from 'vitest';
import { createParleyClient, type ScenarioCatalog } from '../src/index';
import { createOfflineMapper } from '../src/offline/index';
import { enumGlossSegments } from '../src/offline/examples';
import { cjkPersonCount, splitCjk } from '../src/offline/languages';
import { Lexicon } from '../src/offline/lexicon';
import { correct, spellingIndex } from '../src/offline/spelling';
import { tokenize } from '../src/offline/text';

// One test per rule of the offline mapper added for other languages, spans, scores and snake_case names, on
// sentences of their own (not the bench's). Reference: Thursday 2026-11-26 in Paris.
const client = createParleyClient('http://127.0.0.1:9', { mapper: createOfflineMapper() });
const PARIS = { today: '2026-11-26', timezone: 'Europe/Paris' };
const map = (template: typeof flightBookingTemplate, text: string) => client.mapUtterance(template, text, PARIS);

describe('other languages (languages.ts)', () => {
  it('CJK runs are cut at their route particles, the particles reading from / to', () => {
    const parts = splitCjk(tokenize('从上海到广州')).map((t) => [t.text, t.lower, t.kind]);
    expect(parts).toEqual([
      ['从', 'from', 'word'],
      ['上海', '上海', 'cjk'],
      ['到', 'to', 'word'],
      ['广州', '广州', 'cjk'],
    ]);
    const ko = splitCjk(tokenize('대구에서 광주까지')).map((t) => t.lower);
    expect(ko).toEqual(['대구', '<from', '광주', '<to']);
  });

  it('CJK counts of people: numeral and counter', () => {
    expect(cjkPersonCount('三个人')).toBe(3);
    expect(cjkPersonCount('五名様')).toBe(5);
    expect(cjkPersonCount('三月')).toBeUndefined();
  });

  it('route prepositions and postpositions of other languages fill origin and destination', async () => {
    const zh = await map(flightBookingTemplate, '从上海到广州，三个人');
    // 广州 is a name the template's examples know (→ CAN); 上海 is taken as written (city names in the local language are accepted).
    expect(zh.payload).toMatchObject({ origin: '上海', destination: 'CAN', passenger_count: 3 });
    const ja = await map(flightBookingTemplate, '札幌から福岡まで');
    expect(ja.payload).toMatchObject({ origin: '札幌', destination: '福岡' });
    const de = await map(flightBookingTemplate, 'von Köln nach Wien, drei Personen');
    expect(de.payload).toMatchObject({ origin: 'Köln', destination: 'Wien', passenger_count: 3 });
    // "Rio de Janeiro": a particle between two capitalised words belongs to the name.
    const es = await map(flightBookingTemplate, 'de Lima a Rio de Janeiro');
    expect(es.payload).toMatchObject({ origin: 'Lima', destination: 'Rio de Janeiro' });
  });

  it('English words are not read as another language\'s route words ("a Lufthansa flight")', async () => {
    const m = await map(flightBookingTemplate, 'book a Lufthansa flight from Berlin to Madrid');
    expect(m.payload).toMatchObject({ origin: 'Berlin', destination: 'Madrid' });
    expect((await map(flightBookingTemplate, 'a Lufthansa flight Berlin → Madrid')).payload['destination']).toBe('Madrid');
  });

  it('a spaced hyphen between two names is a route', async () => {
    const m = await map(flightBookingTemplate, 'Oslo - Bergen tomorrow');
    expect(m.payload).toMatchObject({ origin: 'Oslo', destination: 'Bergen', departure_date: '2026-11-27' });
  });

  it('another language reads its own month names, not English slip corrections of them', async () => {
    const m = await map(flightBookingTemplate, 'Flug von Köln nach Wien am 3. Januar');
    expect(m.payload['departure_date']).toBe('2027-01-03');
  });

  it('Korean dates, written with Hangul units', async () => {
    const m = await map(flightBookingTemplate, '대구에서 제주까지 1월 5일 두 명');
    expect(m.payload).toMatchObject({ origin: '대구', destination: '제주', departure_date: '2027-01-05', passenger_count: 2 });
  });

  it('a date inside a CJK run is taken with the run', async () => {
    const m = await map(faultManagementTemplate, '故障 INC-77，今天上午9点开始');
    expect(m.payload['occurred_at']).toBe('2026-11-26T09:00:00+01:00');
  });
});

describe('English dates chrono lacks', () => {
  it('fixed-date holidays, ahead for a departure', async () => {
    expect((await map(flightBookingTemplate, 'Oslo to Rome on Christmas Eve')).payload['departure_date']).toBe('2026-12-24');
    expect((await map(flightBookingTemplate, "Oslo to Rome on New Year's Eve")).payload['departure_date']).toBe('2026-12-31');
  });

  it('"<span> from today"', async () => {
    expect((await map(flightBookingTemplate, 'Oslo to Rome two weeks from today')).payload['departure_date']).toBe('2026-12-10');
    expect((await map(flightBookingTemplate, 'Oslo to Rome 3 days from tomorrow')).payload['departure_date']).toBe('2026-11-30');
  });

  it('"half past", "quarter to", afternoon when the words say so', async () => {
    expect((await map(faultManagementTemplate, 'INC-5 down since half past four this afternoon')).payload['occurred_at']).toBe('2026-11-26T16:30:00+01:00');
    expect((await map(faultManagementTemplate, 'INC-5 down since quarter to seven')).payload['occurred_at']).toBe('2026-11-26T06:45:00+01:00');
  });
});

describe('nothing dropped from dates', () => {
  it('a date key takes the day; the time of day the user said reaches other', async () => {
    const m = await map(flightBookingTemplate, 'Oslo to Rome on Friday evening');
    expect(m.payload['departure_date']).toBe('2026-11-27');
    expect(m.other).toContain('evening');
    const at = await map(flightBookingTemplate, 'Oslo to Rome at 7am on Saturday');
    expect(at.payload['departure_date']).toBe('2026-11-28');
    expect(at.other.join(' ')).toContain('7am');
  });
});

describe('numbers, ranges and lists', () => {
  it('a score on the key\'s own scale, not on another', async () => {
    expect((await map(photoRetouchTemplate, 'skin smoothing 6/10')).payload['skin_smoothing']).toBe(6);
    expect((await map(photoRetouchTemplate, 'skin smoothing 6/7')).payload).not.toHaveProperty('skin_smoothing');
  });

  it('the ends of the key\'s range', async () => {
    expect((await map(photoRetouchTemplate, 'skin smoothing at max please')).payload['skin_smoothing']).toBe(10);
    expect((await map(photoRetouchTemplate, 'skin smoothing at the lowest')).payload['skin_smoothing']).toBe(0);
  });

  it('a number before a word for a person counts people only for a key whose head is a person', async () => {
    expect((await map(flightBookingTemplate, 'Oslo to Rome, four adults')).payload['passenger_count']).toBe(4);
    expect((await map(faultManagementTemplate, 'INC-9, four adults on site')).payload).not.toHaveProperty('user_complaint_count');
  });

  it('the speaker counted: "just me", "my wife and I", "me and my son"', async () => {
    expect((await map(flightBookingTemplate, 'Oslo to Rome Friday, just me')).payload).toMatchObject({ destination: 'Rome', passenger_count: 1 });
    expect((await map(flightBookingTemplate, 'Oslo to Rome for my husband and I')).payload['passenger_count']).toBe(2);
    expect((await map(flightBookingTemplate, 'Oslo to Rome, me and my son')).payload['passenger_count']).toBe(2);
  });

  it('"for <number>" ending its clause counts people, for a key whose head is a person only', async () => {
    expect((await map(flightBookingTemplate, 'Oslo to Rome, first class for three, Friday')).payload['passenger_count']).toBe(3);
    expect((await map(flightBookingTemplate, 'Oslo to Rome for 3 days')).payload).not.toHaveProperty('passenger_count');
    expect((await map(faultManagementTemplate, 'INC-7 down, waited for two')).payload).not.toHaveProperty('user_complaint_count');
  });

  it('spelled site ranges, a list cued after it and of one kind, a lone uncued number weak', async () => {
    expect((await map(faultManagementTemplate, 'INC-3: sites 120 to 123 down')).payload['affected_site_ids']).toEqual(['120', '121', '122', '123']);
    const after = await map(faultManagementTemplate, 'INC-20261126-0001, RNC-01 and RNC-02 affected');
    expect(after.payload).toMatchObject({ incident_id: 'INC-20261126-0001', affected_site_ids: ['RNC-01', 'RNC-02'] });
    // The kinds of thing the description names in parentheses cue a list's items ("routers").
    expect((await map(faultManagementTemplate, 'INC-8: router EDGE-4 is rebooting')).payload['affected_site_ids']).toEqual(['EDGE-4']);
    const lone = await map(faultManagementTemplate, 'what is 12% of 480');
    expect(lone.confidence['affected_site_ids'] ?? 0).toBeLessThan(0.6);
  });
});

describe('nothing dropped: words of descriptions', () => {
  it('a word only a description says reaches other unless it stands beside a value it qualifies', async () => {
    // "light" is a word of skin_smoothing's example ('light skin smoothing'); "lighting" here asks for something else.
    const m = await map(photoRetouchTemplate, 'vintage filter and fix the lighting');
    expect(m.payload['filter_style']).toBe('vintage');
    expect(m.other).toContain('lighting');
  });
});

describe('texting abbreviations', () => {
  it('a short unknown word is the one template or date word that keeps its letters in order; function words stay', async () => {
    const m = await map(flightBookingTemplate, 'Oslo to Rome tmrw, 3 ppl');
    expect(m.payload).toMatchObject({ departure_date: '2026-11-27', passenger_count: 3 });
    const f = await map(faultManagementTemplate, 'INC-6 link down, look into it');
    expect(f.other.join(' ')).not.toContain('inventory');
  });

  it('only consonant runs are abbreviations: a short word with a vowel (often another language\'s) is left as said', async () => {
    const { WordNet, defaultDictDir } = await import('@parley/embeddings');
    const lex = new Lexicon(await WordNet.load({ dictDir: defaultDictDir() }));
    const index = spellingIndex(['version', 'versions', 'diagnosis', 'people', 'tomorrow']);
    expect(correct('von', index, lex)).toBeUndefined();
    expect(correct('vers', index, lex)).toBeUndefined();
    expect(correct('ppl', index, lex)).toBe('people');
    expect(correct('tmrw', index, lex)).toBe('tomorrow');
  });
});

describe('names', () => {
  it('a word of one known multi-word name only stands for it', async () => {
    expect((await map(flightBookingTemplate, 'Hongqiao to Guangzhou tomorrow')).payload['origin']).toBe('SHA');
  });

  it('a CJK run that starts with a known name is that name', async () => {
    expect((await map(flightBookingTemplate, '从广州出发到上海')).payload['origin']).toBe('CAN');
  });

  it('snake_case names from the user\'s words, without names, dates or other keys\' words', async () => {
    const m = await map(faultManagementTemplate, 'INC-20261126-0300: jitter high on AGG-02, major');
    expect(m.payload['alarm_type']).toBe('jitter_high');
    const paris = await map(faultManagementTemplate, 'INC-1 in Paris tomorrow');
    expect(paris.payload).not.toHaveProperty('alarm_type');
    // An identifier inside the words is another key's, not part of the name.
    const r = await map(faultManagementTemplate, 'INC-11: Fan FN-2 failed at 09:00');
    expect(r.payload['alarm_type']).toBe('fan_failed');
    // An example's phrase wins over a made-up name.
    expect((await map(faultManagementTemplate, 'INC-2: optical power too low on site 404')).payload['alarm_type']).toBe('optical_power_low');
  });

  it('a WordNet relation of an enum value weighs less than the value itself', async () => {
    const m = await map(faultManagementTemplate, 'INC-4 needs a good check');
    expect(m.confidence['diagnosis_depth'] ?? 0).toBeLessThan(0.85);
  });
});

describe('identification evidence', () => {
  const catalog: ScenarioCatalog = {
    entries: SCENARIOS.map((s) => ({ scenario: scenarioId(s.template.scenario), agent: 'a', template: s.template, description: s.description, tags: s.tags, domain: s.domain })),
  };

  it('selection alone carries no scenario: requests of no template are none', async () => {
    for (const words of ['order a pizza for three tonight', 'what is 12% of 480', 'call the plumber about the slow drain']) {
      expect((await client.identifyScenario(words, { ...PARIS, catalog })).scenario, words).toBeNull();
    }
  });

  it('a phrase the template recognises without a value is evidence (its other example)', async () => {
    const id = await client.identifyScenario('please make the eyes a little bigger', { ...PARIS, catalog });
    expect(id.scenario).toBe('photo_retouch');
    expect(id.mapping?.recognised).toBeGreaterThan(0);
  });

  it('other languages identify through their routes and counts', async () => {
    expect((await client.identifyScenario('从上海到广州，明天，三个人', { ...PARIS, catalog })).scenario).toBe('flight_booking');
    expect((await client.identifyScenario('von Köln nach Wien am Freitag, zwei Personen', { ...PARIS, catalog })).scenario).toBe('flight_booking');
  });
});

describe('glosses, inventory names and counts (glossary.ts, mapper.ts)', () => {
  it('words of other languages are read through their English glosses; other keeps the user\'s words', async () => {
    const fr = await map(photoRetouchTemplate, 'je veux des dents blanches et un filtre froid');
    expect(fr.payload).toMatchObject({ teeth_whitening: true, filter_style: 'cool' });
    const zh = await map(flightBookingTemplate, '从北京到广州，头等舱');
    expect(zh.payload).toMatchObject({ destination: 'CAN', cabin_class: 'first' });
    const es = await map(faultManagementTemplate, 'incidente INC-77: sitio 4401 fuera de servicio desde las 08:10, severidad menor, un perro ladra');
    expect(es.payload).toMatchObject({ incident_id: 'INC-77', severity: 'minor' });
    for (const o of es.other) expect('incidente INC-77: sitio 4401 fuera de servicio desde las 08:10, severidad menor, un perro ladra'.includes(o)).toBe(true);
  });

  it('an English sentence keeps its English words: a gloss that is also English waits for a word English lacks', async () => {
    const en = await map(faultManagementTemplate, 'INC-5: the mayor reports site 4401 down, a client called');
    expect(en.payload.severity).toBeUndefined();
    expect(JSON.stringify([en.payload, en.other])).toContain('mayor');
    expect((await map(flightBookingTemplate, 'Oslo to Rome, premier seats please')).payload.cabin_class).toBeUndefined();
    // "un peu" is "a little": an article is not the number one.
    expect((await map(photoRetouchTemplate, 'lisse un peu la peau')).payload.skin_smoothing).not.toBe(1);
    // Two-character forms name interfaces and technologies.
    const f = await map(faultManagementTemplate, 'INC-9: X2 link down, S1 alarms on BTS-77');
    expect(f.payload.affected_site_ids ?? []).not.toContain('S1');
  });

  it('an inventory name of capitals and digits is an affected site, a foreign number word beside a cue is a number', async () => {
    const f = await map(faultManagementTemplate, 'INC-20261126-0001 fan failure on RNC-12 at 10:00');
    expect(f.payload).toMatchObject({ incident_id: 'INC-20261126-0001', affected_site_ids: ['RNC-12'] });
    expect((await map(photoRetouchTemplate, 'Haut glätten Stufe sieben')).payload).toMatchObject({ skin_smoothing: 7 });
  });

  it('a count of tickets, seats or pax counts people; a count of bags does not', async () => {
    expect((await map(flightBookingTemplate, 'two tickets from Oslo to Rome')).payload).toMatchObject({ passenger_count: 2 });
    expect((await map(flightBookingTemplate, 'Oslo to Rome, 4 pax')).payload).toMatchObject({ passenger_count: 4 });
    expect((await map(flightBookingTemplate, 'Oslo to Rome with two bags')).payload.passenger_count).toBeUndefined();
  });
});

describe('calibrated confidence of enum values (draft-zhou §6.1 confidence thresholding)', () => {
  it('one word of a description\'s note on a value, uncued, reaches other instead of being sent', async () => {
    // fault_management's diagnosis_depth: "full (also run active tests …; slower)".
    const m = await map(faultManagementTemplate, 'the billing portal is slower than usual');
    expect(m.payload['diagnosis_depth']).toBeUndefined();
    expect(m.below_threshold.map((b) => [b.key, b.value])).toContainEqual(['diagnosis_depth', 'full']);
    expect(m.other.join(' ')).toContain('slower');
  });

  it('the same word beside a cue of the key, a synonym of the value, or the value itself is still sent', async () => {
    expect((await map(faultManagementTemplate, 'slower diagnosis please')).payload['diagnosis_depth']).toBe('full');
    expect((await map(faultManagementTemplate, 'dropped calls on the radio side')).payload['fault_domain']).toBe('wireless');
    expect((await map(faultManagementTemplate, 'a full check of site 4401')).payload['diagnosis_depth']).toBe('full');
  });

  it('a one-word gloss that names the value is sent; only the description\'s side notes are lowered', async () => {
    // "transport (optical or microwave transmission)", "ip_network (IP/MPLS routers and links)": names, not notes.
    expect((await map(faultManagementTemplate, 'optical alarms on site 4401')).payload['fault_domain']).toBe('transport');
    expect((await map(faultManagementTemplate, 'loss of signal on the optical line, critical')).payload['fault_domain']).toBe('transport');
    expect((await map(faultManagementTemplate, 'links flapping at site 4401')).payload['fault_domain']).toBe('ip_network');
    // "full (also run active tests such as loopback …; slower)": a clause about what the value does, and a note after ';'.
    const glosses = enumGlossSegments('Acceptable values: quick (correlate alarms), full (also run tests such as loopback; slower), x (aa, e.g. bb).', ['quick', 'full', 'x'], (w) => w === 'also');
    expect(glosses.get('quick')).toEqual([{ text: 'correlate alarms', note: false }]);
    expect(glosses.get('full')?.map((g) => g.note)).toEqual([true, true]);
    expect(glosses.get('x')).toEqual([{ text: 'aa', note: false }, { text: 'bb', note: true }]);
    expect(enumGlossSegments('x (y; z)', ['x']).get('x')).toBeUndefined();
    expect(enumGlossSegments('x (yy; zz, ww e.g. vv)', ['x']).get('x')).toEqual([
      { text: 'yy', note: false },
      { text: 'zz', note: true },
      { text: 'ww', note: true },
      { text: 'vv', note: true },
    ]);
  });
});
