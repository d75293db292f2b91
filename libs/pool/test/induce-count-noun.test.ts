/**
 * draft-zhou §6.2.2 names from concepts: a count is named by the noun its numeral quantifies, read as a noun right
 * after the number even when WordNet lists the word mostly as a verb ("two hops", "3 rests"). Made-up phrasings,
 * none taken from an evaluation stream.
 */
import { describe, expect, it } from 'vitest';
import { said, candidate } from './induction-fixture';

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

  it('a noun before the number still counts for nothing, a time unit still names a duration', () => {
    const c = candidate([
      said('the wait must be under 40 minutes', 3),
      said('waiting at most 30 minutes', 3),
      said('no longer than 45 minutes of waiting', 2),
      said('wait 20 minutes max', 2),
    ]);
    expect(c.key.key_type).toBe('integer');
    expect(c.key.key_name.endsWith('_minutes')).toBe(true);
  });
});
