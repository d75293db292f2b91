/**
 * draft-zhou §6.2.2 intent induction with the WordNet lexicon (and GloVe word vectors when the install-time cache is
 * there): names come from the concept the fragments share, and the suffix from the kind of key. Each case is a
 * general rule with made-up phrasings, none taken from an evaluation stream.
 */
import { describe, expect, it } from 'vitest';
import { SCENARIOS } from '@parley/examples';
import type { KeyDefinition } from '@parley/protocol';
import { lexicon, said, candidate } from './induction-fixture';

const baseKeys = (scenario: string): readonly KeyDefinition[] => SCENARIOS.find((s) => s.template.scenario === scenario)?.template.keys ?? [];

describe('naming induced keys from the shared concept (zhou §6.2.2)', () => {
  it('a choice is named by what its head is: served things are preferences, people and acts types, places and attributes themselves', () => {
    // An artifact the service provides: chosen.
    expect(candidate([said('a window seat please', 3), said('aisle seat for me', 3), said('window seat again', 2), said('I want the aisle seat', 2)]).key.key_name).toBe('seat_preference');
    // A person the user reports on: described.
    const who = candidate([said('the guest is a student', 3), said('student guest, discount applies', 2), said('a senior guest', 3), said('senior guest here', 2)]);
    expect(who.key).toMatchObject({ key_name: 'guest_type', key_type: 'string' });
    expect(who.key.enum).toEqual(expect.arrayContaining(['student', 'senior']));
    // A place: the name is the place itself.
    const where = candidate([said('deliver to the north district', 3), said('north district please', 2), said('the south district', 3), said('south district, near the park', 2)]);
    expect(where.key.key_name).toBe('district');
  });

  it('modifiers heard in a minority of phrasings are wording, not a choice: the need stays yes/no', () => {
    const c = candidate([
      said('we want a garden view', 4),
      said('room with a garden view please', 4),
      said('garden view if possible', 3),
      said('a lovely garden view', 2),
      said('big garden view', 2),
    ]);
    expect(c.key.key_type).toBe('boolean');
    expect(c.key.key_name).toContain('garden');
  });

  it('the noun of an idiom ("in case", "at least") never names the need', () => {
    const c = candidate([said('add cancellation cover in case I get sick', 3), said('cancellation cover please', 3), said('in case plans change, I want cancellation cover', 2), said('just in case, cancellation cover', 2)]);
    expect(c.key.key_name).not.toMatch(/case/);
    expect(c.key.key_name).toMatch(/cover|cancellation/);
  });

  it('a word that says when ("today", "tonight") neither heads nor joins the name', () => {
    const c = candidate([said('send a plumber today', 3), said('a plumber on site today please', 3), said('we need a plumber', 2), said('plumber tonight if you can', 2)]);
    expect(c.key.key_name).not.toMatch(/today|tonight/);
    expect(c.key.key_name).toContain('plumber');
  });

  it('articles and prepositions of other languages never name a key, even when WordNet knows them as symbols', () => {
    const c = candidate([said('recogida a las 06:00 en el hotel', 3), said('recogida en el hotel a las 05:30', 3), said('la recogida a las 07:15', 2)]);
    for (const w of c.key.key_name.split('_')) expect(['el', 'la', 'las', 'en']).not.toContain(w);
  });

  it('an existing key refines only when one name says all the other says: another action on the same noun is a new key', () => {
    // A luggage-tag key shares the noun "bag" with a request to remove bags under the eyes, and nothing else.
    const tag: KeyDefinition = { key_name: 'bag_tag', key_type: 'boolean', required: false, default_value: null, semantic_description: 'Whether a bag tag is wanted.' };
    const bags = candidate([said('remove the eye bags', 3), said('eye bags removal please', 3), said('get rid of the eye bags', 2), said('erase eye bags', 2)], [tag]);
    expect(bags.key).toMatchObject({ key_name: 'eye_bag_removal', key_type: 'boolean' });
    expect(bags.refines ?? null).toBeNull();
    // The same noun with nothing the existing key lacks is that key (site ids → affected_site_ids).
    const fault = baseKeys('fault_management');
    const sites = candidate([said('sites NB-0101, NB-0102 are down', 3), said('affected: NB-0200, NB-0201', 3), said('NB-0301 NB-0302 NB-0303 offline', 2)], fault);
    expect(sites.refines).toBe('affected_site_ids');
  });

  it('a unit of measurement ("miles", "kilos") never names what an identifier belongs to', () => {
    const c = candidate([said('book with my miles account MA-48213', 3), said('miles account MA-99120 please', 3), said('use miles account MA-10472', 2)]);
    expect(c.key.key_type).toBe('string');
    expect(c.key.key_name).not.toMatch(/mile/);
    expect(c.key.key_name).toMatch(/account/);
  });

  it('a removal is read from how most English fragments put it, not from a client who once said "fix" in passing', () => {
    const c = candidate([
      said('send a locksmith to the flat', 4),
      said('we need a locksmith on site', 4),
      said('locksmith visit, the remote fix failed', 1),
      said('a locksmith must come', 3),
      said('Schlüsseldienst schicken', 2),
    ]);
    expect(c.key.key_name).not.toMatch(/removal/);
    expect(c.key.key_name).toContain('locksmith');
  });
});

describe.skipIf(lexicon.related === undefined)('GloVe relatedness in the lexicon (libs/embeddings)', () => {
  it('relates words used for one thing, is symmetric, and answers null for words without a vector', () => {
    const related = lexicon.related as (a: string, b: string) => number | null;
    expect(related('technician', 'engineer')).toBeGreaterThan(related('technician', 'banana') ?? 0);
    expect(related('storm', 'rain')).toBeCloseTo(related('rain', 'storm') as number, 6);
    expect(related('zzqxv', 'seat')).toBeNull();
    for (const hostile of ['__proto__', 'constructor', 'toString', '\u0000', '\ud800', 'a'.repeat(1 << 20)]) {
      const r = related(hostile, 'seat');
      expect(r === null || (r >= -1 && r <= 1)).toBe(true);
    }
  });
});
