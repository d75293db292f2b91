/**
 * Stories of schema evolution over a cluster's life (draft-zhou §6.2.1-§6.2.3),
 * on the offline WordNet embedder and lexicon, with simulated time:
 * - the late-arriving value: a value many clients say after the trigger
 *   arrives as a refinement of the experimental key (pool.grown → re-induction);
 * - the one-client burst: forty copies in one hour from one client open no
 *   gate, global or its own;
 * - the split intent: one need over two clusters yields one key (the second
 *   cluster refines the first one's key);
 * - the operator edit: a better name is a new key plus the deprecation of the
 *   old, never a silent rename (libs/pool test/edit.test.ts has the details).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { createOfflineEmbedder, loadWordNetLexicon } from '@parley/embeddings';
import { effectiveTemplate, type Lexicon } from '@parley/evolution';
import { SCENARIOS } from '@parley/examples';
import { createEmbeddedIndex } from '@parley/vectors';
import { createEvolutionEngine, createEvolver } from '../src/index';
import { matured } from './induction-fixture';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const T0 = Date.UTC(2026, 4, 4);
const templates = SCENARIOS.map((s) => s.template);
const base = templates.find((t) => t.scenario === 'flight_booking') as (typeof templates)[number];

let lexicon: Lexicon;
beforeAll(async () => {
  lexicon = await loadWordNetLexicon();
});

async function engineAt(clock: { now: number }) {
  return createEvolutionEngine({ embedder: createOfflineEmbedder(), index: createEmbeddedIndex(), templates, clock: { now: () => clock.now }, lexicon });
}

const seatKey = (now: number, patches: Parameters<typeof effectiveTemplate>[1]) => effectiveTemplate(base, patches, null, now).template.keys.find((k) => k.key_name.startsWith('seat'));

describe('the late-arriving value (zhou §6.2.2 induction over the cluster\'s life)', () => {
  const WINDOW = ['window seat please', 'a window seat', 'seat by the window', 'I would like a window seat'];
  const AISLE = ['aisle seat please', 'an aisle seat', 'seat on the aisle', 'I would like an aisle seat'];
  const MIDDLE = ['middle seat please', 'a middle seat', 'seat in the middle', 'I would like a middle seat'];

  async function day(engine: Awaited<ReturnType<typeof engineAt>>, clock: { now: number }, d: number, who: string, texts: readonly string[], n: number): Promise<void> {
    for (let c = 0; c < n; c++) await engine.ingest({ ts: T0 + d * DAY + c * HOUR, scenario: 'flight_booking', client_id: `${who}-${d}-${c}`, text: texts[(c + d) % texts.length] as string });
    clock.now = T0 + (d + 1) * DAY;
    engine.tick(clock.now);
  }

  it('window and aisle fire seat_preference; middle, said by many clients after the trigger, arrives as a refinement (modified_keys)', async () => {
    const clock = { now: T0 };
    const engine = await engineAt(clock);
    // Day 0: six clients, window and aisle by turns.
    await day(engine, clock, 0, 'wa', WINDOW.flatMap((w, i) => [w, AISLE[i] as string]), 6);
    const first = seatKey(clock.now, engine.rawPatches());
    expect(first).toMatchObject({ key_name: 'seat_preference', experimental: true });
    expect(first?.enum).toEqual(expect.arrayContaining(['window', 'aisle']));
    expect(first?.enum).not.toContain('middle');
    for (let d = 1; d <= 3; d++) await day(engine, clock, d, 'm', MIDDLE, 3);
    const later = seatKey(clock.now, engine.rawPatches());
    expect(later?.key_name).toBe('seat_preference'); // never renamed
    expect(later?.enum).toEqual([...(first?.enum ?? []), 'middle']);
    const refine = engine.log().filter((d) => d.action === 'refine');
    expect(refine.length).toBeGreaterThanOrEqual(1);
    expect(refine[0]?.reasons.join(' ')).toMatch(/values middle now supported by distinct clients/);
    // One key: refinements are modified_keys patches, no second seat key.
    expect(engine.rawPatches().flatMap((p) => p.new_keys.map((k) => k.definition.key_name)).filter((n) => n.startsWith('seat'))).toEqual(['seat_preference']);
  });

  it('window alone fires window_seat (yes/no); when aisle arrives the richer seat_preference is a new key and window_seat is deprecated, never silently renamed', async () => {
    const clock = { now: T0 };
    const engine = await engineAt(clock);
    await day(engine, clock, 0, 'w', WINDOW, 6);
    const first = effectiveTemplate(base, engine.rawPatches(), null, clock.now).template.keys.find((k) => k.key_name === 'window_seat');
    expect(first).toMatchObject({ key_type: 'boolean', experimental: true });
    for (let d = 1; d <= 3; d++) await day(engine, clock, d, 'a', AISLE, 4);
    const keys = new Map(effectiveTemplate(base, engine.rawPatches(), null, clock.now).template.keys.map((k) => [k.key_name, k]));
    expect(keys.get('seat_preference')).toMatchObject({ key_type: 'string', experimental: true, enum: expect.arrayContaining(['window', 'aisle']) });
    expect(keys.get('window_seat')).toMatchObject({ key_type: 'boolean', deprecated: true });
    const log = engine.log();
    const sup = log.find((d) => d.action === 'supersede');
    expect(sup).toMatchObject({ key_name: 'seat_preference', actor: 'inducer' });
    expect(sup?.reasons.join(' ')).toMatch(/covers "window_seat"/);
    expect(log.find((d) => d.action === 'deprecate' && d.key_name === 'window_seat')?.reasons.join(' ')).toMatch(/superseded by "seat_preference"/);
  });
});

describe('the one-client burst (zhou §6.2.1 "unique client agents"; Parley caps heat per client)', () => {
  it('forty copies of a personal need in one hour from one client, and a few others once, open no gate', async () => {
    const clock = { now: T0 };
    const engine = await engineAt(clock);
    for (let i = 0; i < 40; i++) await engine.ingest({ ts: T0 + i * 60_000, scenario: 'flight_booking', client_id: 'barker', text: 'my dog keeps barking at night' });
    // Four other clients mention a dog once each: five distinct clients, and still no global key.
    const OTHERS = ['travelling with my dog', 'my dog barks at night', 'can my dog come along', 'dog in the cabin'];
    for (let c = 0; c < OTHERS.length; c++) await engine.ingest({ ts: T0 + HOUR + c * 60_000, scenario: 'flight_booking', client_id: `other-${c}`, text: OTHERS[c] as string });
    for (let d = 1; d <= 7; d++) engine.tick(T0 + d * DAY);
    const burstCluster = engine.clusters(T0 + HOUR).filter((c) => c.scope === 'global').sort((a, b) => b.size - a.size)[0];
    expect(burstCluster?.size).toBeGreaterThanOrEqual(40); // the demand is measured ...
    expect(engine.triggers()).toEqual([]); // ... and opens nothing: not the global gate, not the client's own (one hour is one occurrence)
    expect(engine.rawPatches()).toEqual([]);
  });
});

describe('the split intent (zhou §6.2.2 conflict detection: one key per intent)', () => {

  it('one need that matured as two clusters yields one key: the second cluster refines the first one\'s key', async () => {
    const ev = createEvolver({ templates, lexicon });
    const a = matured('c-a', [
      ['vegetarian meal please', ['#1', '#2', '#3']],
      ['a vegan meal', ['#4', '#5']],
      ['vegan meal for me', ['#1']],
    ], T0);
    const ra = ev.applyMatured(a, await ev.induce(a));
    expect(ra.report.outcome).toBe('patched');
    const key = ra.report.key_name as string;
    expect(key).toMatch(/meal/);
    // The same intent, clustered apart (the embedder split it): its values join the key's enum instead of a second key.
    const b = matured('c-b', [
      ['a halal meal', ['#1', '#2']],
      ['kosher meal please', ['#3', '#4']],
      ['halal meal on the plane', ['#5']],
    ], T0 + DAY);
    const rb = ev.applyMatured(b, await ev.induce(b));
    expect(rb.report.outcome).toBe('merged');
    expect(rb.report.key_name).toBe(key);
    const keys = ev.patches().flatMap((r) => r.patch.new_keys.map((k) => k.definition.key_name));
    expect(keys).toEqual([key]);
    const eff = effectiveTemplate(base, ev.activePatches(), null, T0 + DAY);
    expect(eff.template.keys.find((k) => k.key_name === key)?.enum).toEqual(expect.arrayContaining(['vegetarian', 'vegan', 'halal', 'kosher']));
  });
});

describe('the split intent by concept (zhou §6.2.2 one key per intent: paraphrases sharing no word)', () => {
  // Two clusters of one need whose words differ but whose nouns are one WordNet synset (baby / infant).
  const A: [string, string[]][] = [
    ['travelling with a baby', ['#1', '#2', '#3']],
    ['we bring our baby along', ['#4', '#5']],
    ['a baby comes too', ['#6']],
  ];
  const B: [string, string[]][] = [
    ['an infant flies with us', ['#1', '#2']],
    ['one infant on the trip', ['#3', '#4']],
    ['the infant sits on my knee', ['#5']],
  ];

  it('the second cluster refines the first one\'s key instead of adding one', async () => {
    const ev = createEvolver({ templates, lexicon });
    const a = matured('c-a', A, T0);
    const ra = ev.applyMatured(a, await ev.induce(a));
    expect(ra.report.outcome).toBe('patched');
    const b = matured('c-b', B, T0 + DAY);
    const rb = ev.applyMatured(b, await ev.induce(b));
    expect(['merged', 'redundant']).toContain(rb.report.outcome);
    expect(rb.report.key_name).toBe(ra.report.key_name);
    expect(ev.patches().flatMap((r) => r.patch.new_keys.map((k) => k.definition.key_name))).toEqual([ra.report.key_name]);
  });

  it('a cluster about another concept still makes its own key', async () => {
    const ev = createEvolver({ templates, lexicon });
    const a = matured('c-a', A, T0);
    const ra = ev.applyMatured(a, await ev.induce(a));
    const c = matured('c-c', [['a guitar in the cabin', ['#1', '#2', '#3']], ['my guitar comes on board', ['#4', '#5']], ['travelling with a guitar', ['#6']]], T0 + DAY);
    const rc = ev.applyMatured(c, await ev.induce(c));
    expect(rc.report.outcome).toBe('patched');
    expect(rc.report.key_name).not.toBe(ra.report.key_name);
  });

  it('without the synonym the same two clusters make two keys (the concept is what joined them)', async () => {
    const blind: Lexicon = { pos: (w) => lexicon.pos(w), lemma: (w, p) => lexicon.lemma(w, p), synonyms: () => [], hypernyms: () => [] };
    const ev = createEvolver({ templates, lexicon: blind });
    const a = matured('c-a', A, T0);
    const ra = ev.applyMatured(a, await ev.induce(a));
    const b = matured('c-b', B, T0 + DAY);
    const rb = ev.applyMatured(b, await ev.induce(b));
    expect(rb.report.outcome).toBe('patched');
    expect(rb.report.key_name).not.toBe(ra.report.key_name);
  });
});

describe('the operator edit (zhou §6.2 authorized updates; never a silent rename)', () => {
  it('a month in: the operator renames the induced key; clients see the new key experimental and the old one deprecated, the log says who and why', async () => {
    const clock = { now: T0 };
    const engine = await engineAt(clock);
    const TEXTS = ['window seat please', 'an aisle seat', 'a window seat', 'aisle seat please', 'seat by the window', 'I would like an aisle seat'];
    for (let c = 0; c < 6; c++) await engine.ingest({ ts: T0 + c * HOUR, scenario: 'flight_booking', client_id: `t-${c}`, text: TEXTS[c] as string });
    clock.now = T0 + DAY;
    engine.tick(clock.now);
    const rec = engine.patchRecords().find((r) => r.patch.new_keys.some((k) => k.definition.key_name === 'seat_preference'));
    expect(rec?.status).toBe('active');
    const out = engine.edit({ at: clock.now, patch_id: rec!.patch.patch_id, key_name: 'seat_preference', actor: 'ops-carla', reason: 'the airline calls it seat side', changes: { rename: 'seat_side' } });
    expect(out.kind).toBe('replace');
    const eff = new Map(effectiveTemplate(base, engine.rawPatches(), 't-0', clock.now).template.keys.map((k) => [k.key_name, k]));
    expect(eff.get('seat_side')).toMatchObject({ experimental: true, enum: expect.arrayContaining(['window', 'aisle']) });
    expect(eff.get('seat_preference')).toMatchObject({ deprecated: true });
    expect(engine.log().slice(-2).map((d) => [d.action, d.key_name, d.actor, d.reasons[0]])).toEqual([
      ['edit', 'seat_side', 'ops-carla', 'the airline calls it seat side'],
      ['deprecate', 'seat_preference', 'ops-carla', expect.stringContaining('superseded by "seat_side"')],
    ]);
    // The pool's view of the cluster names the key it now feeds.
    expect(engine.clusters(clock.now).find((c) => c.id === rec!.patch.source_cluster_id)).toMatchObject({ key_name: 'seat_side' });
  });
});
