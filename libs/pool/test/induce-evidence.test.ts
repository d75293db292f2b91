/**
 * draft-zhou §6.2.2 types and values from evidence, with the WordNet lexicon: calendar dates are a date string, an
 * identifier that sanitising split ("IMG_2041" → "IMG 2041") is still an identifier, and values are canonicalised
 * (a derived adjective is its noun's value, a grading adjective is not a value, a sister term of the head that the
 * values modify is the head). Each case is a general rule with made-up phrasings, none taken from an evaluation
 * stream.
 */
import { describe, expect, it } from 'vitest';
import { loadWordNetLexicon } from '@parley/embeddings';
import { induceKey, markDates, type Candidate, type InductionSample } from '@parley/evolution';

const lexicon = await loadWordNetLexicon();
let n = 0;
/** One phrasing said by `clients` distinct clients. */
const said = (text: string, clients: number): InductionSample => ({ text, count: clients, clients: Array.from({ length: clients }, () => `c${n++}`) });
function candidate(samples: InductionSample[]): Candidate {
  const r = induceKey(samples, undefined, { lexicon });
  if (!r.ok) throw new Error(r.reason);
  return r.candidate;
}

describe('markDates', () => {
  it('reads ISO dates, day and month either way round and the CJK form as one MM-DD token; leaves other numbers', () => {
    expect(markDates('leave on 2027-03-09')).toContain('date:03-09');
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
