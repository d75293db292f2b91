/**
 * draft-zhou §6.2.2 types and values from evidence, with the WordNet lexicon: calendar dates are a date string, an
 * identifier that sanitising split ("IMG_2041" → "IMG 2041") is still an identifier, and values are canonicalised
 * (a derived adjective is its noun's value, a grading adjective is not a value, a sister term of the head that the
 * values modify is the head). Each case is a general rule with made-up phrasings, none taken from an evaluation
 * stream.
 */
import { describe, expect, it } from 'vitest';
import { induceKey, markDates, type Candidate } from '@parley/evolution';
import { lexicon, said, candidate } from './induction-fixture';


describe('markDates', () => {
  it('reads ISO dates, day and month either way round and the CJK form as one MM-DD token; leaves other numbers', () => {
    expect(markDates('leave on 2027-03-09')).toContain('date:2027-03-09');
    expect(markDates('the 5th of June please')).toContain('date:06-05');
    expect(markDates('Sept 30 works')).toContain('date:09-30');
    expect(markDates('4月1日出发')).toContain('date:04-01');
    expect(markDates('two bags, 23 kilos, at 14:30')).toBe('two bags, 23 kilos, at 14:30');
    // No such day: left as written.
    expect(markDates('on 45 March')).toBe('on 45 March');
  });
});

describe('types from evidence (zhou §6.2.2)', () => {
  it('dates said in different forms by distinct clients are a string with format date, never a number', () => {
    const c = candidate([
      said('checkout on 12 March', 3),
      said('we check out March 14', 2),
      said('checkout 2027-03-20', 2),
      said('leaving the hotel on the 2nd of April', 2),
      said('checkout day is 9 April', 3),
    ]);
    expect(c.key).toMatchObject({ key_type: 'string', format: 'date' });
    expect(c.key.key_name.endsWith('_date')).toBe(true);
  });

  it('codes that sanitising split at the underscore are still identifiers: several a fragment make a list', () => {
    const c = candidate([
      said('scan pages PG_1042 and PG_1043', 3),
      said('only PG_2201, PG_2207 please', 2),
      said('the pages PG_0033 PG_0040 PG_0041', 3),
      said('redo PG_7781 and PG_7790', 2),
    ]);
    expect(c.key).toMatchObject({ key_type: 'array', items_type: 'string' });
  });
});

describe('values canonicalised (zhou §6.2.2)', () => {
  it('a derived adjective is its noun value; a sister term of the head that values modify is the head', () => {
    const c = candidate([
      said('the west sector is down', 3),
      said('western sector, again', 2),
      said('it is the east sector', 3),
      said('eastern sector problems', 2),
      said('trouble in the eastern zone', 2),
      said('the western zone is dark', 2),
    ]);
    expect(c.key.key_type).toBe('string');
    expect([...(c.key.enum ?? [])].sort()).toEqual(['east', 'west']);
  });

  it('an adjective that grades another (pale blue, deep blue) is not a value: the graded one is', () => {
    const c = candidate([
      said('a pale blue wall', 3),
      said('a deep blue wall', 2),
      said('a green wall', 3),
      said('green wall for the nursery', 2),
      said('the yellow wall', 3),
      said('yellow wall please', 2),
    ]);
    expect(c.key.enum ?? []).not.toContain('pale');
    expect(c.key.enum ?? []).not.toContain('deep');
    expect(c.key.enum ?? []).toEqual(expect.arrayContaining(['blue', 'green', 'yellow']));
  });
});

describe('names as alternatives (zhou §6.2.2)', () => {
  it('makers named by distinct clients, one a fragment, are a choice among them; a maker never names the key', () => {
    const c = candidate([
      said('the printer is a Brother', 3),
      said('Brother printer on the second floor', 2),
      said('we have a Canon here', 3),
      said('it is an old Canon printer', 2),
      said('an Epson in the office', 3),
    ]);
    expect(c.key.key_type).toBe('string');
    expect([...(c.key.enum ?? [])].sort()).toEqual(['brother', 'canon', 'epson']);
    for (const v of ['brother', 'canon', 'epson']) expect(c.key.key_name.split('_')).not.toContain(v);
  });

  it('one name said by many clients is no choice: the need stays what it was', () => {
    const c = candidate([said('the printer is a Canon', 4), said('our Canon is jammed', 3), said('paper jam in the Canon', 3)]);
    expect(c.key.enum).toBeUndefined();
  });
});

describe('an unnamed cluster of several needs (zhou §6.2.2)', () => {
  it('phrasings in another language that share no word are no intent yet; ones that share a word are one', () => {
    const mixed = induceKey([said('счёт на имя компании', 3), said('место у прохода', 3), said('прибытие до полудня', 2)], undefined, { lexicon });
    expect(mixed.ok).toBe(false);
    const one = induceKey([said('нужен счёт', 3), said('счёт на компанию', 3), said('пришлите счёт почтой', 2)], undefined, { lexicon });
    expect(one.ok).toBe(true);
  });
});

describe('dates only where a date is written (zhou §6.2.2, types from evidence)', () => {
  it('"may", "march" in ordinary words are no month; a capital or an ordinal day makes them one', () => {
    expect(markDates('the 2 may be late')).toBe('the 2 may be late');
    expect(markDates('may 10 people join')).toBe('may 10 people join');
    expect(markDates('we march 5 miles')).toBe('we march 5 miles');
    expect(markDates('on 12 May')).toContain('date:05-12');
    expect(markDates('the 2nd of may')).toContain('date:05-02');
  });

  it('a date shape inside an identifier or a phone number is no date; an impossible day is none either', () => {
    for (const t of ['INC-2024-11-05', 'ticket RMA-2025-10-17 open', 'call 0800-12-12', 'on 31 February', 'Feb 30', 'the 31 April', 'on 2027-02-29']) expect(markDates(t)).toBe(t);
    expect(markDates('on 2028-02-29')).toContain('date:2028-02-29');
  });

  it('a count said beside "may" stays a count; identifiers holding a date shape stay a list', () => {
    const wheelchairs = candidate([said('the 2 may arrive late', 3), said('3 may need wheelchairs', 3), said('wheelchair for 2', 3), said('wheelchair assistance for 3 people', 3)]);
    expect(wheelchairs.key.key_type).toBe('integer');
    expect(wheelchairs.key.format).toBeUndefined();
    const tickets = candidate([said('related tickets RMA-2025-10-17 and RMA-2025-10-18', 3), said('link tickets RMA-2025-11-02, RMA-2025-11-03', 3), said('tickets RMA-2025-09-30 RMA-2025-10-01', 3)]);
    expect(tickets.key.key_type).toBe('array');
  });

  it('a date key says it is a calendar date and maps the dates clients gave, never a clock time', () => {
    const c = candidate([said('checkout on 12 March', 3), said('we check out March 14', 2), said('checkout 2027-03-20', 2), said('checkout day is 9 April', 3)]);
    expect(c.key.format).toBe('date');
    expect(c.key.semantic_description).toContain('calendar date YYYY-MM-DD');
    expect(c.key.semantic_description).not.toContain('HH:MM');
    expect(c.fragments_used).toBeGreaterThan(0);
    expect(c.examples.map((e) => e.value)).toContain('--03-12');
    expect(c.values.map((v) => v.value)).toContain('2027-03-20');
  });
});

describe('capitals before a number are words (zhou §6.2.2)', () => {
  it('a shouted count and a currency code stay a count and a price; an underscored code stays one identifier', () => {
    const copies = candidate([said('I NEED 300 COPIES of the flyer', 3), said('need 200 copies', 3), said('500 copies please', 3)]);
    expect(copies.key.key_type).toBe('integer');
    const budget = candidate([said('budget USD 500 max', 3), said('no more than 400 dollars', 3), said('max 300 USD', 3)]);
    expect(budget.key.key_type).toBe('number');
    const pages = candidate([said('scan pages PG_1042 and PG_1043', 3), said('pages PG_2201, PG_2207 please', 3)]);
    expect(pages.key.key_type).toBe('array');
  });
});

describe('canonical values keep every value said (zhou §6.2.2)', () => {
  it('a value clients also say alone is not folded into its neighbour', () => {
    const c = candidate([
      said('north east region down', 3), said('north east region again', 2), said('the north region', 2),
      said('east region', 3), said('east region outage', 2), said('south region', 3), said('south region', 2),
    ]);
    expect([...(c.key.enum ?? [])].sort()).toEqual(['east', 'north', 'south']);
  });

  it('an adjective whose noun is no adjective is its own value: "formal" is never published as "form"', () => {
    const c = candidate([said('formal dress code', 3), said('formal dress code please', 2), said('casual dress code', 3), said('casual dress code today', 2), said('form dress code', 2)]);
    expect(c.key.enum ?? []).toContain('formal');
    expect(c.key.enum ?? []).toContain('casual');
  });
});

describe('Korean and Chinese clusters (zhou §6.2.2)', () => {
  it('short Hangul and Han words, spaced or not, are shared words: the cluster gets its key', () => {
    expect(induceKey([said('창가 좌석 주세요', 3), said('창가 좌석 원해요', 3)], undefined, { lexicon }).ok).toBe(true);
    expect(induceKey([said('靠窗 座位 谢谢', 3), said('靠窗 座位 请', 3)], undefined, { lexicon }).ok).toBe(true);
    expect(induceKey([said('我需要靠窗的座位', 3), said('请给我靠窗座位', 3), said('靠窗座位谢谢', 2)], undefined, { lexicon }).ok).toBe(true);
  });

  it('in a script without spaces a cluster that shares no unit is refused only until unshared_max_clients stand behind it', () => {
    const few = [said('ขอที่นั่งริมหน้าต่าง', 3), said('อยากได้ที่นั่งติดกระจก', 3)];
    expect(induceKey(few, undefined, { lexicon }).ok).toBe(false);
    const grown = [said('ขอที่นั่งริมหน้าต่าง', 12), said('อยากได้ที่นั่งติดกระจก', 12)];
    expect(induceKey(grown, undefined, { lexicon }).ok).toBe(true);
    // Spaced words the word test reads: several needs however many clients.
    const mixed = [said('счёт на имя компании', 9), said('место у прохода', 9), said('прибытие до полудня', 8)];
    expect(induceKey(mixed, undefined, { lexicon }).ok).toBe(false);
  });
});

describe('people are never values (zhou §7)', () => {
  const noNames = (c: Candidate, names: string[]): void => {
    for (const v of names) {
      expect(c.key.enum ?? []).not.toContain(v);
      expect(c.key.key_name.split('_')).not.toContain(v);
    }
  };
  it('a name beside a person noun, after a title or after a verb of addressing is no value', () => {
    noNames(candidate([said('the engineer should be Peter', 3), said('engineer Peter again', 2), said('engineer Maria please', 3), said('we want Maria as engineer', 2)]), ['peter', 'maria']);
    noNames(candidate([said('booking for Mr Schmidt', 3), said('Schmidt family booking', 2), said('booking for Mrs Novak', 3), said('the Novak booking', 2)]), ['schmidt', 'novak', 'mr', 'mrs']);
    const sent = induceKey([said('please send Peter again', 3), said('Peter knows the site', 2), said('ask for Maria at the gate', 3), said('Maria has the keys', 2)], undefined, { lexicon });
    if (sent.ok) noNames(sent.candidate, ['peter', 'maria']);
  });

  it('a capital that starts a sentence is no name', () => {
    const c = candidate([said('ok. Mother needs wheelchair', 3), said('fine. Father needs wheelchair', 3), said('yes. Mother needs a wheelchair', 2)]);
    noNames(c, ['mother', 'father']);
  });

  it('names no context shows to be a person still wait for an operator', () => {
    const c = candidate([said('the printer is a Brother', 3), said('Brother printer on the second floor', 2), said('we have a Canon here', 3), said('an Epson in the office', 3)]);
    expect(c.key.enum ?? []).toEqual(expect.arrayContaining(['brother', 'canon']));
    expect((c.review ?? []).join(' ')).toContain("person's name");
  });
});
