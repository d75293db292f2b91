/** Identifiers across the sanitiser change (draft-zhou §6.2.2 induction over a cluster's life, list keys). */
import { describe, expect, it } from 'vitest';
import { identifiers, sameListShape, sanitizeFragment, type InductionSample } from '@parley/evolution';

const S = (text: string): InductionSample => ({ text, count: 1, clients: ['x'] });

describe('codes joined by an underscore, and the form stored before', () => {
  it('only two to eight capitals are a code\'s letters; every digit group stays joined', () => {
    expect(sanitizeFragment('need_300 copies').text).not.toMatch(/NEED-300|need-300/i);
    expect(sanitizeFragment('room_12').text).not.toMatch(/room-12/i);
    expect(identifiers(sanitizeFragment('need_300 copies and room_12').text ?? '')).toEqual([]);
    expect(sanitizeFragment('ABC_123_456').text).toBe('ABC-123-456');
    expect(identifiers(sanitizeFragment('IMG_2041 and IMG_2042').text ?? '')).toEqual(['IMG-2041', 'IMG-2042']);
  });
  it('the old stored form "PG 1042" is still an identifier, but not capitals that are a word or a shouted text', () => {
    expect(identifiers('PG 1042 and PG 1043')).toEqual(['PG-1042', 'PG-1043']);
    expect(identifiers('I NEED 300 COPIES')).toEqual([]);
    expect(identifiers('pay USD 500 please')).toEqual([]);
    expect(identifiers('pay EUR 500 please')).toEqual([]);
    expect(sameListShape([S('pages PG 1042 and PG 1043')], [S('pages PG-2201, PG-2207')])).toBe(true);
  });
  it('lists of one kind have the same letter prefixes: a list mixing two kinds is no sibling of either', () => {
    expect(sameListShape([S('BX-1201, PN-1207'), S('BX-1301 PN-1302')], [S('PN-2201 and PN-2207')])).toBe(false);
    expect(sameListShape([S('PN-1201, PN-1207')], [S('PN-2201 and PN-2207')])).toBe(true);
  });
});
