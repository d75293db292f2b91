// `npx tsx bench/pool.ts`: the Differential Semantic Pool of @parley/pool (draft-zhou §6.2.1), measured
// per embedder available here, with the embedded vector index, on the labelled month-long stream
// bench/data/stream.jsonl (bench/data/make-stream.ts; what should trigger: stream.expected.json):
//  (a) fragments per second ingested: wall time of `engine.ingest` only (embed + search + update,
//      triggers and patches included), on a simulated clock with the lifecycle ticked at every
//      midnight UTC as `parley simulate` does (the ticks are not timed);
//  (b) cluster purity of the global pools: for each global cluster, the share of its fragments that
//      carry its majority intent; the size-weighted average; and the intents split over several
//      global clusters;
//  (c) triggered vs expected intents: each trigger is read as (majority intent of its cluster, scope)
//      and compared with stream.expected.json; the universe is every (intent, scope) the stream can
//      form (global, and each client that sent the intent);
//  (d) separation on the labelled paraphrase set (libs/embeddings/test/fixtures/paraphrases.json),
//      through `separation()` of @parley/embeddings.
// Embedders: the offline one always; transformers.js only when its model is already on this machine
// (localOnly, never a download; PARLEY_EMBEDDINGS_MODEL names another model or a directory),
// otherwise reported as skipped with the reason. No services. The last line is one JSON object keyed
// by embedder id.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DEFAULT_TRANSFORMERS_MODEL, cosine, createOfflineEmbedder, createTransformersEmbedder, separation, type Embedder, type Separation } from '@parley/embeddings';
import { SCENARIOS } from '@parley/examples';
import { createEvolutionEngine, createSemanticPool, type PreparedFragment, type TriggerReport } from '@parley/pool';
import { createEmbeddedIndex } from '@parley/vectors';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const STREAM = join(ROOT, 'bench', 'data', 'stream.jsonl');
const EXPECTED = join(ROOT, 'bench', 'data', 'stream.expected.json');
const PARAPHRASES = join(ROOT, 'libs', 'embeddings', 'test', 'fixtures', 'paraphrases.json');
const DAY = 86_400_000;
const log = (s = ''): void => void process.stdout.write(`${s}\n`);
const r3 = (x: number): number => Math.round(x * 1000) / 1000;
const f3 = (x: number): string => x.toFixed(3);

interface Fragment {
  at: number;
  scenario: string;
  client_id: string;
  text: string;
  intent: string;
}
interface Expected {
  should_trigger: { intent: string; scenario: string; scope: string }[];
}
interface Pair {
  a: string;
  b: string;
  label: 'same' | 'different';
  world: string;
}

const stream: Fragment[] = readFileSync(STREAM, 'utf8')
  .split('\n')
  .filter((l) => l.trim() !== '')
  .map((l, i) => {
    const o = JSON.parse(l) as Record<string, unknown>;
    if (typeof o['intent'] !== 'string') throw new Error(`${STREAM}:${i + 1}: no intent label (regenerate with npx tsx bench/data/make-stream.ts)`);
    const at = typeof o['ts'] === 'number' ? o['ts'] : Date.parse(String(o['ts']));
    return { at, scenario: String(o['scenario']), client_id: String(o['client_id']), text: String(o['text']), intent: o['intent'] };
  });
const expected = JSON.parse(readFileSync(EXPECTED, 'utf8')) as Expected;
const pairs = (JSON.parse(readFileSync(PARAPHRASES, 'utf8')) as { pairs: Pair[] }).pairs;

/** (intent, scope) as one string; scope `global` or `client:<id>`. */
const cell = (intent: string, scope: string): string => `${intent} @ ${scope}`;
/** Trigger reports name a client pool by the bare client id. */
const scopeOf = (t: TriggerReport): string => (t.scope === 'global' ? 'global' : `client:${t.scope}`);

function majority(counts: ReadonlyMap<string, number>): { intent: string; n: number; size: number } {
  let best = { intent: '', n: 0, size: 0 };
  for (const [intent, n] of counts) {
    best.size += n;
    if (n > best.n || (n === best.n && intent < best.intent)) best = { ...best, intent, n };
  }
  return best;
}

async function pool(embedder: Embedder) {
  let now = (stream[0] as Fragment).at;
  const engine = await createEvolutionEngine({
    embedder,
    index: createEmbeddedIndex(),
    templates: SCENARIOS.map((s) => s.template),
    clock: { now: () => now },
    config: { derive_executions: true },
  });
  // cluster id → intent → fragments, for the global and the per-client pools.
  const members = new Map<string, Map<string, number>>();
  const globalIds = new Set<string>();
  const assign = (id: string | null, intent: string): void => {
    if (id === null) return;
    const m = members.get(id) ?? new Map<string, number>();
    m.set(intent, (m.get(intent) ?? 0) + 1);
    members.set(id, m);
  };
  let dropped = 0;
  let ingestMs = 0;
  let nextMidnight = Math.floor(now / DAY) * DAY + DAY;
  for (const f of stream) {
    while (nextMidnight <= f.at) {
      now = nextMidnight;
      engine.tick(nextMidnight);
      nextMidnight += DAY;
    }
    now = f.at;
    const t0 = performance.now();
    const res = await engine.ingest({ ts: f.at, scenario: f.scenario, client_id: f.client_id, text: f.text });
    ingestMs += performance.now() - t0;
    if (res.global_cluster_id === null) dropped++;
    else globalIds.add(res.global_cluster_id);
    assign(res.global_cluster_id, f.intent);
    assign(res.client_cluster_id, f.intent);
  }
  now = nextMidnight;
  engine.tick(nextMidnight);

  // (b) purity of the global clusters.
  let pure = 0;
  let total = 0;
  const impure: string[] = [];
  const clustersOf = new Map<string, Set<string>>();
  for (const id of globalIds) {
    const m = members.get(id) as Map<string, number>;
    const maj = majority(m);
    pure += maj.n;
    total += maj.size;
    if (maj.n < maj.size) impure.push(`${id} (${maj.size}: ${[...m].sort((a, b) => b[1] - a[1]).map(([i, n]) => `${n} ${i}`).join(', ')})`);
    for (const intent of m.keys()) clustersOf.set(intent, (clustersOf.get(intent) ?? new Set()).add(id));
  }
  const split = [...clustersOf].filter(([, ids]) => ids.size > 1).map(([intent, ids]) => `${intent} (${ids.size})`).sort();

  // (c) triggered vs expected.
  const triggers = engine.triggers().map((t) => ({ ...t, intent: majority(members.get(t.cluster_id) ?? new Map()).intent, scopeKey: scopeOf(t) }));
  const shouldSet = new Set(expected.should_trigger.map((e) => cell(e.intent, e.scope)));
  const didSet = new Set(triggers.map((t) => cell(t.intent, t.scopeKey)));
  const universe = new Set<string>();
  for (const f of stream) {
    universe.add(cell(f.intent, 'global'));
    universe.add(cell(f.intent, `client:${f.client_id}`));
  }
  const confusion = {
    expected_and_triggered: [...shouldSet].filter((c) => didSet.has(c)).sort(),
    expected_not_triggered: [...shouldSet].filter((c) => !didSet.has(c)).sort(),
    triggered_not_expected: [...didSet].filter((c) => !shouldSet.has(c)).sort(),
    neither: [...universe].filter((c) => !shouldSet.has(c) && !didSet.has(c)).length,
  };
  const clusters = engine.clusters(now);
  return {
    threshold: engine.config.similarity_threshold,
    fragments: stream.length,
    dropped,
    ingest_ms: ingestMs,
    fragments_per_s: stream.length / (ingestMs / 1000),
    clusters: { global: globalIds.size, per_client: clusters.length - clusters.filter((c) => c.scope === 'global').length },
    purity: total ? pure / total : Number.NaN,
    pure_clusters: globalIds.size - impure.length,
    impure,
    intents: clustersOf.size,
    split,
    triggers: triggers.map((t) => ({ day: Math.floor((t.at - Math.floor((stream[0] as Fragment).at / DAY) * DAY) / DAY), cluster: t.cluster_id, scope: t.scopeKey, intent: t.intent, outcome: t.outcome, key: t.key_name })),
    confusion,
  };
}

/**
 * The services' fold at start (apps/semantic-pool `rebuild()`): the log keeps each fragment's
 * vector, so a replay is search + update only. Timed: `ingestPrepared` into a fresh pool and index.
 */
async function replayRate(embedder: Embedder): Promise<{ fragments: number; ms: number; per_s: number }> {
  const first = await createSemanticPool({ embedder, index: createEmbeddedIndex() });
  const log: PreparedFragment[] = [];
  for (const f of stream) log.push(await first.prepare({ ts: f.at, scenario: f.scenario, client_id: f.client_id, text: f.text }));
  const fresh = await createSemanticPool({ embedder, index: createEmbeddedIndex() });
  const t0 = performance.now();
  for (const p of log) await fresh.ingestPrepared(p);
  const ms = performance.now() - t0;
  return { fragments: log.length, ms, per_s: log.length / (ms / 1000) };
}

async function paraphraseSeparation(embedder: Embedder): Promise<{ all: Separation; hard: Separation }> {
  const va = await embedder.embed(pairs.map((p) => p.a));
  const vb = await embedder.embed(pairs.map((p) => p.b));
  const scores = pairs.map((p, i) => ({ score: cosine(va[i] as Float32Array, vb[i] as Float32Array), same: p.label === 'same', hard: p.label === 'same' || p.world !== 'cross' }));
  return { all: separation(scores), hard: separation(scores.filter((s) => s.hard)) };
}

function sepRecord(s: Separation): Record<string, number> {
  return { pairs: s.pairs, same_mean: r3(s.same.mean), different_mean: r3(s.different.mean), margin: r3(s.margin), auc: r3(s.rocAuc), best_accuracy: r3(s.bestAccuracy), best_threshold: r3(s.bestThreshold) };
}

async function measure(label: string, embedder: Embedder, loadMs: number): Promise<Record<string, unknown>> {
  const sep = await paraphraseSeparation(embedder);
  // The embedder is loaded before this (not timed); its text cache is on, as in production: stream texts repeat.
  const p = await pool(embedder);
  const replay = await replayRate(embedder);
  const n = (xs: readonly string[]): string => (xs.length ? `${xs.length}: ${xs.join('; ')}` : '0');
  log(`${label} (${embedder.id}, ${embedder.dimensions} dimensions), similarity threshold ${p.threshold}; load ${Math.round(loadMs)} ms (not timed below)`);
  log(`  ingested ${p.fragments} fragments (${p.dropped} dropped by sanitising) in ${Math.round(p.ingest_ms)} ms: ${Math.round(p.fragments_per_s)} fragments/s (embed + search + update, embedded index)`);
  log(`  replay from stored vectors (the services' fold at start): ${replay.fragments} fragments in ${Math.round(replay.ms)} ms: ${Math.round(replay.per_s)} fragments/s`);
  log(`  clusters: ${p.clusters.global} global, ${p.clusters.per_client} per-client`);
  log(`  purity (global clusters): weighted ${f3(p.purity)}; ${p.pure_clusters} of ${p.clusters.global} clusters pure`);
  for (const c of p.impure) log(`    impure ${c}`);
  log(`  intents split over several global clusters: ${n(p.split)} (of ${p.intents} intents)`);
  log('  triggers');
  for (const t of p.triggers) log(`    day ${String(t.day).padStart(2)}  ${t.cluster.padEnd(5)} ${t.intent} @ ${t.scope} → ${t.outcome}${t.key ? ` ${t.key}` : ''}`);
  if (p.triggers.length === 0) log('    none');
  const c = p.confusion;
  log('  triggered vs expected (intent @ scope)');
  log(`                       triggered   not triggered`);
  log(`    expected          ${String(c.expected_and_triggered.length).padStart(9)}   ${String(c.expected_not_triggered.length).padStart(13)}`);
  log(`    not expected      ${String(c.triggered_not_expected.length).padStart(9)}   ${String(c.neither).padStart(13)}`);
  log(`    expected & triggered: ${n(c.expected_and_triggered)}`);
  log(`    expected, not triggered: ${n(c.expected_not_triggered)}`);
  log(`    triggered, not expected: ${n(c.triggered_not_expected)}`);
  log(`  paraphrase separation (${sep.all.pairs} pairs; hard: ${sep.hard.pairs})   same mean  diff mean  margin  AUC    best acc @ threshold`);
  for (const [k, s] of [['all', sep.all], ['hard only', sep.hard]] as const) {
    log(`    ${k.padEnd(10)}                              ${f3(s.same.mean)}      ${f3(s.different.mean)}      ${f3(s.margin)}   ${f3(s.rocAuc)}  ${f3(s.bestAccuracy)} @ ${f3(s.bestThreshold)}`);
  }
  log();
  return {
    dimensions: embedder.dimensions,
    similarity_threshold: p.threshold,
    load_ms: Math.round(loadMs),
    fragments: p.fragments,
    dropped: p.dropped,
    ingest_ms: Math.round(p.ingest_ms),
    fragments_per_s: Math.round(p.fragments_per_s),
    replay_fragments_per_s: Math.round(replay.per_s),
    clusters_global: p.clusters.global,
    clusters_per_client: p.clusters.per_client,
    purity: r3(p.purity),
    pure_clusters: p.pure_clusters,
    intents: p.intents,
    intents_split: p.split,
    triggers: p.triggers,
    confusion: c,
    separation: { all: sepRecord(sep.all), hard: sepRecord(sep.hard) },
  };
}

async function main(): Promise<void> {
  const intents = new Set(stream.map((f) => f.intent)).size;
  log(`Semantic pool (draft-zhou §6.2.1): ${stream.length} labelled fragments, ${intents} intents, ${expected.should_trigger.length} expected triggers (bench/data/stream.expected.json)`);
  log();
  const results: Record<string, unknown> = {};

  const offline = createOfflineEmbedder();
  let t = performance.now();
  await offline.warmUp();
  results[offline.id] = await measure('Offline embedder', offline, performance.now() - t);

  // transformers.js: only a model already on this machine, never a download.
  const model = process.env['PARLEY_EMBEDDINGS_MODEL']?.trim() || DEFAULT_TRANSFORMERS_MODEL;
  const tf = createTransformersEmbedder({ model, localOnly: true });
  t = performance.now();
  let reason: string | null = null;
  try {
    await tf.warmUp();
  } catch (e) {
    reason = e instanceof Error ? e.message : String(e);
  }
  if (reason === null) {
    results[tf.id] = await measure('transformers.js embedder', tf, performance.now() - t);
    await tf.dispose();
  } else {
    log(`transformers.js embedder (${tf.id}): skipped, no local model: ${reason}`);
    log('  (set PARLEY_EMBEDDINGS_MODEL to a model directory, or put the model into the transformers.js cache, to include it)');
    log();
    results[tf.id] = { skipped: true, reason };
  }
  log(JSON.stringify(results));
}

await main();
