/**
 * The long-term evaluation of patch keys (zhou §6.2.3): metrics over an
 * observation window, the two-phase lifecycle and the convergence guard.
 *
 * Metrics come from counters fed by payload.executed events (keys present,
 * key_type_correct, client id; never values) and by audits:
 * - usage_frequency = payloads with the key / payloads in the key's audience
 *   (the scenario's payloads against the patch's parent schema; a per-client
 *   patch's audience is that client), since the patch, inside the window;
 * - value_type_correctness = payloads whose value had the declared type / payloads with the key;
 * - semantic_alignment_accuracy = aligned / audited samples. Alignment needs a
 *   judge (an LLM or a manual audit sampler, zhou §6.2.3); this library takes
 *   its verdicts as input (`recordAudit`). Without at least `min_audits`
 *   verdicts the figure is null: the key is then neither promoted (promotion
 *   needs all three figures) nor deprecated on alignment;
 * - client_adoption_rate = clients that sent the key with a correct type /
 *   clients that sent any payload in the audience since the patch (the clients
 *   that received it). Reported, not a decision input: the draft gives it no threshold.
 * A figure is null below its minimum sample (`min_payloads`, `min_key_uses`,
 * `min_audits`): no decision rests on a handful of payloads.
 *
 * Lifecycle: experimental → stable | deprecated; stable → deprecated (the
 * assessment is continuous, "every patch key"); deprecated → withdrawn after
 * the grace period; withdrawn is final and its name is accepted in payloads
 * until `accept_until` (compatibility window). Anything else is an
 * `illegal_transition` error. Every decision carries the figures and reasons.
 */
import type { KeyDefinition } from '@parley/protocol';
import { DAY_MS } from './config';
import { assertFinite, evolutionError } from './errors';
import { keyNameSignature } from './names';
import { withKeyLifecycle, type KeyLifecycle, type KeyState, type PatchKey, type SchemaPatch } from './patch';
import { scopeClient, scopeKey, type Scope } from './scope';

export interface LifecycleConfig {
  /** zhou §6.2.3 "a configurable observation window (default 30 days)". */
  readonly observation_window_ms: number;
  /** zhou §6.2.3 trial "(default 7 days)". */
  readonly trial_ms: number;
  /** zhou §6.2.3 deprecation "grace period (default 14 days)". */
  readonly grace_ms: number;
  /** zhou §6.2.3 withdrawal "backward-compatibility window (default 30 days)". */
  readonly compatibility_window_ms: number;
  /** zhou §6.2.3 Promotion: usage ≥ 15%, alignment ≥ 80%, type correctness ≥ 90%. */
  readonly promote: Thresholds;
  /** zhou §6.2.3 Deprecation: usage < 5% OR alignment < 60% OR type correctness < 70%. */
  readonly deprecate: Thresholds;
  readonly min_payloads: number;
  readonly min_key_uses: number;
  readonly min_audits: number;
  /** zhou §6.2.3 Schema Convergence Guard "(e.g., no more than 10)". */
  readonly max_experimental_keys: number;
  /** Clients tracked per key for the adoption rate. */
  readonly max_tracked_clients: number;
  /** Counters are kept per bucket of this width (one day). */
  readonly bucket_ms: number;
}

export interface Thresholds {
  readonly usage_frequency: number;
  readonly semantic_alignment_accuracy: number;
  readonly value_type_correctness: number;
}

export const DEFAULT_LIFECYCLE_CONFIG: LifecycleConfig = Object.freeze({
  observation_window_ms: 30 * DAY_MS,
  trial_ms: 7 * DAY_MS,
  grace_ms: 14 * DAY_MS,
  compatibility_window_ms: 30 * DAY_MS,
  promote: Object.freeze({ usage_frequency: 0.15, semantic_alignment_accuracy: 0.8, value_type_correctness: 0.9 }),
  deprecate: Object.freeze({ usage_frequency: 0.05, semantic_alignment_accuracy: 0.6, value_type_correctness: 0.7 }),
  min_payloads: 20,
  min_key_uses: 10,
  min_audits: 10,
  max_experimental_keys: 10,
  max_tracked_clients: 1000,
  bucket_ms: DAY_MS,
});

export function lifecycleConfig(over: Partial<LifecycleConfig> = {}): LifecycleConfig {
  const c = { ...DEFAULT_LIFECYCLE_CONFIG, ...over };
  for (const m of ['observation_window_ms', 'trial_ms', 'grace_ms', 'compatibility_window_ms', 'bucket_ms'] as const) {
    if (!(c[m] > 0) || !Number.isFinite(c[m])) throw evolutionError('config', m, `${m} must be a positive finite number`);
  }
  for (const m of ['min_payloads', 'min_key_uses', 'min_audits', 'max_experimental_keys', 'max_tracked_clients'] as const) {
    if (!Number.isInteger(c[m]) || c[m] < 1) throw evolutionError('config', m, `${m} must be a positive integer`);
  }
  return Object.freeze(c);
}

export interface CounterBucket {
  readonly start: number;
  /** Payloads in the key's audience. */
  readonly payloads: number;
  readonly with_key: number;
  readonly type_correct: number;
  readonly audited: number;
  readonly aligned: number;
}

export interface KeyCounters {
  readonly patch_id: string;
  readonly key_name: string;
  readonly buckets: readonly CounterBucket[];
  /** Clients that sent a payload in the audience since the patch, and when they first sent the key correctly. */
  readonly clients: readonly { readonly client_id: string; readonly adopted_at: number | null }[];
  readonly clients_truncated: boolean;
}

/** What the evaluator needs of a payload.executed event (libs/events PayloadExecutedData, time as epoch ms). */
export interface ExecutionObservation {
  readonly at: number;
  readonly client_id: string;
  readonly schema_id: string;
  readonly keys_present: readonly string[];
  readonly key_type_correct: Readonly<Record<string, boolean>>;
}

export function newKeyCounters(patchId: string, keyName: string): KeyCounters {
  return { patch_id: patchId, key_name: keyName, buckets: [], clients: [], clients_truncated: false };
}

function audience(patch: SchemaPatch, clientId: string): boolean {
  const owner = scopeClient(patch.scope);
  return owner === null || owner === clientId;
}

function bump(c: KeyCounters, at: number, config: LifecycleConfig, add: Partial<Omit<CounterBucket, 'start'>>): CounterBucket[] {
  const start = Math.floor(at / config.bucket_ms) * config.bucket_ms;
  const latest = Math.max(at, ...c.buckets.map((b) => b.start));
  // Keep one bucket beyond the window so a window that starts mid-bucket is covered.
  const oldest = latest - config.observation_window_ms - config.bucket_ms;
  const out = c.buckets.filter((b) => b.start >= oldest).map((b) => ({ ...b }));
  if (start < oldest) return out;
  let i = out.findIndex((b) => b.start === start);
  if (i < 0) {
    out.push({ start, payloads: 0, with_key: 0, type_correct: 0, audited: 0, aligned: 0 });
    out.sort((a, b) => a.start - b.start);
    i = out.findIndex((b) => b.start === start);
  }
  const b = out[i] as CounterBucket;
  out[i] = {
    start,
    payloads: b.payloads + (add.payloads ?? 0),
    with_key: b.with_key + (add.with_key ?? 0),
    type_correct: b.type_correct + (add.type_correct ?? 0),
    audited: b.audited + (add.audited ?? 0),
    aligned: b.aligned + (add.aligned ?? 0),
  };
  return out;
}

/**
 * Counts one payload.executed event for one patch key. Events outside the
 * key's audience (another client's, another schema version, before the patch)
 * change nothing.
 */
export function recordExecution(c: KeyCounters, patch: SchemaPatch, ev: ExecutionObservation, config: LifecycleConfig = DEFAULT_LIFECYCLE_CONFIG): KeyCounters {
  assertFinite('at', ev.at);
  if (c.patch_id !== patch.patch_id) throw evolutionError('unknown_key', 'patch_id', `counters are for patch "${c.patch_id}", not "${patch.patch_id}"`);
  if (ev.schema_id !== patch.parent_schema_id || ev.at < patch.timestamp || !audience(patch, ev.client_id)) return c;
  const present = ev.keys_present.includes(c.key_name);
  const correct = present && ev.key_type_correct[c.key_name] === true;
  const buckets = bump(c, ev.at, config, { payloads: 1, with_key: present ? 1 : 0, type_correct: correct ? 1 : 0 });
  const i = c.clients.findIndex((x) => x.client_id === ev.client_id);
  let clients = c.clients;
  let truncated = c.clients_truncated;
  if (i >= 0) {
    const x = c.clients[i] as KeyCounters['clients'][number];
    if (correct && x.adopted_at === null) clients = c.clients.map((y, j) => (j === i ? { client_id: y.client_id, adopted_at: ev.at } : y));
  } else if (c.clients.length < config.max_tracked_clients) {
    clients = [...c.clients, { client_id: ev.client_id, adopted_at: correct ? ev.at : null }];
  } else {
    truncated = true;
  }
  return { ...c, buckets, clients, clients_truncated: truncated };
}

/** One audit verdict: did the key's value match the intent of the original request (zhou §6.2.3 semantic_alignment_accuracy). */
export function recordAudit(c: KeyCounters, audit: { readonly at: number; readonly aligned: boolean }, config: LifecycleConfig = DEFAULT_LIFECYCLE_CONFIG): KeyCounters {
  assertFinite('at', audit.at);
  return { ...c, buckets: bump(c, audit.at, config, { audited: 1, aligned: audit.aligned ? 1 : 0 }) };
}

export interface KeyMetrics {
  readonly window_start: number;
  readonly payloads: number;
  readonly payloads_with_key: number;
  readonly type_correct: number;
  readonly audited: number;
  readonly aligned: number;
  readonly clients_received: number;
  readonly clients_adopted: number;
  /** zhou §6.2.3 figures; null below the minimum sample. */
  readonly usage_frequency: number | null;
  readonly value_type_correctness: number | null;
  readonly semantic_alignment_accuracy: number | null;
  readonly client_adoption_rate: number | null;
}

/** zhou §6.2.3 metrics over the observation window ending at `now`. */
export function keyMetrics(c: KeyCounters, now: number, config: LifecycleConfig = DEFAULT_LIFECYCLE_CONFIG): KeyMetrics {
  assertFinite('now', now);
  const windowStart = now - config.observation_window_ms;
  // Whole buckets: a bucket counts when it starts inside the window.
  const inWin = c.buckets.filter((b) => b.start >= windowStart && b.start <= now);
  const sum = (f: (b: CounterBucket) => number): number => inWin.reduce((n, b) => n + f(b), 0);
  const payloads = sum((b) => b.payloads);
  const withKey = sum((b) => b.with_key);
  const typeCorrect = sum((b) => b.type_correct);
  const audited = sum((b) => b.audited);
  const aligned = sum((b) => b.aligned);
  const received = c.clients.length;
  const adopted = c.clients.filter((x) => x.adopted_at !== null && x.adopted_at <= now).length;
  return {
    window_start: windowStart,
    payloads,
    payloads_with_key: withKey,
    type_correct: typeCorrect,
    audited,
    aligned,
    clients_received: received,
    clients_adopted: adopted,
    usage_frequency: payloads >= config.min_payloads ? withKey / payloads : null,
    value_type_correctness: withKey >= config.min_key_uses ? typeCorrect / withKey : null,
    semantic_alignment_accuracy: audited >= config.min_audits ? aligned / audited : null,
    client_adoption_rate: received > 0 ? adopted / received : null,
  };
}

export interface LifecycleDecision {
  readonly patch_id: string;
  readonly key_name: string;
  readonly action: 'keep' | 'promote' | 'deprecate' | 'withdraw';
  readonly from: KeyState;
  readonly to: KeyState;
  readonly at: number;
  /** Why, naming each figure and threshold. */
  readonly reasons: readonly string[];
  readonly figures: KeyMetrics;
}

const pct = (x: number): string => `${Math.round(x * 1000) / 10}%`;

/** Which deprecation rules a set of figures breaks (zhou §6.2.3 Deprecation), and what is unknown. */
function deprecationReasons(m: KeyMetrics, t: Thresholds): string[] {
  const out: string[] = [];
  if (m.usage_frequency !== null && m.usage_frequency < t.usage_frequency) out.push(`usage_frequency ${pct(m.usage_frequency)} < ${pct(t.usage_frequency)} (${m.payloads_with_key}/${m.payloads})`);
  if (m.semantic_alignment_accuracy !== null && m.semantic_alignment_accuracy < t.semantic_alignment_accuracy) {
    out.push(`semantic_alignment_accuracy ${pct(m.semantic_alignment_accuracy)} < ${pct(t.semantic_alignment_accuracy)} (${m.aligned}/${m.audited} audited)`);
  }
  if (m.value_type_correctness !== null && m.value_type_correctness < t.value_type_correctness) {
    out.push(`value_type_correctness ${pct(m.value_type_correctness)} < ${pct(t.value_type_correctness)} (${m.type_correct}/${m.payloads_with_key})`);
  }
  return out;
}

/** Promotion holds only when all three figures are known and at or above their thresholds (zhou §6.2.3 Promotion). */
function promotion(m: KeyMetrics, t: Thresholds, config: LifecycleConfig): { ok: boolean; reasons: string[] } {
  const reasons: string[] = [];
  let ok = true;
  const check = (name: keyof Thresholds, v: number | null, detail: string, unknown: string): void => {
    if (v === null) {
      ok = false;
      reasons.push(`${name} unknown: ${unknown}`);
    } else {
      const pass = v >= t[name];
      ok &&= pass;
      reasons.push(`${name} ${pct(v)} ${pass ? '>=' : '<'} ${pct(t[name])} (${detail})`);
    }
  };
  check('usage_frequency', m.usage_frequency, `${m.payloads_with_key}/${m.payloads}`, `${m.payloads} payloads < ${config.min_payloads}`);
  check('semantic_alignment_accuracy', m.semantic_alignment_accuracy, `${m.aligned}/${m.audited} audited`, `${m.audited} audits < ${config.min_audits}; no promotion without an alignment judge`);
  check('value_type_correctness', m.value_type_correctness, `${m.type_correct}/${m.payloads_with_key}`, `${m.payloads_with_key} uses < ${config.min_key_uses}`);
  return { ok, reasons };
}

/** zhou §6.2.3: what the lifecycle says about one patch key at `now`. Pure; apply it with `applyDecision`. */
export function evaluateKey(patch: SchemaPatch, keyName: string, counters: KeyCounters, now: number, config: LifecycleConfig = DEFAULT_LIFECYCLE_CONFIG): LifecycleDecision {
  assertFinite('now', now);
  const pk = findKey(patch, keyName);
  if (counters.patch_id !== patch.patch_id || counters.key_name !== keyName) {
    throw evolutionError('unknown_key', 'counters', `counters are for ${counters.patch_id}/${counters.key_name}, not ${patch.patch_id}/${keyName}`);
  }
  const lc = pk.lifecycle;
  const figures = keyMetrics(counters, now, config);
  const decide = (action: LifecycleDecision['action'], to: KeyState, reasons: string[]): LifecycleDecision => ({
    patch_id: patch.patch_id,
    key_name: keyName,
    action,
    from: lc.state,
    to,
    at: now,
    reasons,
    figures,
  });
  switch (lc.state) {
    case 'experimental': {
      const trialEnd = lc.introduced_at + config.trial_ms;
      // zhou §6.2.3 Trial Period: "The key remains experimental for a configurable duration (default 7 days)".
      if (now < trialEnd) return decide('keep', 'experimental', [`in trial until ${trialEnd} (${Math.ceil((trialEnd - now) / 3_600_000)} h left)`]);
      const dep = deprecationReasons(figures, config.deprecate);
      if (dep.length > 0) return decide('deprecate', 'deprecated', dep);
      const pro = promotion(figures, config.promote, config);
      if (pro.ok) return decide('promote', 'stable', pro.reasons);
      if (now >= patch.expires_at) return decide('deprecate', 'deprecated', [`patch expired at ${patch.expires_at} without promotion`, ...pro.reasons]);
      return decide('keep', 'experimental', ['trial over, figures inconclusive', ...pro.reasons]);
    }
    case 'stable': {
      // zhou §6.2.3: the mechanism "continuously assesses the quality and necessity of every patch key".
      const dep = deprecationReasons(figures, config.deprecate);
      if (dep.length > 0) return decide('deprecate', 'deprecated', dep);
      return decide('keep', 'stable', ['no deprecation rule holds']);
    }
    case 'deprecated': {
      const graceEnd = lc.state_since + config.grace_ms;
      // zhou §6.2.3: deprecated keys remain for a grace period, "after which they MAY be moved to a withdrawn state".
      if (now >= graceEnd) return decide('withdraw', 'withdrawn', [`grace period ended at ${graceEnd}`]);
      return decide('keep', 'deprecated', [`in grace period until ${graceEnd}`]);
    }
    case 'withdrawn':
      return decide('keep', 'withdrawn', [`withdrawn; accepted in payloads until ${String(lc.accept_until)}`]);
  }
}

const LEGAL: Readonly<Record<KeyState, readonly KeyState[]>> = {
  experimental: ['stable', 'deprecated'],
  stable: ['deprecated'],
  deprecated: ['withdrawn'],
  withdrawn: [],
};

export function isLegalTransition(from: KeyState, to: KeyState): boolean {
  return LEGAL[from].includes(to);
}

/** Moves a key's lifecycle; `illegal_transition` for anything §6.2.3 does not allow. */
export function transition(lc: KeyLifecycle, to: KeyState, at: number, reasons: readonly string[], figures: KeyMetrics | null, config: LifecycleConfig = DEFAULT_LIFECYCLE_CONFIG): KeyLifecycle {
  assertFinite('at', at);
  if (!isLegalTransition(lc.state, to)) {
    throw evolutionError('illegal_transition', 'state', `a key cannot go from ${lc.state} to ${to} (zhou §6.2.3: experimental → stable | deprecated, stable → deprecated, deprecated → withdrawn)`, { from: lc.state, to });
  }
  if (at < lc.state_since) throw evolutionError('illegal_transition', 'at', `transition at ${at} precedes the current state's start ${lc.state_since}`);
  // Own members only, defined as data (a figure named __proto__ stays a figure).
  const fig: Record<string, number | null> = figures ? Object.fromEntries(Object.entries(figures)) : {};
  return {
    state: to,
    introduced_at: lc.introduced_at,
    state_since: at,
    // zhou §6.2.3 Withdrawal: still accepted "for an additional backward-compatibility window (default 30 days)".
    accept_until: to === 'withdrawn' ? at + config.compatibility_window_ms : null,
    history: [...lc.history, { from: lc.state, to, at, reasons: [...reasons], figures: fig }],
  };
}

/** Applies a decision to its patch (a `keep` returns the patch unchanged). A stale decision is an illegal transition. */
export function applyDecision(patch: SchemaPatch, d: LifecycleDecision, config: LifecycleConfig = DEFAULT_LIFECYCLE_CONFIG): SchemaPatch {
  if (d.patch_id !== patch.patch_id) throw evolutionError('unknown_key', 'patch_id', `decision is for patch "${d.patch_id}", not "${patch.patch_id}"`);
  const pk = findKey(patch, d.key_name);
  if (pk.lifecycle.state !== d.from) {
    throw evolutionError('illegal_transition', 'from', `decision expected ${d.key_name} to be ${d.from}, it is ${pk.lifecycle.state} (stale decision)`, { from: d.from, actual: pk.lifecycle.state });
  }
  if (d.action === 'keep') return patch;
  return withKeyLifecycle(patch, d.key_name, transition(pk.lifecycle, d.to, d.at, d.reasons, d.figures, config));
}

/**
 * A better key for a published one (zhou §6.2.2: base and published keys are never renamed or retyped in place):
 * the old key is deprecated now, naming its successor, and leaves by the §6.2.3 grace period and compatibility
 * window like any deprecated key. Only an experimental key can be superseded (a stable key is settled; a
 * deprecated or withdrawn one is already leaving): anything else is `illegal_transition`.
 */
export function supersedeKey(
  patch: SchemaPatch,
  keyName: string,
  successor: { readonly key_name: string; readonly patch_id: string },
  at: number,
  why: string,
  figures: KeyMetrics | null,
  config: LifecycleConfig = DEFAULT_LIFECYCLE_CONFIG,
): { readonly patch: SchemaPatch; readonly reason: string } {
  const pk = findKey(patch, keyName);
  if (pk.lifecycle.state !== 'experimental') {
    throw evolutionError('illegal_transition', 'state', `"${keyName}" is ${pk.lifecycle.state}: only an experimental key is superseded (zhou §6.2.3)`, { from: pk.lifecycle.state, to: 'deprecated' });
  }
  if (successor.key_name === keyName && successor.patch_id === patch.patch_id) throw evolutionError('illegal_transition', 'successor', `"${keyName}" cannot supersede itself`);
  const reason = `superseded by "${successor.key_name}" (${successor.patch_id})${why ? `: ${why}` : ''}`;
  return { patch: withKeyLifecycle(patch, keyName, transition(pk.lifecycle, 'deprecated', at, [reason], figures, config)), reason };
}

function findKey(patch: SchemaPatch, keyName: string): PatchKey {
  const pk = patch.new_keys.find((k) => k.definition.key_name === keyName);
  if (!pk) throw evolutionError('unknown_key', 'key_name', `patch "${patch.patch_id}" adds no key "${keyName}"`);
  return pk;
}

// ---------------------------------------------------------------------------
// Schema Convergence Guard (zhou §6.2.3): "a maximum limit on the number of
// active experimental keys per scenario ... When the limit is reached, new
// triggers MUST be queued until existing experimental keys are either promoted
// or deprecated."
//
// Counted per audience: a global candidate competes with the scenario's global
// experimental keys; a client's candidate with the global ones plus that
// client's own (what that client's template would show). Personal needs of
// many clients therefore never starve global evolution, and no client's
// template grows past the limit through its own patches.
// ---------------------------------------------------------------------------

export interface QueuedCandidate {
  readonly cluster_id: string;
  readonly scenario: string;
  readonly scope: Scope;
  readonly key: KeyDefinition;
  readonly queued_at: number;
}

export interface GuardFigures {
  readonly scope: string;
  readonly experimental_keys: number;
  readonly limit: number;
}

/** Active experimental keys an audience sees at `now` (keys of unexpired patches still experimental). */
export function activeExperimentalKeys(patches: readonly SchemaPatch[], scenario: string, scope: Scope, now: number): number {
  const owner = scopeClient(scope);
  let n = 0;
  for (const p of patches) {
    if (p.scenario !== scenario || p.timestamp > now || now >= p.expires_at) continue;
    const ps = scopeClient(p.scope);
    if (ps !== null && ps !== owner) continue;
    n += p.new_keys.filter((k) => k.lifecycle.state === 'experimental').length;
  }
  return n;
}

export interface AdmitResult {
  readonly admitted: boolean;
  readonly queue: readonly QueuedCandidate[];
  readonly figures: GuardFigures;
  readonly reason: string;
}

/** Admits a candidate when its audience has a free experimental slot, else appends it to the queue. */
export function admitCandidate(candidate: QueuedCandidate, patches: readonly SchemaPatch[], queue: readonly QueuedCandidate[], now: number, config: LifecycleConfig = DEFAULT_LIFECYCLE_CONFIG): AdmitResult {
  const n = activeExperimentalKeys(patches, candidate.scenario, candidate.scope, now);
  const figures: GuardFigures = { scope: scopeKey(candidate.scope), experimental_keys: n, limit: config.max_experimental_keys };
  // Queued candidates of the same audience go first (FIFO): a newcomer does not jump the queue.
  const waiting = queue.some((q) => q.scenario === candidate.scenario && scopeKey(q.scope) === scopeKey(candidate.scope));
  if (n < config.max_experimental_keys && !waiting) {
    return { admitted: true, queue, figures, reason: `${n} active experimental keys < limit ${config.max_experimental_keys}` };
  }
  const dup = queue.some((q) => q.scenario === candidate.scenario && scopeKey(q.scope) === scopeKey(candidate.scope) && keyNameSignature(q.key.key_name) === keyNameSignature(candidate.key.key_name));
  return {
    admitted: false,
    queue: dup ? queue : [...queue, candidate],
    figures,
    reason: waiting && n < config.max_experimental_keys ? 'earlier candidates of this audience are queued' : `${n} active experimental keys >= limit ${config.max_experimental_keys}; queued`,
  };
}

/** The first queued candidate whose audience has a free slot now, and the queue without it. */
export function nextAdmissible(queue: readonly QueuedCandidate[], patches: readonly SchemaPatch[], now: number, config: LifecycleConfig = DEFAULT_LIFECYCLE_CONFIG): { candidate: QueuedCandidate | null; queue: readonly QueuedCandidate[]; figures: GuardFigures | null } {
  const blocked = new Set<string>();
  for (let i = 0; i < queue.length; i++) {
    const q = queue[i] as QueuedCandidate;
    const aud = `${q.scenario}/${scopeKey(q.scope)}`;
    if (blocked.has(aud)) continue;
    const n = activeExperimentalKeys(patches, q.scenario, q.scope, now);
    if (n < config.max_experimental_keys) {
      return { candidate: q, queue: [...queue.slice(0, i), ...queue.slice(i + 1)], figures: { scope: scopeKey(q.scope), experimental_keys: n, limit: config.max_experimental_keys } };
    }
    blocked.add(aud);
  }
  return { candidate: null, queue, figures: null };
}
