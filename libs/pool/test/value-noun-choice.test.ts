/**
 * A choice said by its values alone, read through WordNet (draft-zhou §6.2.2, cohyponym.ts valueNounKind): kinds of
 * one thing said as nouns by distinct clients become one choice named by the kind; yes/no needs whose object is a
 * noun, and unrelated needs that share only a general ancestor, do not. Examples from no stream.
 */
import { describe, expect, it } from 'vitest';
import { coHyponymChoice, valueNounKind } from '@parley/evolution';
import type { KeyDefinition } from '@parley/protocol';
import { candidate, lexicon, said } from './induction-fixture';

describe('valueNounKind through WordNet', () => {
  it('guitar, violin, cello and drum are musical instruments', () => {
    expect(valueNounKind(lexicon, [{ word: 'guitar', weight: 4 }, { word: 'violin', weight: 3 }, { word: 'cello', weight: 2 }, { word: 'drum', weight: 2 }])?.kind).toBe('musical_instrument');
  });

  it('a general ancestor names no choice: a taxi and a guitar (instrumentality), a pet and a dog (animal)', () => {
    expect(valueNounKind(lexicon, [{ word: 'taxi', weight: 4 }, { word: 'guitar', weight: 3 }])).toBeNull();
    expect(valueNounKind(lexicon, [{ word: 'pet', weight: 4 }, { word: 'dog', weight: 3 }])).toBeNull();
    expect(valueNounKind(lexicon, [{ word: 'dog', weight: 4 }, { word: 'cat', weight: 3 }, { word: 'puppy', weight: 3 }])).toBeNull();
  });
});

describe('induceKey: instruments said alone make instrument_type; flags stay flags', () => {
  it('a choice of instruments', () => {
    const c = candidate([said('I carry my violin, it is fragile', 3), said('travelling with my guitar', 4), said('two drums for the band', 2), said('booking a seat for my cello', 2)]);
    expect(c.key).toMatchObject({ key_name: 'instrument_type', key_type: 'string' });
    expect([...(c.key.enum ?? [])].sort()).toEqual(['cello', 'drum', 'guitar', 'violin']);
  });

  it('a pet in the cabin, a wheelchair, lounge access: yes/no needs', () => {
    expect(candidate([said('my dog flies with me in the cabin', 3), said('travelling with a pet', 3), said('bringing a small dog under the seat', 2), said('my cat travels with me', 2)]).key.key_type).toBe('boolean');
    expect(candidate([said('my mother needs a wheelchair at the gate', 3), said('wheelchair assistance please', 3), said('a wheelchair from the car', 2)]).key.key_type).toBe('boolean');
    expect(candidate([said('add lounge access to my ticket', 3), said('a lounge pass please', 3), said('wait in the business lounge', 2)]).key.key_type).toBe('boolean');
  });

  it('two unrelated needs in one cluster sharing a far ancestor are no choice (a taxi and a guitar)', () => {
    expect(candidate([said('a taxi from the airport', 3), said('I carry my guitar', 3), said('a taxi at arrivals', 2)]).key.key_type).not.toBe('string');
  });
});

describe('induceKey: one value in two words, and a choice of what a thing is made of', () => {
  it('"aluminium frame" / "metal frame" by the same clients beside "oak frame" / "wooden frame": frame_material', () => {
    const c = candidate([
      { text: 'aluminium frame like last time', count: 3, clients: ['m1', 'm2', 'm3'] },
      { text: 'a thin metal frame, black', count: 2, clients: ['m1', 'm2'] },
      { text: 'oak frame please, natural finish', count: 2, clients: ['w1', 'w2'] },
      { text: 'put the print in a wooden frame', count: 2, clients: ['w2', 'w3'] },
    ]);
    expect(c.key).toMatchObject({ key_name: 'frame_material', key_type: 'string' });
    expect([...(c.key.enum ?? [])].sort()).toEqual(['aluminium', 'metal', 'oak', 'wooden']);
  });

  it('values that are no substances keep their name (seat_preference), and one frame said alike by all stays a flag', () => {
    expect(candidate([said('a window seat please', 3), said('an aisle seat please', 3)]).key.key_name).toBe('seat_preference');
    expect(candidate([said('put the print in a frame', 3), said('a frame for the print please', 3)]).key.key_type).toBe('boolean');
    // Foods and drinks sit under substance in WordNet's hierarchy but are filed as food: no material.
    expect(candidate([said('a cup of coffee', 3), said('a cup of tea', 3), said('coffee cup please', 2)]).key.key_name).not.toMatch(/material/);
    expect(candidate([said('a chicken meal please', 3), said('the fish meal', 3), said('beef meal for me', 3)]).key.key_name).toBe('meal_preference');
  });

  it('two values said by the same clients that are not one value (metal, oak) stay phrasings: no choice of them', () => {
    const c = candidate([
      { text: 'a metal frame', count: 3, clients: ['a', 'b', 'c'] },
      { text: 'an oak frame', count: 3, clients: ['a', 'b', 'c'] },
    ]);
    expect(c.key.enum ?? []).not.toEqual(expect.arrayContaining(['metal', 'oak']));
  });
});

describe('induceKey: what a choice said by its values alone must not take', () => {
  it('a refused value is no alternative ("no taxi please" beside "send a limousine"); said plainly, taxi and limousine are cars', () => {
    expect(candidate([said('no taxi please', 3), said('send a limousine', 3), said('a limousine at arrivals', 2), said('no taxi, we walk', 2)]).key.key_type).toBe('boolean');
    expect(candidate([said('a taxi from the airport', 3), said('send a limousine', 3), said('a limousine at arrivals', 2), said('taxi at arrivals', 2)]).key).toMatchObject({ key_name: 'car_type', key_type: 'string' });
  });

  it('stuff, weather and devices said alone are no choice of a kind: shampoo / soap, rain / snow, fan / heater', () => {
    expect(candidate([said('shampoo in the room please', 3), said('more soap in the bathroom', 3), said('we ran out of shampoo', 2), said('soap please', 2)]).key.key_type).toBe('boolean');
    expect(candidate([said('heavy rain at the site', 3), said('snow on the mast', 3), said('rain again', 2), said('snow blocked the road', 2)]).key.key_name).not.toBe('precipitation_type');
    expect(candidate([said('a fan in the room please', 3), said('can we get a heater', 3), said('the heater please', 2), said('bring a fan', 2)]).key.key_type).toBe('boolean');
  });
});

describe('induceKey: a class word in the value place, and a base key named by an act the clients never say', () => {
  const enlargement: KeyDefinition = { key_name: 'eye_enlargement', key_type: 'boolean', required: false, default_value: null, semantic_description: 'Enlarge the eyes.' };
  it('eye colours beside "a jade colour" make eye_color, and refine no eye_enlargement nobody asked for', () => {
    const c = candidate([said('make her eyes green', 3), said('hazel eyes instead of the dark ones', 2), said('emerald eyes would look great', 3), said('turn the irises a jade colour', 2), said('change his eyes to blue', 2)], [enlargement]);
    expect(c.key).toMatchObject({ key_name: 'eye_color', key_type: 'string' });
    expect(c.key.enum).not.toContain('color');
    expect(c.refines ?? null).toBeNull();
  });

  it('clients who say the act still refine eye_enlargement', () => {
    const c = candidate([said('eye enlargement please', 3), said('an enlargement of the eyes', 3), said('the eyes, enlargement', 2)], [enlargement]);
    expect(c.refines).toBe('eye_enlargement');
  });

  it('a flag on the noun that names no act keeps refining the base key of that noun (a window seat request is the seat key)', () => {
    const seat: KeyDefinition = { key_name: 'seat_preference', key_type: 'string', required: false, default_value: null, semantic_description: 'Seat.', enum: ['window', 'aisle'] };
    expect(candidate([said('a window seat please', 3), said('an aisle seat please', 3)], [seat]).refines).toBe('seat_preference');
  });
});

describe('a later cluster of one more value joins the choice (one key per intent across clusters)', () => {
  it('needs_violin beside instrument_type [guitar, drum] is one choice under the same name; needs_wheelchair is not', () => {
    const k = (key_name: string, key_type: KeyDefinition['key_type'], values?: string[]): KeyDefinition => ({ key_name, key_type, required: false, default_value: null, semantic_description: 'x', ...(values ? { enum: values } : {}) });
    const choice = coHyponymChoice(k('instrument_type', 'string', ['guitar', 'drum']), k('needs_violin', 'boolean'), lexicon);
    expect(choice?.key_name).toBe('instrument_type');
    expect(choice?.values).toContain('violin');
    expect(coHyponymChoice(k('instrument_type', 'string', ['guitar', 'drum']), k('needs_wheelchair', 'boolean'), lexicon)).toBeNull();
  });
});

describe('review regressions: one sense of the kind, a class word said alone is a value', () => {
  it('a kind word of two senses is no kind of both: boat (watercraft) and bottle (container) are no vessel_type', () => {
    expect(valueNounKind(lexicon, [{ word: 'boat', weight: 3 }, { word: 'bottle', weight: 3 }])).toBeNull();
    expect(valueNounKind(lexicon, [{ word: 'scooter', weight: 3 }, { word: 'bowl', weight: 3 }])).toBeNull();
    expect(candidate([said('a boat trip on the lake', 3), said('a bottle of water in the room', 3), said('a boat on the lake please', 2), said('a bottle of wine in the room', 2)]).key.key_name).not.toMatch(/vessel/);
    // The same check keeps a kind read in its own sense.
    expect(valueNounKind(lexicon, [{ word: 'taxi', weight: 3 }, { word: 'limousine', weight: 3 }])?.kind).toBe('car');
  });

  it('"colour print" beside "monochrome print" keeps colour as a value (print_type); "a jade colour" still names eye_color', () => {
    const p = candidate([said('print in colour please', 3), said('a black and white print', 3), said('grayscale print please', 2), said('monochrome print', 2), said('colour print', 2)]);
    expect(p.key.key_name).toBe('print_type');
    expect(p.key.enum).toEqual(expect.arrayContaining(['color', 'monochrome']));
    const q = candidate([said('colour prints', 3), said('monochrome prints', 3), said('sepia prints', 3)]);
    expect(q.key.enum).toEqual(expect.arrayContaining(['color', 'monochrome', 'sepia']));
    expect(candidate([said('make her eyes green', 3), said('hazel eyes instead of the dark ones', 2), said('emerald eyes would look great', 3), said('turn the irises a jade colour', 2), said('change his eyes to blue', 2)]).key.key_name).toBe('eye_color');
  });
});

describe('review regressions: each guard of the value-noun choice and of one value in two words fails a test when removed', () => {
  const by = (text: string, clients: string[]) => ({ text, count: clients.length, clients });
  it('a noun most clients say beside the values is what the need is about: no instrument_type of "my guitar in the cabin"', () => {
    expect(candidate([said('my guitar in the cabin', 3), said('my violin in the cabin', 3), said('drum in the cabin', 2), said('cabin for my cello', 2)]).key.key_name).not.toBe('instrument_type');
  });

  it('two values said together in most fragments are wording, no alternatives: "guitar and violin" is no instrument_type', () => {
    expect(candidate([said('my guitar and my violin', 3), said('guitar and violin both', 3), said('a guitar plus a violin', 2), said('the violin and the guitar', 2)]).key.key_type).toBe('boolean');
  });

  it('a one-edit slip ("woden") said by the clients of "wooden" is one value: frame_material, not needs_aluminium', () => {
    const c = candidate([by('wooden frame please', ['a', 'b', 'c']), by('a woden frame', ['a', 'b']), by('aluminium frame', ['d', 'e', 'f']), by('an aluminium frame please', ['g', 'h'])]);
    expect(c.key.key_name).toBe('frame_material');
  });

  it('an adjective made of a substance noun is of its class: "wooden" beside "metal" makes frame_material, not frame_preference', () => {
    expect(candidate([said('a wooden frame', 3), said('a metal frame', 3), said('wooden frame please', 2), said('metal frame please', 2)]).key.key_name).toBe('frame_material');
  });
});

describe('review regressions: two needs in one cluster, each value with a noun of its own, are no choice', () => {
  it('a crib for the baby and a wheelchair at the gate are no furniture_type; a highchair and a wheelchair no chair_type', () => {
    expect(candidate([said('a crib for the baby please', 3), said('my mother needs a wheelchair at the gate', 3), said('a crib in our room', 2), said('a wheelchair from the car', 2)]).key.key_type).toBe('boolean');
    expect(candidate([said('a highchair for the baby', 3), said('my mother needs a wheelchair at the gate', 3), said('a highchair at dinner', 2), said('a wheelchair from the car', 2)]).key.key_type).toBe('boolean');
    // Instruments whose clients add a word of their own ("a seat for my cello", "drums for the band") stay a choice.
    expect(candidate([said('I carry my violin, it is fragile', 3), said('travelling with my guitar', 4), said('two drums for the band', 2), said('booking a seat for my cello', 2)]).key.key_name).toBe('instrument_type');
  });
});

