/**
 * draft-zhou §6.2.2 / §7 induction with the WordNet lexicon: person names never reach a published key (its values,
 * name or description), whatever their case or title; made-up phrasings, none from an evaluation stream.
 */
import { describe, expect, it } from 'vitest';
import type { InductionResult } from '@parley/evolution';
import { said, induce } from './induction-fixture';

/** Every published word of a key: values, name words and description. */
function published(r: InductionResult): string {
  if (!r.ok) return '';
  const k = r.candidate.key;
  return [k.key_name, k.semantic_description, ...(k.enum ?? []).map(String)].join(' ').toLowerCase();
}

describe('person names never reach a key (zhou §7)', () => {
  const NAMES = /peter|maria|schmidt|novak|anna|oskar/;
  it('lowercase names after a noun for a person, a copula, by/with/to, or joined by "and" are no values and no name words', () => {
    const cases = [
      [said('the engineer should be peter', 3), said('engineer peter again', 2), said('engineer maria please', 3), said('we want maria as engineer', 2)],
      [said('pickup by peter', 3), said('pickup by maria', 3), said('pickup by peter today', 2), said('pickup by maria tomorrow', 2)],
      [said('peter and maria will meet us', 3), said('maria can drive', 3), said('peter can drive', 3), said('driver should be peter', 2), said('driver maria', 2)],
      [said('the driver will be Peter', 3), said('the driver will be Maria', 3), said('the driver is Peter', 2), said('driver is Maria', 2)],
      [said('handled by anna', 3), said('handled by oskar', 3), said('case handled by anna', 2), said('handled by oskar today', 2)],
    ];
    for (const c of cases) expect(published(induce(c))).not.toMatch(NAMES);
  });
  it('a title with a full stop is a title: the name after it is no name word ("Mr. Schmidt")', () => {
    const r = induce([said('booking for Mr. Schmidt', 3), said('booking for Mr. Schmidt please', 3), said('the booking for Mr. Schmidt', 2)]);
    expect(published(r)).not.toMatch(NAMES);
    const mixed = induce([said('booking for Mr. Schmidt', 3), said('Schmidt family booking', 2), said('booking for Mrs. Novak', 3), said('the Novak booking', 2)]);
    expect(published(mixed)).not.toMatch(NAMES);
  });
  it('a noun for a person the cluster says with an article is no name ("with child" beside "the child")', () => {
    const r = induce([said('travelling with child, need a child seat', 3), said('child seat please', 3), said('seat for the toddler', 2), said('toddler seat in car', 2)]);
    expect(r.ok && r.candidate.key.enum).toEqual(expect.arrayContaining(['child', 'toddler']));
  });
  it('ordinary choices are still read (the filter keeps common words)', () => {
    const r = induce([said('a window seat please', 3), said('aisle seat for me', 3), said('window seat again', 2), said('I want the aisle seat', 2)]);
    expect(r.ok && r.candidate.key.enum).toEqual(expect.arrayContaining(['window', 'aisle']));
  });
});

describe('unspaced and Hangul needs share content, not the frame of a request (zhou §6.2.2)', () => {
  const refused = (r: InductionResult): boolean => !r.ok && /share no word/.test(r.reason);
  it('a pair or word at the start or end of every fragment saying it ("我要…", "…谢谢", "…をください", "…주세요") shares nothing', () => {
    expect(refused(induce([said('我要靠窗的座位', 3), said('我要一份素食餐', 3), said('我要提前登机', 3)]))).toBe(true);
    expect(refused(induce([said('靠窗座位谢谢', 3), said('素食餐谢谢', 3), said('行李托运谢谢', 3)]))).toBe(true);
    expect(refused(induce([said('窓側の席をください', 3), said('ベジタリアン食をください', 3), said('領収書をください', 3)]))).toBe(true);
    expect(refused(induce([said('창가 좌석 주세요', 3), said('영수증 주세요', 3), said('휠체어 주세요', 3)]))).toBe(true);
    expect(refused(induce([said('영수증이 필요해요', 3), said('휠체어가 필요해요', 3), said('채식 식사가 필요해요', 3)]))).toBe(true);
  });
  it('a longer frame shared at the start or end ("我想要…", "…をお願いします") shares nothing either', () => {
    expect(refused(induce([said('我想要过道座位', 3), said('我想要发票', 3), said('我想要儿童餐', 3)]))).toBe(true);
    expect(refused(induce([said('毛布をお願いします', 3), said('水をお願いします', 3), said('領収書をお願いします', 3)]))).toBe(true);
  });
  it('one need said in several ways still shares its content', () => {
    expect(induce([said('我想要过道座位', 3), said('过道的座位谢谢', 3), said('请安排过道座位', 3)]).ok).toBe(true);
    expect(induce([said('我要靠窗的座位', 3), said('靠窗座位谢谢', 3), said('请给我靠窗座位', 3)]).ok).toBe(true);
    expect(induce([said('창가 좌석 주세요', 3), said('창가 좌석 부탁해요', 3), said('좌석은 창가로', 3)]).ok).toBe(true);
  });
});

describe('"May" before a count (zhou §6.2.2 types from evidence)', () => {
  it('a cluster counting people, "May" at the sentence start, is a count, not a date', () => {
    const r = induce([said('May 3 of us sit together', 3), said('May 12 people join the tour', 3), said('May 4 people join', 2), said('tour for 5 people', 2)]);
    expect(r.ok && r.candidate.key.key_type).toBe('integer');
  });
});

describe('fragments stored before codes were joined (zhou §6.2.2 induction over a cluster\'s life)', () => {
  it('a cluster mixing "PG 1042" and "PG_2201" lists identifiers, as the old cluster did', () => {
    const r = induce([said('scan pages PG 1042 and PG 1043', 3), said('pages PG 2201, PG 2207 please', 3), said('pages PG_3301 PG_3302', 2), said('scan pages PG_4401 and PG_4402', 2)]);
    expect(r.ok && r.candidate.key.key_type).toBe('array');
  });
});

describe('a person noun that is also an adjective (zhou §7 names, §6.2.2 naming)', () => {
  it('"extra legroom" is a need, not an extra (a film extra) named Legroom', () => {
    const r = induce([said('extra legroom', 3), said('extra legroom please', 3), said('I need extra legroom', 2)]);
    expect(r.ok && r.candidate.key.key_name).toMatch(/legroom/);
  });
});
