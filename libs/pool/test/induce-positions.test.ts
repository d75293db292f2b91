/**
 * draft-zhou §6.2.2 names from concepts, types from evidence: a number that labels its noun ("gate 5", "the 3rd
 * gate") is an integer `<noun>_number`, or the attribute itself when WordNet files the noun as one ("temperature
 * 21"); "N times" counts occurrences; "one" after a determiner ("the last one") is no numeral. Made-up phrasings,
 * none taken from an evaluation stream.
 */
import { describe, expect, it } from 'vitest';
import { candidate, said } from './induction-fixture';

describe('a number after its noun, or an ordinal before it, labels the noun', () => {
  it('cardinals after the noun and ordinals before it: gate_number, an integer', () => {
    const c = candidate([said('we board at gate 5', 3), said('the 3rd gate on the left', 3), said('second gate please', 2), said('gate twelve, near the shops', 2)]);
    expect(c.key).toMatchObject({ key_name: 'gate_number', key_type: 'integer' });
    expect(c.values.map((v) => v.value).sort()).toEqual([12, 2, 3, 5].sort());
  });

  it('a noun WordNet files as an attribute is named by itself: temperature', () => {
    const c = candidate([said('room temperature 21 please', 3), said('keep it at temperature 19 at night', 3), said('temperature 23 for the baby', 2)]);
    expect(c.key).toMatchObject({ key_name: 'temperature', key_type: 'integer' });
  });

  it('a participle of an attribute verb states that attribute: "aged 4" is age 4', () => {
    const c = candidate([said('our dog, aged 4, rides along', 3), said('a cat aged 9 in the cabin', 3), said('the puppy is aged 1', 2)]);
    expect(c.key).toMatchObject({ key_name: 'age', key_type: 'integer' });
  });

  it('a noun of another clause labels nothing ("the hotel, 3 nights"): no hotel_number', () => {
    const c = candidate([said('book the hotel, 3 nights', 3), said('hotel please, four nights', 3), said('the hotel, 2 nights', 2)]);
    expect(c.key.key_name).not.toBe('hotel_number');
    expect(c.key.key_type).toBe('integer');
  });

  it('nor does it when nothing counted follows the number ("the hotel, 3 of us"): no hotel_number', () => {
    const r = candidate([said('we love the hotel, 3 of us', 3), said('great hotel, 4 of us travel', 3), said('the hotel, 2 of us', 2)]);
    expect(r.key.key_name).not.toBe('hotel_number');
  });

  it('a noun the number counts after it ("bay 2 trucks") is no label: no bay_number', () => {
    const c = candidate([said('loading bay 2 trucks', 3), said('bay 4 trucks today', 3), said('bay 3 trucks tomorrow', 2)]);
    expect(c.key.key_name).not.toBe('bay_number');
  });

  it('one value is no position ("first class" only): no class_number', () => {
    const c = candidate([said('first class please', 3), said('a first class seat', 3), said('first class on the way back', 2)]);
    expect(c.key.key_name).not.toBe('class_number');
  });
});

describe('"N times" counts occurrences', () => {
  it('the multiplicative names an occurrence_count, not time_count', () => {
    const c = candidate([said('the printer jammed 4 times', 3), said('it beeped three times today', 3), said('crashed 2 times since noon', 2)]);
    expect(c.key).toMatchObject({ key_name: 'occurrence_count', key_type: 'integer' });
  });
});

describe('"N times" before a comparative is a factor, no count of occurrences', () => {
  it('"three times more expensive", "2 times faster", "4 times cheaper": no occurrence_count', () => {
    const c = candidate([said('three times more expensive', 3), said('it is 2 times faster', 3), said('4 times cheaper', 2)]);
    expect(c.key.key_name).not.toBe('occurrence_count');
  });

  it('"3 times over the weekend", "2 times per day" stay occurrences', () => {
    const c = candidate([said('it failed 3 times over the weekend', 3), said('failed 2 times per day', 3), said('failed 4 times', 2)]);
    expect(c.key.key_name).toBe('occurrence_count');
  });
});

describe('"one" after a determiner stands for a noun and counts nothing', () => {
  it('"before the last one" leaves the cluster one number a fragment: draft_count', () => {
    const c = candidate([said('send me 3 drafts before the last one', 4), said('I want 2 drafts, then the best one', 4)]);
    expect(c.key).toMatchObject({ key_name: 'draft_count', key_type: 'integer' });
    expect(c.values.map((v) => v.value).sort()).toEqual([2, 3]);
  });

  it('"only one", "at least one" stay numerals', () => {
    const c = candidate([said('only one draft please', 4), said('at least one draft', 4), said('4 drafts would be great', 2)]);
    expect(c.key).toMatchObject({ key_name: 'draft_count', key_type: 'integer' });
    expect(c.values.map((v) => v.value)).toContain(1);
  });
});

describe('a duration said with a fraction of its unit is kept in the next finer unit', () => {
  it('"two and a half hours", "half an hour", "3 hours": layover_minutes with 150, 30 and 180', () => {
    const c = candidate([said('the layover can be two and a half hours', 3), said('a layover of half an hour please', 3), said('a 3 hours layover at most', 2)]);
    expect(c.key).toMatchObject({ key_name: 'layover_minutes', key_type: 'integer' });
    expect(c.values.map((v) => v.value).sort()).toEqual([150, 180, 30]);
  });

  it('whole hours stay hours: layover_hours', () => {
    const c = candidate([said('the layover can be two hours', 3), said('a layover of 4 hours please', 3), said('a 3 hours layover at most', 2)]);
    expect(c.key).toMatchObject({ key_name: 'layover_hours', key_type: 'integer' });
  });
});

describe('a window is named by what the fragments stating it say beside its head', () => {
  it('"blackout window" though others of the cluster say "the window of the van": blackout_window', () => {
    const c = candidate([
      said('blackout window 01:00 to 03:00', 2),
      said('blackout window 02:00-04:00', 2),
      said('only in the blackout window 03:00 to 05:00', 1),
      said('the window of the van is cracked', 4),
    ]);
    expect(c.key).toMatchObject({ key_name: 'blackout_window', key_type: 'string' });
  });
});

describe('"N by M" is a proportion', () => {
  it('"a 2 by 1 banner", "3 by 1": a W:H string, values 2:1 and 3:1', () => {
    const c = candidate([said('banner in 3 by 1 please', 3), said('a 2 by 1 banner', 3), said('3 by 1 banner for the stand', 2)]);
    expect(c.key.key_type).toBe('string');
    expect(c.key.pattern).toBe('^[1-9][0-9]?:[1-9][0-9]?$');
    expect(c.values.map((v) => v.value).sort()).toEqual(['2:1', '3:1']);
  });

  it('"by" after a number with no number after it is no proportion ("cut it by 5 percent")', () => {
    const c = candidate([said('cut the price by 5 percent', 3), said('lower it by 10 percent', 3), said('drop by 15 percent please', 2)]);
    expect(c.key.key_type).not.toBe('string');
  });
});

const names = (c: { values: readonly { value: unknown }[] }): unknown[] => c.values.map((v) => v.value);

describe('"N by M" is no proportion when it is a deadline, a time, two dimensions or a fixed "4 by 4"', () => {
  it.each([
    ['a table for 4 by 8 tonight', 'table for 2 by 7', 'a table for 6 by 9 please'],
    ['finish 3 by 5', 'deliver 2 by 6', 'send 10 by 4 pm'],
    ['page 3 by 5 pm', 'page 4 by 6 pm', 'page 2 by 7 pm'],
    ['rent a 4 by 4 car', 'I need a 4 by 4', 'a 4 by 4 for the mountains'],
    ['a table 2 by 3 meters', 'room 4 by 5 metres', 'a 3 by 3 rug'],
    ['a rug 10 by 12 feet', 'rug 8 by 10', 'a rug 6 by 9 feet please'],
    ['a 10 by 12 feet rug', 'a 6 by 9 feet rug', 'an 8 by 10 ft rug'],
    ['ready, 3 by 5 pm', 'done, 2 by 6 pm', 'finished, 4 by 7 pm'],
  ])('%s / %s / %s: no ratio', (a, b, d) => {
    const c = candidate([said(a, 3), said(b, 3), said(d, 2)]);
    expect(c.key.pattern ?? '').not.toContain(':');
    expect(names(c).some((v) => typeof v === 'string' && v.includes(':'))).toBe(false);
  });

  it('standing alone after a comma it is one: "crop it, 9 by 16"', () => {
    const c = candidate([said('crop for a story post, 9 by 16', 3), said('crop it, 9 by 16', 3), said('crop it please, 9 by 16', 2)]);
    expect(c.key.pattern).toBe('^[1-9][0-9]?:[1-9][0-9]?$');
  });
});

describe('positions: only the winning noun, no fixed ordinal compounds, no label said in passing, no plural label', () => {
  it('the values are the label noun\'s only ("step 3" is no page): page_number [2, 4]', () => {
    const c = candidate([said('on page 4 of the form', 3), said('page 2 has an error', 3), said('step 3 fails', 2)]);
    expect(c.key).toMatchObject({ key_name: 'page_number', key_type: 'integer' });
    expect(names(c).sort()).toEqual([2, 4]);
  });

  it('a noun labelled by less than half the readings names nothing (gate 3, room 3, platform 2 of 8)', () => {
    const c = candidate([said('gate 5', 2), said('gate 7 now', 1), said('room 101', 2), said('room 12 please', 1), said('platform 9', 2)]);
    expect(c.key.key_name).not.toMatch(/_number$/);
  });

  it.each([
    ['first class please', 'second class is fine', 'first class if cheap'],
    ['a second hand car', 'first hand experience', 'second hand car please'],
    ['third party insurance', 'first party claims', 'third party cover'],
    ['my first choice is Rome', 'second choice Paris', 'first choice Rome'],
    ['this is my first time flying', 'second time traveling with you', 'first time here'],
  ])('an ordinal in a fixed pair is no position: %s / %s / %s', (a, b, d) => {
    const c = candidate([said(a, 3), said(b, 3), said(d, 2)]);
    expect(c.key.key_name).not.toMatch(/_number$/);
    expect(c.key.key_type).not.toBe('integer');
  });

  it('the ordinal multiplicative is no position though "time" is also labelled ("time 3"): no time_number', () => {
    const c = candidate([said('first time flying with you', 3), said('second time flying', 3), said('this is time 3 on this route', 2)]);
    expect(c.key.key_name).not.toBe('time_number');
  });

  it('an ordinal is a position when the cluster also labels the noun with a cardinal: floor_number', () => {
    const c = candidate([said('the 3rd floor', 3), said('floor 12', 3), said('second floor', 2)]);
    expect(c.key).toMatchObject({ key_name: 'floor_number', key_type: 'integer' });
    expect(names(c).sort((x, y) => Number(x) - Number(y))).toEqual([2, 3, 12]);
  });

  it.each([
    ['arriving terminal 2, need 3 nights', 'terminal 5 then 4 nights', '2 nights please', 'terminal_number'],
    ['on flight 345 with 2 bags', 'flight 120, 3 bags', '4 bags', 'flight_number'],
  ])('a label beside another number does not take the cluster: %s / %s / %s', (a, b, d, no) => {
    const c = candidate([said(a, 3), said(b, 3), said(d, 2)]);
    expect(c.key.key_name).not.toBe(no);
  });

  it('a plural before a number is a count: passenger_count [2, 3, 4]', () => {
    const c = candidate([said('passengers 3', 3), said('passengers: 4', 3), said('we are 2 passengers', 2)]);
    expect(c.key).toMatchObject({ key_name: 'passenger_count', key_type: 'integer' });
    expect(names(c).sort()).toEqual([2, 3, 4]);
  });

  it('"was" and "has" after the number are verbs, not counted plurals: room 12 and version 3 are read', () => {
    const r = candidate([said('room 12 was noisy', 3), said('room 101', 3), said('room 204', 2)]);
    expect(r.key.key_name).toBe('room_number');
    expect(names(r)).toContain(12);
    const v = candidate([said('version 3 has the bug', 3), said('version 2', 3), said('version 5', 2)]);
    expect(names(v)).toContain(3);
  });

  it('a unit abbreviation after the number is what it measures: no bag_number, no walk_number', () => {
    expect(candidate([said('my bag 23 kg', 3), said('a bag 20 kg', 3), said('bag 15 kg', 2)]).key.key_name).not.toBe('bag_number');
    expect(candidate([said('walk 5 km', 3), said('walk 10 km a day', 3), said('walk 3 km', 2)]).key.key_name).not.toBe('walk_number');
  });

  it('a counted plural after the number is no label ("shelf 4 boxes"): not shelf_number', () => {
    const c = candidate([said('shelf 4 boxes', 3), said('shelf 2 boxes', 3), said('shelf 6 boxes please', 2)]);
    expect(c.key.key_name).not.toBe('shelf_number');
  });
});

describe('the fraction belongs to the unit it is said beside', () => {
  it('"half a mile" does not halve the hours: hours kept, values 1, 2, 3', () => {
    const c = candidate([said('2 hours drive, then half a mile walk', 3), said('3 hours drive', 3), said('1 hours drive', 2)]);
    expect(c.key.key_name).toMatch(/_hours$/);
    expect(names(c).sort()).toEqual([1, 2, 3]);
  });

  it('"five and a half" said of an age does not turn days into hours', () => {
    const c = candidate([said('3 days with my kid of five and a half', 3), said('4 days', 3), said('2 days', 2)]);
    expect(c.key.key_name).toMatch(/_days$/);
  });

  it('a week and a half is no whole number of days: weeks kept, nothing rounded', () => {
    const c = candidate([said('one week and a half', 3), said('2 weeks', 3), said('3 weeks', 2)]);
    expect(c.key.key_name).toMatch(/_weeks$/);
    expect(names(c)).not.toContain(11);
  });

  it('a fraction word names nothing: "half an hour of waiting" is no half_minutes', () => {
    const c = candidate([said('wait half an hour', 3), said('half an hour of waiting', 3), said('wait 2 hours', 2)]);
    expect(c.key.key_name).toMatch(/_minutes$/);
    expect(c.key.key_name).not.toMatch(/^half/);
    expect(names(c).sort()).toEqual([120, 30]);
  });
});

describe('"one" before a noun stays a numeral even after a determiner', () => {
  it('"the one draft" counts one draft: draft_count with 1', () => {
    const c = candidate([said('just the one draft please', 4), said('the one draft is enough', 3), said('4 drafts would be great', 2)]);
    expect(c.key).toMatchObject({ key_name: 'draft_count', key_type: 'integer' });
    expect(names(c)).toContain(1);
  });
});
