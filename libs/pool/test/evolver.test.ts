/**
 * The evolver's operator decisions and its split from the pool (draft-zhou
 * §6.2.2 approval of patches, §6.2.3 lifecycle, §7 authorization of updates
 * touching security-relevant keys), and the pool's determinism that the
 * services' replay relies on.
 */
import { describe, expect, it } from 'vitest';
import { ParleyError } from '@parley/protocol';
import { SCENARIOS } from '@parley/examples';
import { createEmbeddedIndex } from '@parley/vectors';
import { createOfflineEmbedder } from '@parley/embeddings';
import { createEvolver, createSemanticPool, securityRelevance, type MaturedCluster } from '../src/index';

const DAY = 86_400_000;
const T0 = Date.UTC(2026, 0, 1);
const templates = SCENARIOS.map((s) => s.template);

function matured(samples: [string, number][], scope = 'global', id = 'c1', at = T0): MaturedCluster {
  return {
    cluster_id: id,
    scenario_id: 'flight_booking',
    scope,
    size: samples.reduce((n, [, c]) => n + c, 0),
    heat: 60,
    distinct_clients: 5,
    occurrences_in_window: 10,
    branch: 'distinct_clients',
    reasons: ['heat 60 >= 50'],
    matured_at: at,
    samples: samples.map(([text, count]) => ({ text, count })),
  };
}

const SEAT: [string, number][] = [
  ['window seat please', 4],
  ['aisle seat', 3],
  ['a window seat', 2],
];

async function published(ev = createEvolver({ templates }), m = matured(SEAT)) {
  const r = ev.applyMatured(m, await ev.induce(m));
  return { ev, r };
}

describe('approval (zhou §6.2.2, §7)', () => {
  it('publishes an ordinary key active at once in auto mode, with a publish decision', async () => {
    const { ev, r } = await published();
    expect(r.report.outcome).toBe('patched');
    expect(r.changes.map((c) => [c.kind, c.record.status])).toEqual([['published', 'active']]);
    expect(ev.activePatches()).toHaveLength(1);
    expect(ev.decisions().map((d) => d.action)).toEqual(['publish']);
  });

  it('holds a security-relevant key as proposed until an operator approves; the trial starts at approval', async () => {
    const ev = createEvolver({ templates });
    const m = matured([
      ['pay with my credit card', 5],
      ['card payment please', 5],
    ]);
    const r = ev.applyMatured(m, { ok: true, candidate: { key: { key_name: 'payment_card', key_type: 'string', required: false, semantic_description: 'Payment card. Example mapping: "pay with my credit card" -> "credit".' }, examples: [] } } as never);
    const rec = r.changes[0]?.record;
    expect(rec?.status).toBe('proposed');
    expect(rec?.approval_reasons.join(' ')).toMatch(/security-relevant.*payment/);
    expect(ev.activePatches()).toHaveLength(0); // clients do not see it
    const id = rec?.patch.patch_id as string;
    const changes = ev.approve({ at: T0 + 2 * DAY, patch_id: id, actor: 'ops', reason: 'reviewed' });
    expect(changes[0]).toMatchObject({ kind: 'updated', actor: 'ops' });
    expect(changes[0]?.record).toMatchObject({ status: 'active', revision: 2 });
    expect(changes[0]?.record.patch.new_keys[0]?.lifecycle.introduced_at).toBe(T0 + 2 * DAY);
    expect(() => ev.approve({ at: T0 + 3 * DAY, patch_id: id, actor: 'ops', reason: 'again' })).toThrow(expect.objectContaining({ type: 'illegal_transition', rule: 'proposed_only' }));
  });

  it('manual mode proposes every patch; rejecting a proposed patch frees its key name', async () => {
    const { ev, r } = await published(createEvolver({ templates, config: { approval: 'manual' } }));
    const id = r.changes[0]?.record.patch.patch_id as string;
    expect(r.changes[0]?.record.status).toBe('proposed');
    ev.reject({ at: T0 + DAY, patch_id: id, actor: 'ops', reason: 'not wanted' });
    expect(ev.patch(id)?.status).toBe('rejected');
    // The same need maturing again is a new candidate, not "redundant".
    const again = matured(SEAT, 'global', 'c9', T0 + 2 * DAY);
    expect(ev.applyMatured(again, await ev.induce(again)).report.outcome).toBe('patched');
  });

  it('rejecting an active patch deprecates its keys (they leave through the §6.2.3 grace period), recorded with figures', async () => {
    const { ev, r } = await published();
    const id = r.changes[0]?.record.patch.patch_id as string;
    const changes = ev.reject({ at: T0 + DAY, patch_id: id, actor: 'ops', reason: 'misleading' });
    expect(changes.map((c) => [c.kind, c.key_name])).toEqual([['deprecated', 'seat_preference']]);
    expect(ev.patch(id)?.status).toBe('active');
    const d = ev.decisions().at(-1);
    expect(d).toMatchObject({ action: 'deprecate', from: 'experimental', to: 'deprecated', actor: 'ops' });
    expect(d?.figures).toHaveProperty('usage_frequency');
    // Grace then withdrawal by the evaluator as usual.
    const t = ev.tick(T0 + 16 * DAY);
    expect(t.changes.map((c) => c.kind)).toEqual(['withdrawn']);
  });

  it('a pinned patch is left alone by the evaluator; unpinned, the evaluator acts', async () => {
    const { ev, r } = await published();
    const id = r.changes[0]?.record.patch.patch_id as string;
    ev.pin({ at: T0, patch_id: id, actor: 'ops', reason: 'hold for the trade fair', pinned: true });
    expect(() => ev.pin({ at: T0, patch_id: id, actor: 'ops', reason: 'x', pinned: true })).toThrow(expect.objectContaining({ rule: 'changes_state' }));
    // No executions at all: after the trial the key would be deprecated (usage unknown → patch expiry), but it is pinned.
    for (let d = 1; d <= 40; d++) expect(ev.tick(T0 + d * DAY).changes).toEqual([]);
    ev.pin({ at: T0 + 40 * DAY, patch_id: id, actor: 'ops', reason: 'fair over', pinned: false });
    expect(ev.tick(T0 + 41 * DAY).changes.map((c) => c.kind)).toEqual(['deprecated']);
    expect(ev.decisions().map((d) => d.action)).toEqual(['publish', 'pin', 'unpin', 'deprecate']);
  });

  it('an unknown patch is patch_not_found naming params.patch_id', () => {
    const ev = createEvolver({ templates });
    try {
      ev.approve({ at: T0, patch_id: 'nope', actor: 'ops', reason: 'x' });
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(ParleyError);
      expect(e).toMatchObject({ type: 'patch_not_found', path: 'params.patch_id', rule: 'exists' });
    }
  });

  it('securityRelevance flags payment, identity and access keys by name, and strong phrases in descriptions only', () => {
    expect(securityRelevance({ key_name: 'card_number' })).toHaveLength(1);
    expect(securityRelevance({ key_name: 'passport_id' })[0]).toMatch(/identity/);
    expect(securityRelevance({ key_name: 'admin_password' }).join()).toMatch(/access control/);
    expect(securityRelevance({ key_name: 'seat_preference', semantic_description: 'Seat. Example: "aisle access please" -> "aisle".' })).toEqual([]);
    expect(securityRelevance({ key_name: 'note', semantic_description: 'Put the credit card number here' })).toHaveLength(1);
  });
});

describe('the pool is a deterministic fold of its inputs (apps/semantic-pool replays it)', () => {
  it('replaying prepared fragments into a fresh pool and index gives the same clusters, without embedding again', async () => {
    const embedder = createOfflineEmbedder();
    const texts = ['window seat please', 'aisle seat', 'vegan meal', 'a window seat', 'vegetarian meal please', 'my cat is Tom', 'seat by the window'];
    const first = await createSemanticPool({ embedder, index: createEmbeddedIndex() });
    const prepared = [];
    for (let i = 0; i < 40; i++) {
      const p = await first.prepare({ ts: T0 + i * 3_600_000, scenario: 'flight_booking', client_id: `c${i % 6}`, text: texts[i % texts.length] as string });
      prepared.push(p);
      await first.ingestPrepared(p);
    }
    let calls = 0;
    const counting = { ...embedder, id: embedder.id, dimensions: embedder.dimensions, embed: async (t: string[]) => ((calls += t.length), embedder.embed(t)) };
    const second = await createSemanticPool({ embedder: counting, index: createEmbeddedIndex() });
    for (const p of prepared) await second.ingestPrepared(p);
    const now = T0 + 3 * DAY;
    expect(second.clusters(now)).toEqual(first.clusters(now));
    expect(calls).toBe(0);
  });

  it('refuses a prepared vector of the wrong width (a log written by another embedder)', async () => {
    const pool = await createSemanticPool({ embedder: createOfflineEmbedder(), index: createEmbeddedIndex() });
    await expect(pool.ingestPrepared({ at: T0, scenario: 'flight_booking', client_id: 'c', sanitized: 'x', sanitize_flags: [], vector: [1, 0] })).rejects.toMatchObject({ rule: 'fragment_invalid', path: 'vector' });
  });
});

describe('the security_relevant flag on a key definition (draft-zhou §7)', () => {
  it('a patch that refines a base key flagged security_relevant waits for an operator, whatever its words', () => {
    const flagged = templates.map((t) =>
      t.scenario === 'flight_booking' ? { ...t, keys: t.keys.map((k) => (k.key_name === 'cabin_class' ? { ...k, security_relevant: true } : k)) } : t,
    );
    const candidate = {
      key: { key_name: 'cabin_class', key_type: 'string', required: false, semantic_description: 'Cabin class, e.g. "premium economy please" -> "premium_economy".' },
      examples: [{ fragment: 'premium economy please', value: 'premium_economy', count: 5 }],
    };
    const plain = createEvolver({ templates }).applyMatured(matured([['premium economy please', 5]]), { ok: true, candidate } as never).changes[0]?.record;
    const held = createEvolver({ templates: flagged }).applyMatured(matured([['premium economy please', 5]]), { ok: true, candidate } as never).changes[0]?.record;
    expect(plain?.patch.modified_keys.map((k) => k.key_name)).toEqual(['cabin_class']);
    expect(plain?.status).toBe('active');
    expect(held?.patch.modified_keys.map((k) => k.key_name)).toEqual(['cabin_class']);
    expect(held?.status).toBe('proposed');
    expect(held?.approval_reasons.join(' ')).toMatch(/"cabin_class" is flagged security_relevant/);
  });
});
