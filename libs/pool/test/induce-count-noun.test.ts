/**
 * draft-zhou §6.2.2 names from concepts: a count is named by the noun its numeral quantifies, read as a noun right
 * after the number even when WordNet lists the word mostly as a verb ("two hops", "3 rests"). Made-up phrasings,
 * none taken from an evaluation stream.
 */
import { describe, expect, it } from 'vitest';
import { said, candidate, induce } from './induction-fixture';

describe('a count is named by the word its numeral quantifies', () => {
  it('a word mostly a verb, said right after the number, is the counted noun: hop_count, not max_count', () => {
    const c = candidate([
      said('at most two hops please', 3),
      said('one hop is fine', 3),
      said('no more than 3 hops', 2),
      said('max 2 hops on this route', 2),
      said('a single hop only', 2),
    ]);
    expect(c.key).toMatchObject({ key_name: 'hop_count', key_type: 'integer' });
  });

  it('the same for another verb-first noun: rest_count', () => {
    const c = candidate([
      said('I want three rests along the hike', 3),
      said('2 rests are enough', 3),
      said('four rests for the kids', 2),
      said('just one rest please', 2),
    ]);
    expect(c.key).toMatchObject({ key_name: 'rest_count', key_type: 'integer' });
  });

  // A word the same as its lemma or inflected as a verb right after the number modifies the noun after it.
  const modified = (x: string, ns: string) => candidate([said(`two ${x} ${ns} please`, 3), said(`3 ${x} ${ns} for this`, 3), said(`we have four ${x} ${ns}`, 2), said(`2 ${x} ${ns} at most`, 2)]);
  it.each([
    ['spare', 'batteries', 'battery_count'],
    ['lost', 'bags', 'bag_count'],
    ['stolen', 'phones', 'phone_count'],
    ['printed', 'copies', 'copy_count'],
    ['double', 'rooms', 'room_count'],
    ['separate', 'rooms', 'room_count'],
    ['cut', 'versions', 'version_count'],
    ['down', 'sites', 'site_count'],
  ])('"%s %s" after a number counts the noun, not its modifier: %s', (x, ns, name) => {
    expect(modified(x, ns).key).toMatchObject({ key_name: name, key_type: 'integer' });
  });

  it('after "one" the singular agrees: "one hop" counts hops, "one spare battery" still counts batteries', () => {
    const hops = candidate([said('only one hop on this trip', 3), said('one hop is fine for me', 3), said('at most one hop please', 2), said('one hop only, thanks', 2)]);
    expect(hops.key).toMatchObject({ key_name: 'hop_count', key_type: 'integer' });
    const spare = candidate([said('one spare battery please', 3), said('just one spare battery for this', 3), said('we have one spare battery', 2), said('2 spare batteries at most', 2)]);
    expect(spare.key).toMatchObject({ key_name: 'battery_count', key_type: 'integer' });
  });

  it('a verb right after the number ("we 2 travel together") is no counted noun: no travel_count', () => {
    const r = induce([said('we 2 travel together with a guide', 3), said('3 of us travel with a guide', 3), said('we are four, travelling with a guide', 2), said('2 people travel together', 2)]);
    expect(r.ok && r.candidate.key.key_name).not.toBe('travel_count');
  });

  it('a noun before the number ("the wait ... 40 minutes") names no count; the time unit after it names a duration', () => {
    const c = candidate([
      said('the wait must be under 40 minutes', 3),
      said('waiting at most 30 minutes', 3),
      said('no longer than 45 minutes of waiting', 2),
      said('wait 20 minutes max', 2),
    ]);
    expect(c.key.key_type).toBe('integer');
    expect(c.key.key_name.endsWith('_minutes')).toBe(true);
    expect(c.key.key_name).not.toMatch(/_count$/);
    expect(c.key.key_name).not.toContain('wait_count');
  });
});
