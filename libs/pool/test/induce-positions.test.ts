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
