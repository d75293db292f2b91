/**
 * A cluster refines the base key of its noun (draft-zhou §6.2.2 conflict detection), unless it states a property of
 * that noun (values of one naming class: eye colours) while the key names an act on it the clients never say
 * (eye_enlargement). Ordinary needs for the thing keep refining the key named by an act on it, through induceKey
 * and end to end through the evolver (date → departure_date). Examples from no stream.
 */
import { describe, expect, it } from 'vitest';
import { SCENARIOS } from '@parley/examples';
import type { KeyDefinition } from '@parley/protocol';
import { createEvolver, type Evolver, type MaturedCluster } from '../src/index';
import { candidate, lexicon, matured, said } from './induction-fixture';

const k = (key_name: string, key_type: KeyDefinition['key_type'], values?: string[]): KeyDefinition => ({ key_name, key_type, required: false, default_value: null, semantic_description: 'x', ...(values ? { enum: values } : {}) });

describe('induceKey: the act guard on refinement', () => {
  it('eye colours said as a flag on the eyes refine no eye_enlargement', () => {
    const c = candidate([said('make her eyes green', 2), said('hazel eyes instead of the dark ones', 1), said('change his eyes to blue', 1), said('fix the eyes', 2)], [k('eye_enlargement', 'boolean')]);
    expect(c.key.key_name).toBe('needs_eye');
    expect(c.refines ?? null).toBeNull();
  });

  it('a need for the thing still refines the key named by an act on it', () => {
    expect(candidate([said('my mother needs a wheelchair at the gate', 3), said('wheelchair please', 3), said('a wheelchair from the car', 2)], [k('wheelchair_assistance', 'boolean')]).refines).toBe('wheelchair_assistance');
    expect(candidate([said('I need a hotel for two nights', 3), said('a hotel near the airport', 3), said('hotel please', 2)], [k('hotel_booking', 'boolean')]).refines).toBe('hotel_booking');
    expect(candidate([said('can I leave my luggage after checkout', 3), said('somewhere for my luggage', 3), said('luggage until the evening', 2)], [k('luggage_storage', 'boolean')]).refines).toBe('luggage_storage');
    expect(candidate([said('please tidy the room', 3), said('the room needs tidying', 3), said('room is messy', 2)], [k('room_cleaning', 'boolean')]).refines).toBe('room_cleaning');
    expect(candidate([said('pick us up at the airport', 3), said('from the airport to the hotel', 3), said('airport pickup', 2)], [k('airport_transfer', 'boolean')]).refines).toBe('airport_transfer');
    expect(candidate([said('an exit row seat', 3), said('a bulkhead seat', 3), said('exit row seat please', 2)], [k('seat_selection', 'string', ['window', 'aisle'])]).refines).toBe('seat_selection');
  });
});

const DAY = 86_400_000;
const T0 = Date.UTC(2026, 4, 4);
const saidBy = (texts: readonly string[], tag: string): [string, string[]][] => texts.map((t, i) => [t, [`${tag}-${i}`, `${tag}-${i + 10}`]]);

async function patchOf(samples: [string, string[]][]): Promise<{ new_keys: string[]; modified_keys: string[] }> {
  const ev: Evolver = createEvolver({ templates: SCENARIOS.map((s) => s.template), lexicon });
  const m: MaturedCluster = matured('c-date', samples, T0 + DAY);
  ev.applyMatured(m, await ev.induce(m));
  const patches = ev.patches().map((r) => r.patch);
  return { new_keys: patches.flatMap((p) => p.new_keys.map((x) => x.definition.key_name)), modified_keys: patches.flatMap((p) => p.modified_keys.map((x) => x.key_name)) };
}

describe('evolver: a date cluster on flight_booking refines departure_date', () => {
  it('"the date is …" merges into departure_date, no new date key', async () => {
    const p = await patchOf(saidBy(['the date is 2026-12-03', 'date: 2026-12-05', 'my date 2026-12-07'], 'd'));
    expect(p.new_keys).toEqual([]);
    expect(p.modified_keys).toEqual(['departure_date']);
  });

});
