// `npx tsx bench/embeddings.ts`: the offline default embedder of @parley/embeddings, measured.
//  (a) separation on the labelled paraphrase set (libs/embeddings/test/fixtures/paraphrases.json):
//      mean/median cosine of same- vs different-intent pairs, ROC AUC, the best-threshold
//      accuracy, precision/recall by threshold and the threshold recommended as this
//      embedder's clustering default (best F1);
//      overall and on the hard pairs only (different-intent pairs from the same world);
//  (b) WordNet load time and resident memory, embeddings per second (cold: new words; warm:
//      words seen, text cache off; cached: repeated texts);
//  (c) what it gives ADOL tool selection (draft-chang §3.4): recall@1/@5 on the GitHub MCP
//      server (../shared/data/mcp-tools/github.json, bench/data/github-queries.json) per mode;
//  (d) ablations: without WordNet expansion, without the software thesaurus, at 512 dimensions, without the
//      GloVe word vectors (WordNet-only, `offline-wordnet-v1`) and with them alone (β = 1).
// No services needed. The last line is one JSON object with the figures.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { evaluateSelection, type SelectOptions, type ToolLike } from '@parley/adol';
import { cosine, createOfflineEmbedder, separation, type OfflineEmbedderOptions, type Separation } from '@parley/embeddings';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const PARAPHRASES = join(ROOT, 'libs', 'embeddings', 'test', 'fixtures', 'paraphrases.json');
const GITHUB = join(ROOT, '..', 'shared', 'data', 'mcp-tools', 'github.json');
const QUERIES = join(ROOT, 'bench', 'data', 'github-queries.json');
const log = (s = ''): void => void process.stdout.write(`${s}\n`);

interface Pair {
  a: string;
  b: string;
  label: 'same' | 'different';
  world: string;
}
interface Query {
  query: string;
  tool: string;
  set: 'dev' | 'holdout';
}

const pairs = (JSON.parse(readFileSync(PARAPHRASES, 'utf8')) as { pairs: Pair[] }).pairs;
if (!existsSync(GITHUB)) throw new Error(`GitHub tool list not found at ${GITHUB} (the repo root's parent must hold shared/data/mcp-tools)`);
const tools = JSON.parse(readFileSync(GITHUB, 'utf8')) as ToolLike[];
const queries = (JSON.parse(readFileSync(QUERIES, 'utf8')) as { queries: Query[] }).queries;

const r3 = (x: number): number => Math.round(x * 1000) / 1000;
const f3 = (x: number): string => x.toFixed(3);

async function pairScores(opts: OfflineEmbedderOptions): Promise<{ score: number; same: boolean; hard: boolean }[]> {
  const e = createOfflineEmbedder(opts);
  const va = await e.embed(pairs.map((p) => p.a));
  const vb = await e.embed(pairs.map((p) => p.b));
  return pairs.map((p, i) => ({ score: cosine(va[i]!, vb[i]!), same: p.label === 'same', hard: p.label === 'same' || p.world !== 'cross' }));
}

/** Precision of "same" among pairs scoring >= t. */
function precisionAt(scores: { score: number; same: boolean }[], t: number): { precision: number; recall: number } {
  const above = scores.filter((s) => s.score >= t);
  const same = scores.filter((s) => s.same).length;
  const tp = above.filter((s) => s.same).length;
  return { precision: above.length ? tp / above.length : 1, recall: same ? tp / same : 0 };
}

/** Cosines of all pairs of distinct fragments from different worlds of the paraphrase set. */
async function nullDistribution(): Promise<number[]> {
  const items = [...new Map(pairs.filter((p) => p.world !== 'cross').flatMap((p) => [[p.a, p.world] as const, [p.b, p.world] as const])).entries()];
  const vs = await createOfflineEmbedder().embed(items.map(([text]) => text));
  const out: number[] = [];
  for (let i = 0; i < items.length; i++) {
    for (let j = i + 1; j < items.length; j++) if (items[i]![1] !== items[j]![1]) out.push(cosine(vs[i]!, vs[j]!));
  }
  return out.sort((a, b) => a - b);
}

function quantile(sorted: readonly number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * (sorted.length - 1)))] ?? Number.NaN;
}

async function recall(opts: OfflineEmbedderOptions, select: Omit<SelectOptions, 'embedder'>, set?: 'dev' | 'holdout'): Promise<{ r1: number; r5: number }> {
  const e = createOfflineEmbedder(opts);
  const qs = set ? queries.filter((q) => q.set === set) : queries;
  const mode = select.mode ?? 'hybrid';
  const r = await evaluateSelection(tools, qs, mode === 'lexical' ? select : { ...select, embedder: e });
  return { r1: r3(r.recall_at_1), r5: r3(r.recall_at_5) };
}

async function main(): Promise<void> {
  // (b) load and throughput first, on a fresh process heap.
  const rssBefore = process.memoryUsage().rss;
  const loadE = createOfflineEmbedder();
  const t0 = performance.now();
  await loadE.warmUp();
  const loadMs = performance.now() - t0;
  const stats = loadE.stats();
  const rssAfterLoad = process.memoryUsage().rss;

  const texts = tools.map((t) => `${t.name.replace(/_/g, ' ')}. ${t.description ?? ''}`);
  const cold = createOfflineEmbedder({ cacheSize: 0 });
  await cold.warmUp();
  let t = performance.now();
  await cold.embed(texts);
  const coldPerS = texts.length / ((performance.now() - t) / 1000);
  t = performance.now();
  const rounds = 20;
  for (let i = 0; i < rounds; i++) await cold.embed(texts);
  const warmPerS = (rounds * texts.length) / ((performance.now() - t) / 1000);
  await loadE.embed(texts);
  t = performance.now();
  for (let i = 0; i < rounds; i++) await loadE.embed(texts);
  const cachedPerS = (rounds * texts.length) / ((performance.now() - t) / 1000);

  // (a) separation.
  const scores = await pairScores({});
  const all = separation(scores);
  const hard = separation(scores.filter((s) => s.hard));
  const worlds = ['flight_booking', 'photo_retouch', 'fault_management'].map((w) => {
    const s = separation(scores.filter((_, i) => pairs[i]!.world === w));
    return { world: w, pairs: s.pairs, same_mean: r3(s.same.mean), different_mean: r3(s.different.mean), auc: r3(s.rocAuc) };
  });
  // The clustering default: the threshold on a 0.05 grid with the best F1 of "same" (a merge
  // of two fragments is a claim that they mean the same; precision and recall both matter).
  const grid = Array.from({ length: 19 }, (_, i) => r3(0.05 * (i + 1)));
  const curve = grid.map((th) => {
    const { precision, recall } = precisionAt(scores, th);
    return { threshold: th, precision: r3(precision), recall: r3(recall), f1: r3(precision + recall > 0 ? (2 * precision * recall) / (precision + recall) : 0) };
  });
  const best = curve.reduce((a, b) => (b.f1 > a.f1 ? b : a));
  // The noise floor: cosines between fragments of different worlds, which never share an intent.
  // Clustering links every pair above the threshold, so 1 % of unrelated pairs above it already
  // chains clusters together: the threshold must clear the 99th percentile of this null.
  const nullScores = await nullDistribution();
  const p99 = quantile(nullScores, 0.99);
  const recommended = Math.max(best.threshold, Math.ceil(p99 * 20) / 20);
  const atRecommended = precisionAt(scores, recommended);
  const at085 = precisionAt(scores, 0.85);

  log('Offline embedder (@parley/embeddings createOfflineEmbedder, defaults)');
  log(`  WordNet load: ${loadMs.toFixed(0)} ms, ${(stats.wordnetBytes! / 1e6).toFixed(1)} MB of dict files held (exceptions: ${stats.exceptionSource}), RSS +${((rssAfterLoad - rssBefore) / 1e6).toFixed(0)} MB`);
  log(`  embeddings/s: cold ${coldPerS.toFixed(0)} (new words), warm ${warmPerS.toFixed(0)} (text cache off), cached ${cachedPerS.toFixed(0)}  [${texts.length} GitHub tool names+descriptions]`);
  log();
  const row = (name: string, s: Separation) =>
    `  ${name.padEnd(10)} ${String(s.pairs).padStart(5)}  ${f3(s.same.mean)} / ${f3(s.same.median)}   ${f3(s.different.mean)} / ${f3(s.different.median)}   ${f3(s.margin)}  ${f3(s.rocAuc)}  ${f3(s.bestAccuracy)} @ ${f3(s.bestThreshold)}`;
  log(`Separation on ${pairs.length} labelled pairs (${all.same.count} same-intent, ${all.different.count} different-intent)`);
  log('  pairs      count  same mean/median   diff mean/median   margin  AUC    best acc @ threshold');
  log(row('all', all));
  log(row('hard only', hard));
  for (const w of worlds) log(`  ${w.world.padEnd(17)} ${w.pairs} pairs: same ${f3(w.same_mean)}, different ${f3(w.different_mean)}, AUC ${f3(w.auc)}`);
  log('  threshold  precision  recall  F1   (a pair scoring >= threshold is taken as same-intent)');
  for (const c of curve.filter((c) => [0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.5, 0.6, 0.7, 0.85].includes(c.threshold))) {
    log(`  ${c.threshold.toFixed(2).padStart(9)}  ${f3(c.precision).padStart(9)}  ${f3(c.recall).padStart(6)}  ${f3(c.f1)}`);
  }
  log(`  best F1 at ${best.threshold.toFixed(2)}; unrelated fragments (${nullScores.length} cross-world pairs): median ${f3(quantile(nullScores, 0.5))}, p95 ${f3(quantile(nullScores, 0.95))}, p99 ${f3(p99)}, max ${f3(quantile(nullScores, 1))}`);
  log(`  recommended clustering threshold (best F1, at least the null's p99, on a 0.05 grid): ${recommended.toFixed(2)} (precision ${f3(atRecommended.precision)}, recall ${f3(atRecommended.recall)});`);
  log(`  at 0.85: precision ${f3(at085.precision)}, recall ${f3(at085.recall)}`);
  log();

  // (c) tool selection.
  const sel = {
    lexical: await recall({}, { mode: 'lexical' }),
    semantic: await recall({}, { mode: 'semantic' }),
    hybrid: await recall({}, {}),
    hybrid_dev: await recall({}, {}, 'dev'),
    hybrid_holdout: await recall({}, {}, 'holdout'),
    semantic_text: await recall({}, { mode: 'semantic', representation: 'text' }),
    hybrid_text: await recall({}, { representation: 'text' }),
  };
  log(`ADOL tool selection, GitHub (${tools.length} tools, ${queries.length} queries: ${queries.filter((q) => q.set === 'dev').length} dev, ${queries.filter((q) => q.set === 'holdout').length} holdout), recall@1 / recall@5`);
  for (const [k, v] of Object.entries(sel)) log(`  ${k.padEnd(16)} ${f3(v.r1)} / ${f3(v.r5)}`);
  log();

  // (d) ablations.
  const variants: Record<string, OfflineEmbedderOptions> = {
    'no WordNet expansion': { weights: { synonym: 0, derivation: 0, hypernym: 0, gloss: 0 } },
    'no thesaurus': { thesaurus: false },
    'neither': { thesaurus: false, weights: { synonym: 0, derivation: 0, hypernym: 0, gloss: 0 } },
    '512 dimensions': { dimensions: 512 },
    '1024 dimensions': { dimensions: 1024 },
    'no word vectors': { wordVectors: false },
    'word vectors only': { wordVectorWeight: 1 },
  };
  const ablations: Record<string, { auc: number; margin: number; r1: number; r5: number }> = {};
  log('Ablations: paraphrase AUC / margin, GitHub hybrid recall@1 / @5');
  for (const [name, opts] of Object.entries(variants)) {
    const s = separation(await pairScores(opts));
    const r = await recall(opts, {});
    ablations[name] = { auc: r3(s.rocAuc), margin: r3(s.margin), r1: r.r1, r5: r.r5 };
    log(`  ${name.padEnd(22)} ${f3(s.rocAuc)} / ${f3(s.margin)}   ${f3(r.r1)} / ${f3(r.r5)}`);
  }
  log();

  log(
    JSON.stringify({
      load_ms: Math.round(loadMs),
      wordnet_mb: r3(stats.wordnetBytes! / 1e6),
      embeddings_per_s_cold: Math.round(coldPerS),
      embeddings_per_s_warm: Math.round(warmPerS),
      embeddings_per_s_cached: Math.round(cachedPerS),
      pairs: all.pairs,
      same_mean: r3(all.same.mean),
      same_median: r3(all.same.median),
      different_mean: r3(all.different.mean),
      different_median: r3(all.different.median),
      margin: r3(all.margin),
      roc_auc: r3(all.rocAuc),
      best_accuracy: r3(all.bestAccuracy),
      best_threshold: r3(all.bestThreshold),
      hard_roc_auc: r3(hard.rocAuc),
      hard_margin: r3(hard.margin),
      null_p99: r3(p99),
      recommended_threshold: recommended,
      recommended_precision: r3(atRecommended.precision),
      recommended_recall: r3(atRecommended.recall),
      recall_at_085: r3(at085.recall),
      github_recall_at_1: sel.hybrid.r1,
      github_recall_at_5: sel.hybrid.r5,
      github_holdout_recall_at_5: sel.hybrid_holdout.r5,
      ablations,
    }),
  );
}

main().catch((e: unknown) => {
  process.stderr.write(`bench/embeddings: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
  process.exit(1);
});
