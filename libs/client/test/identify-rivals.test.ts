import fc from 'fast-check';
import { SCENARIOS, faultManagementTemplate, flightBookingTemplate, photoRetouchTemplate } from '@parley/examples';
import { scenarioId } from '@parley/protocol';
import { describe, expect, it } from 'vitest';
import { createParleyClient, type Mapper, type ScenarioCatalog } from '../src/index';
import { strongKeys } from '../src/identify';
import { createOfflineMapper } from '../src/offline/index';
import { Lexicon } from '../src/offline/lexicon';

// Scenario identification against near misses (draft-zhou §6.1, Figure 1 step 2): a request naming a sister of the
// scenario's concept (WordNet sister terms through the nouns' acts), and one a template explains only by a date and
// its own vocabulary. Sentences of their own, not the bench's.
const client = createParleyClient('http://127.0.0.1:9', { mapper: createOfflineMapper() });
const catalog: ScenarioCatalog = {
  entries: SCENARIOS.map((s) => ({ scenario: scenarioId(s.template.scenario), agent: 'a', template: s.template, description: s.description, tags: s.tags, domain: s.domain })),
};
const REF = { today: '2026-11-26', timezone: 'Europe/Paris' };

async function lexicon(): Promise<Lexicon> {
  const { WordNet, defaultDictDir } = await import('@parley/embeddings');
  return new Lexicon(await WordNet.load({ dictDir: defaultDictDir() }));
}

describe('sister concepts', () => {
  it('another way to travel is a sister of a flight; the plane, the trip itself and a seat are not', async () => {
    const lex = await lexicon();
    for (const w of ['train', 'bus', 'car', 'taxi', 'ferry']) expect(lex.sisterOf(w, 'flight'), w).toBe(true);
    for (const w of ['flight', 'flights', 'plane', 'travel', 'seat', 'ticket', 'dog', 'hotel']) expect(lex.sisterOf(w, 'flight'), w).toBe(false);
    expect(lex.sisterOf('picture', 'photo')).toBe(false);
  });

  it('hostile words are no sister of anything and never throw', async () => {
    const lex = await lexicon();
    const hostile = ['__proto__', 'constructor', 'toString', 'hasOwnProperty', '\u0000train', 'train\u0000', '\ud800', 'a'.repeat(1 << 20), '(a+)+'.repeat(1000), ''];
    for (const w of hostile) {
      expect(lex.sisterOf(w, 'flight')).toBe(false);
      expect(lex.sisterOf('train', w)).toBe(false);
    }
    fc.assert(fc.property(fc.string({ unit: 'binary', maxLength: 60 }), (w) => typeof lex.sisterOf(w, 'flight') === 'boolean'));
  });
});

describe('identification of near misses', () => {
  it('a request for a sister of the scenario\'s concept is no scenario; the concept itself still is', async () => {
    const cases: [string, string | null][] = [
      ['book a bus from Boston to Denver on Friday for two', null],
      ['a taxi from Rome to Naples tomorrow for three people', null],
      ['book a flight from Boston to Denver on Friday for two, aisle seat and extra baggage', 'flight_booking'],
      ['a seat on a plane from Rome to Naples tomorrow, three people', 'flight_booking'],
    ];
    for (const [words, scenario] of cases) {
      const id = await client.identifyScenario(words, { ...REF, catalog });
      expect(id.scenario, words).toBe(scenario);
    }
    const m = await client.mapUtterance(flightBookingTemplate, 'book a bus from Boston to Denver on Friday', REF);
    expect(m.rivals).toEqual(['bus']);
  });

  it('a template that explains the words only through a date and its own vocabulary does not win', async () => {
    const id = await client.identifyScenario('set an alarm for half past six', { ...REF, catalog });
    expect(id.scenario).toBeNull();
    const real = await client.identifyScenario('site 4410 has been down since 06:30, link down alarm', { ...REF, catalog });
    expect(real.scenario).toBe('fault_management');
  });

  it('rivals a mapper reports are kept only as a short list of short strings', async () => {
    const reported: unknown[] = ['bus', 5, null, '', 'x'.repeat(65), '__proto__', ...Array.from({ length: 40 }, (_, i) => `w${i}`)];
    const mapper: Mapper = { id: 'fixed', map: async () => ({ values: new Map(), other: [], rivals: reported as string[] }) };
    const m = await createParleyClient('http://127.0.0.1:9', { mapper }).mapUtterance(flightBookingTemplate, 'anything', REF);
    expect(m.rivals?.length).toBe(16);
    expect(m.rivals?.slice(0, 2)).toEqual(['bus', '__proto__']);
    expect(m.rivals?.every((w) => typeof w === 'string' && w.length > 0 && w.length <= 64)).toBe(true);
    for (const bad of [undefined, 'bus', { length: 3 }, []]) {
      const bm: Mapper = { id: 'fixed', map: async () => ({ values: new Map(), other: [], rivals: bad as string[] }) };
      const out = await createParleyClient('http://127.0.0.1:9', { mapper: bm }).mapUtterance(flightBookingTemplate, 'anything', REF);
      expect(out).not.toHaveProperty('rivals');
    }
  });

  it('a hostile scenario name is read as concept words without pollution or blow-up', async () => {
    for (const scenario of ['__proto___constructor', 'toString_flight', `x_${'a'.repeat(120)}`, `bus_${'_'.repeat(100)}`, 'train\u0000_flight', '\ud800_bus']) {
      const template = { ...flightBookingTemplate, scenario };
      const m = await client.mapUtterance(template, 'a bus from Boston to Denver on Friday', REF);
      expect(m.payload['origin']).toBe('Boston');
      expect(Object.getPrototypeOf({})).toBe(Object.prototype);
      expect(m.rivals === undefined || m.rivals.every((w) => typeof w === 'string')).toBe(true);
    }
    // A 1 MiB scenario name is no template at all: a typed refusal before any word is read.
    await expect(client.mapUtterance({ ...flightBookingTemplate, scenario: `x_${'a'.repeat(1 << 20)}` }, 'a bus', REF)).rejects.toMatchObject({ type: 'template_invalid' });
  });
});

describe('the concept said', () => {
  it('the concept spelled or inflected names it; a synonym only when the concept is its own first sense', async () => {
    const lex = await lexicon();
    expect(lex.nounSynonyms('photo')).toEqual(expect.arrayContaining(['photo', 'photograph', 'picture', 'pic']));
    for (const [w, concept] of [['photos', 'photo'], ['flights', 'flight'], ['Flight', 'flight'], ['faults', 'fault']] as const) expect(lex.namesConcept(w, concept), w).toBe('spelled');
    for (const [w, concept] of [['photographs', 'photo'], ['error', 'fault']] as const) expect(lex.namesConcept(w, concept), w).toBe('synonym');
    // First senses reach far: a picture is first an image, a pic a movie, exposure, engagement and direction other things.
    for (const [w, concept] of [['book', 'booking'], ['fly', 'flight'], ['train', 'flight'], ['photographer', 'photo'], ['picture', 'photo'], ['pics', 'photo'], ['exposure', 'photo'], ['engagement', 'booking'], ['directions', 'management']] as const) {
      expect(lex.namesConcept(w, concept), w).toBeUndefined();
    }
    for (const w of ['__proto__', 'constructor', '\u0000', '\ud800', 'a'.repeat(1 << 16), '']) {
      expect(lex.namesConcept(w, 'photo')).toBeUndefined();
      expect(lex.namesConcept('photo', w)).toBeUndefined();
    }
  });

  it('far synonyms and a name word used as a verb are no name evidence', async () => {
    for (const words of ['a picture of my dog', 'exposure to the sun']) expect((await client.identifyScenario(words, { ...REF, catalog })).scenario, words).toBeNull();
    // "error" is fault's own first sense: weak evidence, no longer the name's weight (it scored 0.406).
    const err = await client.identifyScenario('there is an error in my engagement calendar', { ...REF, catalog });
    expect(err.ranking.find((r) => r.scenario === 'fault_management')?.score ?? 1).toBeLessThan(0.35);
    const dir = await client.identifyScenario('directions to the station please', { ...REF, catalog });
    expect(dir.ranking.find((r) => r.scenario === 'fault_management')?.score ?? 1).toBeLessThanOrEqual(0.4);
    expect((await client.mapUtterance(faultManagementTemplate, 'give me directions from Paris to Lyon on Friday', REF)).named).toBeUndefined();
    expect((await client.mapUtterance(photoRetouchTemplate, 'picture this: a bus from Boston to Denver', REF)).namedBySynonym).toBeUndefined();
    expect((await client.mapUtterance(photoRetouchTemplate, 'photograph the kids', REF)).namedBySynonym).toBeUndefined();
  });

  it('a sister that is itself the request\'s head is not silenced by the concept said beside it', async () => {
    for (const words of [
      'not a flight, book a train from Paris to Lyon on Friday',
      'I missed my flight, so book a train from Paris to Lyon on Friday',
      'flights are cancelled, get me a bus from Boston to Denver on Friday for two',
      'instead of a flight, two bus tickets from Boston to Denver',
    ]) {
      expect((await client.mapUtterance(flightBookingTemplate, words, REF)).rivals, words).toBeDefined();
      expect((await client.identifyScenario(words, { ...REF, catalog })).scenario, words).toBeNull();
    }
    expect((await client.identifyScenario('the trains are on strike, get me a flight from Paris to Lyon on Friday', { ...REF, catalog })).scenario).toBe('flight_booking');
  });

  it('a sister said beside the concept itself is context: the request is still the scenario\'s', async () => {
    const m = await client.mapUtterance(flightBookingTemplate, 'the buses are not running so book a flight from Boston to Denver on Friday', REF);
    expect(m.rivals).toBeUndefined();
    expect(m.named).toEqual(['flight']);
    const id = await client.identifyScenario('the buses are not running so book a flight from Boston to Denver on Friday', { ...REF, catalog });
    expect(id.scenario).toBe('flight_booking');
    // Without the concept, the sister still counts against it.
    const bus = await client.mapUtterance(flightBookingTemplate, 'book a bus from Boston to Denver on Friday', REF);
    expect(bus.rivals).toEqual(['bus']);
    expect(bus.named).toBeUndefined();
  });

  it('a synonym of the scenario\'s name at the request\'s head is weak name evidence, beside the template\'s own', async () => {
    const m = await client.mapUtterance(photoRetouchTemplate, 'photographs of my kids, blur the background', REF);
    expect(m.named).toBeUndefined();
    expect(m.namedBySynonym).toEqual(['photo']);
    const withName = await client.identifyScenario('photographs of my kids, brighten them a little', { ...REF, catalog });
    const without = await client.identifyScenario('my kids, brighten them a little', { ...REF, catalog });
    const spelled = await client.identifyScenario('photos of my kids, brighten them a little', { ...REF, catalog });
    const score = (id: typeof withName) => id.ranking.find((r) => r.scenario === 'photo_retouch')?.score ?? 0;
    expect(score(withName)).toBeGreaterThan(score(without));
    expect(score(spelled)).toBeGreaterThan(score(withName));
  });

  it('a mapper\'s named words count only when they are words of the scenario\'s name', async () => {
    for (const named of [['banana'], ['photo'], ['__proto__', 'retouch']]) {
      const mapper: Mapper = { id: 'x', map: async (ctx) => ({ values: new Map(), other: [ctx.utterance], explained: 0.3, named, namedBySynonym: named }) };
      const c = createParleyClient('http://127.0.0.1:9', { mapper });
      const m = await c.mapUtterance(photoRetouchTemplate, 'order me a pizza', REF);
      const kept = named.filter((w) => ['photo', 'retouch'].includes(w));
      expect(m.named ?? []).toEqual(kept);
      expect(m.namedBySynonym ?? []).toEqual(kept);
    }
    const banana: Mapper = { id: 'x', map: async (ctx) => ({ values: new Map(), other: [ctx.utterance], explained: 0.3, ...(ctx.template.scenario === 'photo_retouch' ? { named: ['banana'] } : {}) }) };
    const id = await createParleyClient('http://127.0.0.1:9', { mapper: banana }).identifyScenario('order me a pizza', { ...REF, catalog });
    expect(new Set(id.ranking.map((r) => r.score)).size).toBe(1);
  });
});

describe('a sister beside strong evidence', () => {
  it('two values under the template\'s own enum or pattern outweigh a sister; cities, a date and a count do not', async () => {
    const strong = 'breakdown of the base stations at sites 201 and 202, incident INC-77, severity major';
    const m = await client.mapUtterance(faultManagementTemplate, strong, REF);
    expect(m.rivals).toEqual(['breakdown']);
    expect(strongKeys(faultManagementTemplate, m)).toBeGreaterThanOrEqual(2);
    expect((await client.identifyScenario(strong, { ...REF, catalog })).scenario).toBe('fault_management');
    // One enum value (a bus has a business class too) is not enough.
    const bus = 'a bus from Boston to Denver, business class, for two';
    expect(strongKeys(flightBookingTemplate, await client.mapUtterance(flightBookingTemplate, bus, REF))).toBe(1);
    expect((await client.identifyScenario(bus, { ...REF, catalog })).scenario).toBeNull();
  });

  it('a value the validator refuses is not strong evidence', async () => {
    const m = await client.mapUtterance(faultManagementTemplate, 'breakdown at sites 201 and 202, incident INC-77, severity major', REF);
    expect(strongKeys(faultManagementTemplate, m)).toBeGreaterThanOrEqual(2);
    const refused = { ...m, violations: Object.keys(m.confidence).map((k) => ({ path: `payload.${k}`, rule: 'enum', message: 'refused' })) };
    expect(strongKeys(faultManagementTemplate, refused)).toBe(0);
  });
});

describe('the noun a modifier qualifies is the request\'s head too', () => {
  it('"a first class train", "two bus tickets": a sister after an enum value or a count; not the verb after a name', async () => {
    for (const words of ['book a first class train from Paris to Lyon', 'two bus tickets from Boston to Denver']) {
      expect((await client.identifyScenario(words, { ...REF, catalog })).scenario, words).toBeNull();
    }
    expect((await client.mapUtterance(flightBookingTemplate, 'book a first class train from Paris to Lyon', REF)).rivals).toEqual(['train']);
    expect((await client.identifyScenario('a business class flight from Paris to Rome', { ...REF, catalog })).scenario).toBe('flight_booking');
    expect((await client.mapUtterance(flightBookingTemplate, 'flying out of Beijing heading to Guangzhou', REF)).rivals).toBeUndefined();
  });

  it('a request verb said negated opens no head, and the concept at the head makes every other word context', async () => {
    // "take" negated asks for nothing; photos meet the booking act at "record", but the flight is the request.
    const words = 'my phone died so I will not take photos on this holiday, anyway book a flight from Boston to Denver on Friday';
    const m = await client.mapUtterance(flightBookingTemplate, words, REF);
    expect(m.rivals).toBeUndefined();
    expect((await client.identifyScenario(words, { ...REF, catalog })).scenario).toBe('flight_booking');
    // The sister of a negated request is still no head; the request's own head still counts against the scenario.
    const negated = "don't book a flight, I'd rather take a train from Boston to Denver on Friday";
    expect((await client.mapUtterance(flightBookingTemplate, negated, REF)).rivals).toEqual(['train']);
    expect((await client.identifyScenario(negated, { ...REF, catalog })).scenario).toBeNull();
  });

  it('when every request verb is negated nothing is asked for: no head falls back to the opening words', async () => {
    for (const words of ['never book flights for me', 'I never take photos']) {
      expect((await client.identifyScenario(words, { ...REF, catalog })).scenario, words).toBeNull();
    }
    // Negation read over "want to": the refused flight counts less against the photo request than before (0.27).
    const mixed = await client.identifyScenario("I don't want to book a flight, whiten the teeth on my photo", { ...REF, catalog });
    expect(mixed.scenario).toBe('photo_retouch');
    expect(mixed.ranking.find((r) => r.scenario === 'flight_booking')?.score ?? 0).toBeLessThan(0.15);
    // A request said plainly keeps its head.
    expect((await client.identifyScenario('book a flight from Paris to Rome on friday', { ...REF, catalog })).scenario).toBe('flight_booking');
  });
});
