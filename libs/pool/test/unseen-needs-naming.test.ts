/**
 * draft-zhou §6.2.2 intent induction on needs the rule book was not written
 * for, with the WordNet lexicon the services use: a key's name words and enum
 * values are readable English (no foreign leftover, no misspelling), values
 * are alternatives of one slot, and a need phrased two ways without
 * alternatives is a yes/no key (libs/evolution kinds.ts).
 */
import { describe, expect, it } from 'vitest';
import { lexicon, said, candidate } from './induction-fixture';


describe('rule induction on unseen needs (zhou §6.2.2, §7)', () => {
  it('one need said two ways, modifiers on both sides of the head and a misspelling → boolean, no preference, no "off"', () => {
    const c = candidate([said('make it carbon neutral', 6), said('offest the carbon', 6)]);
    expect(c.key.key_type).toBe('boolean');
    expect(c.key.key_name).not.toMatch(/preference|off\b|_off/);
    expect(c.key.key_name).toContain('carbon');
    expect(c.key.enum).toBeUndefined();
  });

  it('a yes/no need is named by the adjective its clients say beside the head, never by a verb or noun there', () => {
    expect(candidate([said('make it carbon neutral', 6), said('offset the carbon', 5)]).key.key_name).toBe('carbon_neutral');
    const w = candidate([said('please book wheelchair', 4), said('wheelchair at the gate', 3), said('my mother needs a wheelchair', 3)]);
    expect(w.key.key_type).toBe('boolean');
    expect(w.key.key_name).toBe('needs_wheelchair');
  });

  it('a noun after the head heads its own phrase: "colour film", "colour to this photo" are no values', () => {
    const c = candidate([said('shot on colour film', 5), said('bring colour to this photo', 5), said('add colour please', 4)]);
    expect(c.key.key_type).toBe('boolean');
    expect(c.key.enum).toBeUndefined();
  });

  it('alternatives in one slot still make an enum: "cloudless sky", "blue sky", "stormy sky"', () => {
    const c = candidate([said('cloudless sky please', 5), said('a blue sky', 5), said('stormy sky', 5)]);
    expect(c.key.key_type).toBe('string');
    expect(c.key.enum).toEqual(expect.arrayContaining(['cloudless', 'blue', 'stormy']));
    expect(c.key.key_name.startsWith('sky')).toBe(true);
  });

  it('foreign-language words and misspellings never become name words or values', () => {
    const c = candidate([said('solo diagnóstico, nada de cambios', 5), said('keine automatischen Umschaltungen', 5), said('diagnose only, no automatic changes', 5), said('no automatc changes, freeze', 4)]);
    for (const w of c.key.key_name.split('_')) expect(lexicon.pos(w).n + lexicon.pos(w).v + lexicon.pos(w).a + lexicon.pos(w).r, w).toBeGreaterThan(0);
    expect(c.key.key_name).not.toMatch(/solo|nada|keine|automatc|diagn[oó]stico/);
    for (const v of c.key.enum ?? []) expect(String(v)).toMatch(/^[a-z][a-z0-9]*$/);
  });

  it('a count is named by the noun its numbers stand before, not by the noun the cluster says most', () => {
    const c = candidate([said('alarm storm 540 raised', 2), said('storm of 1200 alarms', 3), said('storm here, 300 alarms', 3), said('3100 active alarms in this storm', 2), said('big storm, 90 of them', 3)]);
    expect(c.key.key_type).toBe('integer');
    expect(c.key.key_name).toBe('alarm_count');
  });

  it('is order-free: the same samples in reverse give the same candidate', () => {
    const s = [said('make it carbon neutral', 3), said('offest the carbon', 3), said('offset my carbon', 3), said('solo diagnóstico, nada de cambios', 3), said('carbon neutral flight', 2)];
    expect(candidate([...s].reverse())).toEqual(candidate(s));
  });

  it('a count of days names the key after a word of the fragments that carry the unit', () => {
    // The cluster also holds a stray fragment with a number and no unit, whose words outnumber the need's own.
    const c = candidate([said('dates are flexible, 3 days', 4), said('flexible by 1 day', 3), said('2 Tage früher oder später geht auch', 5), said('2 adults, passport renewal pending', 8)]);
    expect(c.key.key_type).toBe('integer');
    expect(c.key.key_name).toMatch(/_days$/);
    expect(c.key.key_name).toBe('flexible_days');
  });
});
