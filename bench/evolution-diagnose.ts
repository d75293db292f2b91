// `npx tsx bench/evolution-diagnose.ts --stream bench/data/evolution/dev-N.jsonl [--gold FILE] [--need-groups[=SHARE]] [--json]`:
// why a recurring need of a dev stream never triggered a key (draft-zhou §6.2.1 dual gate). Dev streams only: it
// refuses any path under bench/heldout/.
//
// It replays the stream through the offline engine as bench/evolution.ts does, then, for every gold intent expected
// global that produced no global key, lists the global clusters holding its fragments: the intent's fragments in each,
// the cluster's size, distinct clients, peak heat and majority label against the gates, and the cosine of the
// clusters' centroids (the mean of their fragments' vectors) against the join and merge thresholds. Each missed intent
// gets one cause:
//  - `split`: its fragments are spread over several clusters, none at the gate alone, while the clusters of the need
//    together hold enough clients (≥ min_distinct_clients) — paraphrases that never met;
//  - `absorbed`: most of its fragments sit in clusters whose majority is another label (a neighbour's cluster);
//  - `language`: most of its fragments are in clusters whose texts are mostly outside the English lexicon;
//  - `fired-elsewhere`: a cluster of it fired but its key went to another label's count (majority lost);
//  - `thin`: too few clients in total.
import { readFileSync } from 'node:fs';
import { createOfflineEmbedder, cosine, loadWordNetLexicon } from '@parley/embeddings';
import { SCENARIOS } from '@parley/examples';
import { createEvolutionEngine } from '@parley/pool';
import { createEmbeddedIndex } from '@parley/vectors';

const DAY = 86_400_000;
const out = (s = ''): void => void process.stdout.write(`${s}\n`);
const r2 = (x: number): number => Math.round(x * 100) / 100;

interface Line {
  at: number;
  scenario: string;
  client_id: string;
  text: string;
  intent: string;
}

function argv(): { stream: string; gold: string; share: number | null; json: boolean } {
  const a = process.argv.slice(2);
  let stream = '';
  let gold = '';
  let share: number | null = null;
  let json = false;
  for (let i = 0; i < a.length; i++) {
    const x = a[i] as string;
    if (x === '--stream') stream = a[++i] ?? '';
    else if (x === '--gold') gold = a[++i] ?? '';
    else if (x === '--json') json = true;
    else if (x === '--need-groups') share = 0.8;
    else if (x.startsWith('--need-groups=')) share = Number(x.slice('--need-groups='.length));
    else throw new Error(`unknown argument ${x}`);
  }
  if (stream === '') throw new Error('--stream FILE is required');
  if (/heldout/.test(stream) || /heldout/.test(gold)) throw new Error('held-out streams are not diagnosed');
  return { stream, gold: gold || stream.replace(/\.jsonl$/, '.gold.json'), share, json };
}

interface ClusterAcc {
  labels: Map<string, number>;
  clients: Set<string>;
  sum: number[] | null;
  texts: Map<string, number>;
  unknownWords: number;
  words: number;
}

async function main(): Promise<void> {
  const { stream, gold, share, json } = argv();
  const lines: Line[] = readFileSync(stream, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => {
      const o = JSON.parse(l) as Record<string, unknown>;
      return { at: typeof o['ts'] === 'number' ? o['ts'] : Date.parse(String(o['ts'])), scenario: String(o['scenario']), client_id: String(o['client_id']), text: String(o['text']), intent: String(o['intent'] ?? 'noise:unlabelled') };
    });
  const g = JSON.parse(readFileSync(gold, 'utf8')) as { intents: { id: string; kind: string; expect: string }[] };
  const embedder = createOfflineEmbedder();
  const lexicon = await loadWordNetLexicon();
  let now = (lines[0] as Line).at;
  const engine = await createEvolutionEngine({
    embedder,
    index: createEmbeddedIndex(),
    templates: SCENARIOS.map((s) => s.template),
    clock: { now: () => now },
    config: { derive_executions: true, ...(share !== null ? { need_group_share: share } : {}) },
    lexicon,
  });
  const acc = new Map<string, ClusterAcc>();
  let next = Math.floor(now / DAY) * DAY + DAY;
  for (const f of lines) {
    while (next <= f.at) {
      now = next;
      engine.tick(next);
      next += DAY;
    }
    now = f.at;
    const res = await engine.ingest({ ts: f.at, scenario: f.scenario, client_id: f.client_id, text: f.text });
    if (res.global_cluster_id === null || res.sanitized === null) continue;
    const c = acc.get(res.global_cluster_id) ?? { labels: new Map(), clients: new Set(), sum: null, texts: new Map(), unknownWords: 0, words: 0 };
    c.labels.set(f.intent, (c.labels.get(f.intent) ?? 0) + 1);
    c.clients.add(f.client_id);
    c.texts.set(res.sanitized, (c.texts.get(res.sanitized) ?? 0) + 1);
    const [v] = await embedder.embed([res.sanitized]);
    if (v) c.sum = c.sum === null ? Array.from(v) : c.sum.map((x, i) => x + (v[i] as number));
    for (const w of res.sanitized.toLowerCase().match(/\p{L}+/gu) ?? []) {
      c.words++;
      if (w.length > 2 && Object.values(lexicon.pos(w)).every((n) => n === 0)) c.unknownWords++;
    }
    acc.set(res.global_cluster_id, c);
  }
  now = next;
  engine.tick(next);
  const resolve = (id: string): string => {
    let cur = id;
    for (let i = 0; i < 64; i++) {
      const nx = engine.cluster(cur, now)?.merged_into ?? null;
      if (!nx) break;
      cur = nx;
    }
    return cur;
  };
  // Fold merged clusters into their survivors.
  const final = new Map<string, ClusterAcc>();
  for (const [id, c] of acc) {
    const to = resolve(id);
    const t = final.get(to);
    if (!t) {
      final.set(to, { ...c, labels: new Map(c.labels), clients: new Set(c.clients), texts: new Map(c.texts) });
      continue;
    }
    for (const [l, n] of c.labels) t.labels.set(l, (t.labels.get(l) ?? 0) + n);
    for (const x of c.clients) t.clients.add(x);
    for (const [x, n] of c.texts) t.texts.set(x, (t.texts.get(x) ?? 0) + n);
    if (c.sum) t.sum = t.sum === null ? c.sum : t.sum.map((x, i) => x + (c.sum as number[])[i]!);
    t.unknownWords += c.unknownWords;
    t.words += c.words;
  }
  const major = (m: Map<string, number>): string => [...m].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))[0]?.[0] ?? '';
  const keyed = new Set<string>();
  for (const t of engine.triggers()) if (t.scope === 'global' && t.outcome !== 'rejected' && t.key_name !== null) keyed.add(major(final.get(resolve(t.cluster_id))?.labels ?? new Map()));
  const cfg = engine.config;
  const mergeAt = cfg.merge_threshold ?? cfg.similarity_threshold + (1 - cfg.similarity_threshold) / 4;
  const causes = new Map<string, string[]>();
  const report: Record<string, unknown>[] = [];
  for (const intent of g.intents.filter((x) => x.kind === 'recurring' && x.expect === 'global')) {
    if (keyed.has(intent.id)) continue;
    const holding = [...final].filter(([, c]) => (c.labels.get(intent.id) ?? 0) > 0).sort((a, b) => (b[1].labels.get(intent.id) ?? 0) - (a[1].labels.get(intent.id) ?? 0));
    const total = holding.reduce((n, [, c]) => n + (c.labels.get(intent.id) ?? 0), 0);
    const clientsAll = new Set(lines.filter((l) => l.intent === intent.id).map((l) => l.client_id));
    const rows = holding.map(([id, c]) => {
      const v = engine.cluster(id, now);
      const mine = c.labels.get(intent.id) ?? 0;
      return { id, mine, size: v?.size ?? 0, clients: v?.distinct_clients ?? c.clients.size, peak_heat: v?.peak_heat ?? 0, triggered: v?.triggered ?? false, key: v?.key_name ?? null, outcome: v?.trigger_outcome ?? null, majority: major(c.labels), unknown_share: c.words ? r2(c.unknownWords / c.words) : 0, top: [...c.texts].sort((a, b) => b[1] - a[1]).slice(0, 2).map(([t]) => t) };
    });
    const own = holding.filter(([, c]) => major(c.labels) === intent.id);
    const cos: { a: string; b: string; cos: number }[] = [];
    for (let i = 0; i < own.length && i < 6; i++) for (let j = i + 1; j < own.length && j < 6; j++) {
      const a = own[i]![1].sum;
      const b = own[j]![1].sum;
      if (a && b) cos.push({ a: own[i]![0], b: own[j]![0], cos: r2(cosine(a, b)) });
    }
    const inOwn = own.reduce((n, [, c]) => n + (c.labels.get(intent.id) ?? 0), 0);
    const ownClients = new Set(own.flatMap(([, c]) => [...c.clients]));
    const unknown = own.reduce((n, [, c]) => n + c.unknownWords, 0) / Math.max(1, own.reduce((n, [, c]) => n + c.words, 0));
    const fired = rows.some((r) => r.triggered && r.majority === intent.id);
    const cause = fired ? 'fired-elsewhere' : inOwn < total / 2 ? 'absorbed' : clientsAll.size < cfg.min_distinct_clients ? 'thin' : own.length > 1 && ownClients.size >= cfg.min_distinct_clients ? (unknown > 0.5 ? 'split (mostly other languages)' : 'split') : 'other';
    causes.set(cause, [...(causes.get(cause) ?? []), intent.id]);
    report.push({ intent: intent.id, cause, fragments: total, clients: clientsAll.size, clusters: holding.length, own_clusters: own.length, in_own: inOwn, own_unknown_word_share: r2(unknown), rows, centroid_cosines: cos });
    if (json) continue;
    out(`${intent.id}: ${cause} — ${total} fragments from ${clientsAll.size} clients in ${holding.length} clusters (${own.length} its own, ${inOwn} fragments there; unknown-word share ${r2(unknown)})`);
    for (const r of rows.slice(0, 8)) out(`   ${r.id.padEnd(6)} ${String(r.mine).padStart(3)}/${String(r.size).padEnd(4)} clients ${String(r.clients).padStart(2)}/${cfg.min_distinct_clients} peak heat ${String(r.peak_heat).padStart(6)}/${cfg.heat_threshold}${r.triggered ? ` fired(${r.outcome} ${r.key})` : ''} maj ${r.majority}  unk ${r.unknown_share}  «${r.top.join(' | ')}»`);
    if (cos.length) out(`   centroid cosines (join ${cfg.similarity_threshold}, merge ${r2(mergeAt)}): ${cos.map((c) => `${c.a}~${c.b} ${c.cos}`).join(', ')}`);
  }
  const counts = Object.fromEntries([...causes].map(([k, v]) => [k, v.length]));
  if (!json) out(`causes: ${JSON.stringify(Object.fromEntries(causes))}`);
  out(JSON.stringify({ stream, counts, report: json ? report : undefined }));
}

await main();
