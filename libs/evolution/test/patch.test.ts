import { describe, expect, it } from 'vitest';
import type { KeyDefinition } from '@parley/protocol';
import {
  acceptedKeys,
  applyDecision,
  clientScope,
  detectConflict,
  effectiveTemplate,
  existingKeysFor,
  induceKey,
  namesCollide,
  packagePatch,
  patchForDelivery,
  transition,
  withKeyLifecycle,
  type Candidate,
  type SchemaPatch,
} from '../src/index';
import { DAY, T0, baseTemplate } from './helpers';

const seat: KeyDefinition = { key_name: 'seat_preference', key_type: 'string', required: false, default_value: null, semantic_description: "Seat preference. Example mapping: 'window seat' -> 'window'.", enum: ['window', 'aisle'] };
const legroom: KeyDefinition = { key_name: 'extra_legroom', key_type: 'boolean', required: false, default_value: null, semantic_description: "Whether extra legroom is requested. Example mapping: 'extra legroom' -> true." };

function cand(samples: { text: string; count: number }[]): Candidate {
  const r = induceKey(samples);
  if (!r.ok) throw new Error(r.reason);
  return r.candidate;
}

function withdraw(p: SchemaPatch, key: string, at: number): SchemaPatch {
  const lc = (p.new_keys.find((k) => k.definition.key_name === key) as SchemaPatch['new_keys'][number]).lifecycle;
  const dep = transition(lc, 'deprecated', at - 14 * DAY, ['test'], null);
  return withKeyLifecycle(p, key, transition(dep, 'withdrawn', at, ['test'], null));
}

describe('conflict detection (zhou §6.2.2 Conflict Detection)', () => {
  it('near-duplicate names collide: plural/singular and word order', () => {
    expect(namesCollide('seat_preference', 'seat_preferences')).toBe(true);
    expect(namesCollide('preference_seat', 'seat_preference')).toBe(true);
    expect(namesCollide('passenger_counts', 'passenger_count')).toBe(true);
    expect(namesCollide('seat_preference', 'seat_selection')).toBe(false);
  });

  it('a collision with a base key merges into it by refining its description (modified_keys), never a duplicate', () => {
    const c = cand([{ text: 'business cabins', count: 5 }, { text: 'first cabin', count: 3 }]);
    expect(c.key.key_name).toBe('cabin_preference');
    // A candidate named like a base key after plural folding.
    const renamed = { ...c, key: { ...c.key, key_name: 'cabin_classes' } };
    const r = detectConflict(renamed, existingKeysFor(baseTemplate(), [], 'global', T0));
    expect(r.kind).toBe('merge');
    if (r.kind !== 'merge') return;
    expect(r.match).toBe('near');
    expect(r.target.key_name).toBe('cabin_class');
    // A base key is refined by description only (zhou §6.2.2): the candidate's phrase and examples composed of
    // closed-vocabulary tokens (zhou §7: "business cabins" as sent is never quoted), values the key accepts.
    expect(r.modified).toEqual({
      key_name: 'cabin_class',
      semantic_description: 'Cabin class. Acceptable values: economy, business, first. Clients also ask for it as: "business cabin" -> "business"; "first cabin" -> "first".',
    });
  });

  it('a refinement never teaches a value the existing key rejects, and nothing new is redundant', () => {
    const base = baseTemplate();
    const p = packagePatch({ patch_id: 'p1', base, scope: 'global', timestamp: T0, new_keys: [seat] });
    const c = cand([{ text: 'window seat', count: 5 }, { text: 'middle seat', count: 3 }]);
    const r = detectConflict(c, existingKeysFor(base, [p], 'global', T0 + 1));
    expect(r.kind).toBe('merge');
    // An experimental patch key gains the new value (a superset of its enum); the description lists the values.
    if (r.kind === 'merge') expect(r.modified).toEqual({ key_name: 'seat_preference', enum: ['window', 'aisle', 'middle'], semantic_description: `${seat.semantic_description} Values: window, aisle, middle.` });
    // A base key never gains a value: a candidate with one it rejects refines the description without it.
    const cabin = detectConflict({ ...cand([{ text: 'business cabin', count: 5 }, { text: 'sleeper cabin', count: 3 }]), refines: 'cabin_class' }, existingKeysFor(base, [], 'global', T0));
    expect(cabin.kind).toBe('merge');
    if (cabin.kind === 'merge') {
      expect(cabin.modified.enum).toBeUndefined();
      expect(cabin.modified.semantic_description).toContain('"business cabin" -> "business"');
      expect(cabin.modified.semantic_description).not.toContain('sleeper');
    }
    // A key whose description already quotes every example of the candidate: nothing to add.
    const both = packagePatch({ patch_id: 'p2', base, scope: 'global', timestamp: T0, new_keys: [{ ...seat, semantic_description: "Seat. Example mapping: 'window seat' -> 'window'; 'aisle seat' -> 'aisle'." }] });
    const again = detectConflict(cand([{ text: 'window seat', count: 5 }, { text: 'aisle seat', count: 2 }]), existingKeysFor(base, [both], 'global', T0 + 1));
    expect(again.kind).toBe('redundant');
  });

  it('no collision → the candidate as is; a withdrawn name inside the compatibility window is blocked', () => {
    const base = baseTemplate();
    const c = cand([{ text: 'extra legroom', count: 5 }]);
    expect(detectConflict(c, existingKeysFor(base, [], 'global', T0))).toEqual({ kind: 'none', key: c.key });
    const p = withdraw(packagePatch({ patch_id: 'p1', base, scope: 'global', timestamp: T0, new_keys: [legroom] }), 'extra_legroom', T0 + 21 * DAY);
    expect(detectConflict(c, existingKeysFor(base, [p], 'global', T0 + 22 * DAY)).kind).toBe('blocked');
    expect(detectConflict(c, existingKeysFor(base, [p], 'global', T0 + 52 * DAY)).kind).toBe('none');
  });

  it('a client candidate sees its own patches and the global ones; a global candidate does not see client patches', () => {
    const base = baseTemplate();
    const mine = packagePatch({ patch_id: 'pc', base, scope: clientScope('ff'), timestamp: T0, new_keys: [legroom] });
    const c = cand([{ text: 'extra legroom', count: 5 }, { text: 'extra legroom please', count: 1 }]);
    expect(detectConflict(c, existingKeysFor(base, [mine], clientScope('ff'), T0 + 1)).kind).not.toBe('none');
    expect(detectConflict(c, existingKeysFor(base, [mine], 'global', T0 + 1)).kind).toBe('none');
  });
});

describe('patch packaging (zhou §6.2.2 Patch Packaging)', () => {
  it('carries patch_id, parent_schema_id, timestamp and an expiration date; new keys begin experimental', () => {
    const p = packagePatch({ patch_id: 'p1', base: baseTemplate(), scope: 'global', timestamp: T0, new_keys: [seat] });
    expect(p).toMatchObject({ patch_id: 'p1', parent_schema_id: 'flight_booking_v1', scenario: 'flight_booking', timestamp: T0, expires_at: T0 + 30 * DAY });
    expect(p.new_keys[0]?.lifecycle).toEqual({ state: 'experimental', introduced_at: T0, state_since: T0, accept_until: null, history: [] });
    // zhou §6.2.3: "advertised with an "experimental: true" flag in the patch".
    expect(patchForDelivery(p, T0 + 1).new_keys).toEqual([{ ...seat, experimental: true }]);
  });

  it.each([
    ['no patch_id', { patch_id: '' }, 'patch_id'],
    ['empty', { new_keys: [] }, 'new_keys'],
    ['expires before it starts', { expires_at: T0 }, 'expires_at'],
    ['a required new key', { new_keys: [{ ...seat, required: true }] }, 'new_keys[0].required'],
    ['a new key redefining a base key', { new_keys: [{ ...seat, key_name: 'passenger_counts' }] }, 'new_keys[0].key_name'],
    ['a refinement that changes the type', { new_keys: [], modified_keys: [{ key_name: 'origin', semantic_description: 'x', key_type: 'integer' }] }, 'modified_keys[0].key_type'],
  ])('refuses %s (zhou §6.2.2 Base Schema MUST)', (_, over, path) => {
    expect(() => packagePatch({ patch_id: 'p1', base: baseTemplate(), scope: 'global', timestamp: T0, new_keys: [seat], ...(over as object) })).toThrowError(
      expect.objectContaining({ type: 'invalid_params', rule: 'patch_invalid', path }),
    );
  });
});

describe('the effective template (zhou §6.2.2 Personalized Adaptation, §6.2.3 flags)', () => {
  const base = baseTemplate();
  const global = packagePatch({ patch_id: 'pg', base, scope: 'global', timestamp: T0, new_keys: [seat] });
  const personal = packagePatch({ patch_id: 'pc', base, scope: clientScope('ff'), timestamp: T0 + DAY, new_keys: [legroom], modified_keys: [{ key_name: 'origin', semantic_description: 'Departure airport, IATA; this client writes city names.' }] });

  it('base + global patches + that client\'s own, patch keys flagged, other kept last', () => {
    const ff = effectiveTemplate(base, [personal, global], 'ff', T0 + 2 * DAY);
    expect(ff.template.keys.map((k) => k.key_name)).toEqual(['origin', 'destination', 'cabin_class', 'passenger_count', 'seat_preference', 'extra_legroom', 'other']);
    expect(ff.template.keys.find((k) => k.key_name === 'extra_legroom')?.experimental).toBe(true);
    expect(ff.applied_patches).toEqual(['pg', 'pc']);
    expect(ff.key_origins.extra_legroom).toBe('pc');
    // A refinement changes the description only (zhou §6.2.2).
    expect(ff.template.keys[0]).toEqual({ ...base.keys[0], semantic_description: 'Departure airport, IATA; this client writes city names.' });
    const other = effectiveTemplate(base, [personal, global], 'someone', T0 + 2 * DAY);
    expect(other.template.keys.map((k) => k.key_name)).not.toContain('extra_legroom');
    expect(other.template.keys[0]).toEqual(base.keys[0]);
    // Not yet: a patch from the future does not apply.
    expect(effectiveTemplate(base, [global], null, T0 - 1).ignored).toEqual([{ patch_id: 'pg', key_name: null, reason: 'not_yet_active' }]);
  });

  it('base keys are never removed or retyped, whatever a patch says', () => {
    // A hand-made patch bypassing packagePatch's checks.
    const rogue: SchemaPatch = { ...global, patch_id: 'rogue', new_keys: [{ ...(global.new_keys[0] as SchemaPatch['new_keys'][number]), definition: { ...seat, key_name: 'origin', key_type: 'integer' } }] };
    const t = effectiveTemplate(base, [rogue], null, T0 + 1);
    expect(t.template.keys.find((k) => k.key_name === 'origin')).toEqual(base.keys[0]);
    expect(t.ignored).toEqual([{ patch_id: 'rogue', key_name: 'origin', reason: 'collision' }]);
  });

  it('a patch for another schema version does not apply', () => {
    const t = effectiveTemplate({ ...base, schema_id: 'flight_booking_v2' }, [global], null, T0 + 1);
    expect(t.template.keys.map((k) => k.key_name)).not.toContain('seat_preference');
    expect(t.ignored[0]?.reason).toBe('parent_mismatch');
  });

  it('deprecated keys are flagged; withdrawn keys leave the template but stay accepted for 30 days (zhou §6.2.3 Withdrawal)', () => {
    const dep = withKeyLifecycle(global, 'seat_preference', transition(global.new_keys[0]!.lifecycle, 'deprecated', T0 + 8 * DAY, ['test'], null));
    expect(effectiveTemplate(base, [dep], null, T0 + 9 * DAY).template.keys.find((k) => k.key_name === 'seat_preference')).toMatchObject({ deprecated: true });
    const gone = withdraw(global, 'seat_preference', T0 + 22 * DAY);
    expect(effectiveTemplate(base, [gone], null, T0 + 23 * DAY).template.keys.map((k) => k.key_name)).not.toContain('seat_preference');
    expect(acceptedKeys(base, [gone], null, T0 + 23 * DAY).find((k) => k.key_name === 'seat_preference')).toMatchObject({ status: 'withdrawn', warn: true, accept_until: T0 + 52 * DAY });
    expect(acceptedKeys(base, [gone], null, T0 + 52 * DAY).map((k) => k.key_name)).not.toContain('seat_preference');
    expect(patchForDelivery(gone, T0 + 23 * DAY).new_keys).toEqual([]);
  });

  it('past expires_at an undecided experimental key is no longer offered, but still accepted', () => {
    const t = effectiveTemplate(base, [global], null, T0 + 31 * DAY);
    expect(t.template.keys.map((k) => k.key_name)).not.toContain('seat_preference');
    expect(acceptedKeys(base, [global], null, T0 + 31 * DAY).find((k) => k.key_name === 'seat_preference')).toMatchObject({ status: 'experimental', warn: true, accept_until: T0 + 60 * DAY });
  });

  it('stale lifecycle decisions are refused', () => {
    expect(() =>
      applyDecision(global, { patch_id: 'pg', key_name: 'seat_preference', action: 'withdraw', from: 'deprecated', to: 'withdrawn', at: T0, reasons: [], figures: {} as never }),
    ).toThrowError(expect.objectContaining({ rule: 'illegal_transition' }));
  });
});
