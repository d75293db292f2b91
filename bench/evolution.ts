// `npm run bench:evolution -- [--stream FILE.jsonl --gold FILE.gold.json] [--heldout] [--json] [--verbose] [--concept-merge] [--frame-choices] [--need-groups[=SHARE]]`: how well schema
// self-evolution (draft-zhou §6.2) does on labelled month-long streams, scored against a gold table.
//
// For each stream it runs the offline engine of `parley simulate` (createEvolutionEngine: the WordNet embedder, the
// embedded vector index, the rule inducer) on a simulated clock, ticking the lifecycle at every midnight UTC (§6.2.3,
// re-induction of growing clusters included), then prints:
//  - purity: the size-weighted share of each global cluster's fragments that carry its majority label;
//  - intents triggered vs expected: recurring intents expected global that produced at least one global key;
//  - noise and burst triggers: patches (any scope) whose source cluster is mostly noise or a burst;
//  - personal leaks and per-client correctness: a personal need patched in its client's cohort and nowhere global;
//  - key names: the intent's key is in acceptable_names, or is the gold base key it should refine;
//  - types: the key's final type (and items_type) is the gold one;
//  - enum precision / recall: the key's final enum against the gold values (value_aliases count as the value);
//  - duplicate keys: intents with more than one key (a key deprecated for the successor that covers it counts as
//    its successor: superseded, not duplicated).
// Each intent's row shows the induced key(s) and, on a miss, the gold names and type beside them.
// `--concept-merge` turns on the pool's online agglomeration by concept (off by default, see BENCHMARKS.md).
// `--need-groups[=SHARE]` turns on the pool's need groups (need_group_share, default share 0.8; off by default, see BENCHMARKS.md).
// `--frame-choices` turns on the rule inducer's choice read from a word's slot (off by default, see BENCHMARKS.md).
// `--verbose` also lists every trigger: scope, outcome, key, final type and values, the cluster's majority label.
// Default: every bench/data/evolution/*.jsonl with the .gold.json beside it. `--heldout` scores
// bench/heldout/evolution/* instead (the lead runs it; engineers never open those files). The last line is one
// JSON object keyed by stream.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createOfflineEmbedder, loadWordNetLexicon } from '@parley/embeddings';
import { SCENARIOS } from '@parley/examples';
import { createEvolutionEngine, type EvolutionEngine, type PatchRecord } from '@parley/pool';
import { scenarioId, type KeyDefinition } from '@parley/protocol';
import { createEmbeddedIndex } from '@parley/vectors';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const DAY = 86_400_000;
const out = (s = ''): void => void process.stdout.write(`${s}\n`);
const r3 = (x: number): number => Math.round(x * 1000) / 1000;

interface Line {
  at: number;
  scenario: string;
  client_id: string;
  text: string;
  intent: string;
}
interface GoldIntent {
  id: string;
  scenario: string;
  kind: 'recurring' | 'personal' | 'burst';
  expect: string;
  acceptable_names: string[];
  type: string;
  items_type?: string;
  values: string[];
  value_aliases?: Record<string, string[]>;
  refines_base_key?: string;
}
interface Gold {
  stream: string;
  intents: GoldIntent[];
}

let verbose = false;
let conceptMerge = false;
let frameChoices = false;
let needGroupShare: number | null = null;
function args(argv: string[]): { pairs: [string, string][]; json: boolean } {
  let stream: string | null = null;
  let gold: string | null = null;
  let heldout = false;
  let json = false;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--stream') stream = argv[++i] ?? null;
    else if (a === '--gold') gold = argv[++i] ?? null;
    else if (a === '--heldout') heldout = true;
    else if (a === '--json') json = true;
    else if (a === '--verbose') verbose = true;
    else if (a === '--concept-merge') conceptMerge = true;
    else if (a === '--frame-choices') frameChoices = true;
    else if (a === '--need-groups') needGroupShare = 0.8;
    else if (a !== undefined && a.startsWith('--need-groups=')) needGroupShare = Number(a.slice('--need-groups='.length));
    else throw new Error(`unknown argument ${a}; usage: npm run bench:evolution -- [--stream FILE --gold FILE] [--heldout] [--json] [--verbose] [--concept-merge] [--frame-choices] [--need-groups[=SHARE]]`);
  }
  if (stream !== null) return { pairs: [[stream, gold ?? stream.replace(/\.jsonl$/, '.gold.json')]], json };
  const dir = join(ROOT, 'bench', heldout ? 'heldout' : 'data', 'evolution');
  if (!existsSync(dir)) throw new Error(`no directory ${dir}`);
  const pairs = readdirSync(dir)
    .filter((f) => f.endsWith('.jsonl'))
    .sort()
    .map((f) => [join(dir, f), join(dir, f.replace(/\.jsonl$/, '.gold.json'))] as [string, string])
    .filter(([, g]) => existsSync(g));
  return { pairs, json };
}

function readStream(file: string): Line[] {
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => {
      const o = JSON.parse(l) as Record<string, unknown>;
      const at = typeof o['ts'] === 'number' ? o['ts'] : Date.parse(String(o['ts']));
      return { at, scenario: String(o['scenario']), client_id: String(o['client_id']), text: String(o['text']), intent: String(o['intent'] ?? 'noise:unlabelled') };
    });
}

function majority(m: ReadonlyMap<string, number> | undefined): { label: string; n: number; size: number } {
  let best = { label: '', n: 0, size: 0 };
  for (const [label, n] of m ?? []) {
    best.size += n;
    if (n > best.n || (n === best.n && label < best.label)) best = { ...best, label, n };
  }
  return best;
}

const norm = (v: unknown): string => String(v).toLowerCase().replace(/[\s-]+/g, '_');

/** The latest definition of every key a patch added, refinements (modified_keys) applied in patch order. */
function finalDefinitions(records: readonly PatchRecord[]): Map<string, KeyDefinition> {
  const defs = new Map<string, KeyDefinition>();
  const ordered = [...records].filter((r) => r.status !== 'rejected').sort((a, b) => a.patch.timestamp - b.patch.timestamp);
  for (const r of ordered) {
    for (const k of r.patch.new_keys) defs.set(`${r.patch.scenario}/${k.definition.key_name}`, { ...k.definition });
    for (const m of r.patch.modified_keys) {
      const id = `${r.patch.scenario}/${m.key_name}`;
      const d = defs.get(id);
      if (d) defs.set(id, { ...d, ...m } as KeyDefinition);
    }
  }
  return defs;
}

async function score(streamFile: string, goldFile: string): Promise<Record<string, unknown>> {
  const lines = readStream(streamFile);
  const gold = JSON.parse(readFileSync(goldFile, 'utf8')) as Gold;
  const embedder = createOfflineEmbedder();
  let now = (lines[0] as Line).at;
  const engine: EvolutionEngine = await createEvolutionEngine({
    embedder,
    index: createEmbeddedIndex(),
    templates: SCENARIOS.map((s) => s.template),
    clock: { now: () => now },
    config: { derive_executions: true, ...(conceptMerge ? { concept_merge: true } : {}), ...(frameChoices ? { frame_choices: true } : {}), ...(needGroupShare !== null ? { need_group_share: needGroupShare } : {}) },
    lexicon: await loadWordNetLexicon(),
  });
  const members = new Map<string, Map<string, number>>();
  const add = (id: string | null, label: string): void => {
    if (id === null) return;
    const m = members.get(id) ?? new Map<string, number>();
    m.set(label, (m.get(label) ?? 0) + 1);
    members.set(id, m);
  };
  const started = performance.now();
  let nextMidnight = Math.floor(now / DAY) * DAY + DAY;
  let failed = 0;
  for (const f of lines) {
    while (nextMidnight <= f.at) {
      now = nextMidnight;
      engine.tick(nextMidnight);
      nextMidnight += DAY;
    }
    now = f.at;
    try {
      const res = await engine.ingest({ ts: f.at, scenario: f.scenario, client_id: f.client_id, text: f.text });
      add(res.global_cluster_id, f.intent);
      add(res.client_cluster_id, f.intent);
    } catch {
      failed++;
    }
  }
  now = nextMidnight;
  engine.tick(nextMidnight);
  const ms = performance.now() - started;

  // Clusters merged into others (online agglomeration) hand their members to the survivor.
  const resolve = (id: string): string => {
    let cur = id;
    for (let i = 0; i < 64; i++) {
      const next = (engine.cluster(cur, now) as { merged_into?: string | null } | null)?.merged_into ?? null;
      if (!next) break;
      cur = next;
    }
    return cur;
  };
  const final = new Map<string, Map<string, number>>();
  for (const [id, m] of members) {
    const to = resolve(id);
    const t = final.get(to) ?? new Map<string, number>();
    for (const [l, n] of m) t.set(l, (t.get(l) ?? 0) + n);
    final.set(to, t);
  }
  const views = new Map(engine.clusters(now).map((c) => [c.id, c]));
  let pure = 0;
  let total = 0;
  for (const [id, m] of final) {
    if (views.get(id)?.scope !== 'global') continue;
    const maj = majority(m);
    pure += maj.n;
    total += maj.size;
  }

  // Keys per (label, scope) from the patches' source clusters.
  const records = engine.patchRecords();
  const defs = finalDefinitions(records);
  interface KeyHit {
    scope: string;
    key: string;
    scenario: string;
    refines: boolean;
    status: string;
  }
  const keysOf = new Map<string, KeyHit[]>();
  for (const r of records) {
    if (r.status === 'rejected' || r.patch.source_cluster_id === null) continue;
    const label = majority(final.get(resolve(r.patch.source_cluster_id))).label;
    const scope = r.patch.scope === 'global' ? 'global' : `client:${r.patch.scope.client_id}`;
    const hits = keysOf.get(label) ?? [];
    const push = (key: string, refines: boolean): void => {
      if (!hits.some((h) => h.scope === scope && h.key === key)) hits.push({ scope, key, scenario: r.patch.scenario, refines, status: r.status });
    };
    for (const k of r.patch.new_keys) push(k.definition.key_name, false);
    for (const m of r.patch.modified_keys) push(m.key_name, true);
    keysOf.set(label, hits);
  }
  // A trigger that found its intent already covered by an existing key (redundant) maps the intent to that key too.
  for (const t of engine.triggers()) {
    if (t.outcome !== 'redundant' || t.key_name === null) continue;
    const label = majority(final.get(resolve(t.cluster_id))).label;
    const scope = t.scope === 'global' ? 'global' : `client:${t.scope}`;
    const hits = keysOf.get(label) ?? [];
    if (!hits.some((h) => h.scope === scope && h.key === t.key_name)) hits.push({ scope, key: t.key_name, scenario: t.scenario, refines: true, status: 'redundant' });
    keysOf.set(label, hits);
  }
  if (verbose) {
    for (const t of engine.triggers()) {
      const m = final.get(resolve(t.cluster_id));
      const maj = majority(m);
      const def = t.key_name === null ? null : defs.get(`${t.scenario}/${t.key_name}`);
      out(`  · ${t.scope.padEnd(20)} ${t.outcome.padEnd(9)} ${String(t.key_name).padEnd(28)} ${def ? `${def.key_type}${def.enum ? ` [${def.enum.join(', ')}]` : ''}` : ''}  ← ${maj.label} ${maj.n}/${maj.size}`);
    }
  }
  // A key deprecated because a successor covers it (a yes/no key that turned out to be a choice) is on its way
  // out: the intent's key is the successor, and the pair is not a duplicate.
  const superseded = new Set<string>();
  for (const r of records) {
    for (const k of r.patch.new_keys) {
      if (k.lifecycle.history.some((h) => h.reasons.some((x) => x.startsWith('superseded by')))) superseded.add(`${r.patch.scenario}/${k.definition.key_name}`);
    }
  }
  for (const [label, hits] of keysOf) {
    const live = hits.filter((h) => !superseded.has(`${h.scenario}/${h.key}`));
    if (live.length > 0 && live.length < hits.length) keysOf.set(label, live);
  }
  const noiseTriggers = [...keysOf].filter(([l]) => l.startsWith('noise:') || l.startsWith('burst:')).flatMap(([l, hs]) => hs.map((h) => `${l} → ${h.key} @ ${h.scope}`));
  // A burst patched only in its own client's pool is reported apart (some gold tables accept it); global ones never are.
  const noiseGlobal = noiseTriggers.filter((t) => t.endsWith('@ global') || t.startsWith('noise:'));

  const recurring = gold.intents.filter((g) => g.kind === 'recurring' && g.expect === 'global');
  const rows = recurring.map((g) => {
    const hits = (keysOf.get(g.id) ?? []).filter((h) => h.scope === 'global');
    const names = [...new Set(hits.map((h) => h.key))];
    const key = names[0] ?? null;
    const base = SCENARIOS.find((s) => scenarioId(s.template.scenario) === scenarioId(g.scenario))?.template;
    const def = key === null ? null : (defs.get(`${scenarioId(g.scenario)}/${key}`) ?? base?.keys.find((k) => k.key_name === key) ?? null);
    const nameOk = key !== null && (g.acceptable_names.includes(key) || (g.refines_base_key !== undefined && key === g.refines_base_key));
    const typeOk = def !== null && def.key_type === g.type && (g.type !== 'array' || g.items_type === undefined || def.items_type === g.items_type);
    let precision: number | null = null;
    let recall: number | null = null;
    if (g.values.length > 0) {
      const canon = (v: unknown): string | null => {
        const n = norm(v);
        for (const gv of g.values) if (norm(gv) === n || (g.value_aliases?.[gv] ?? []).some((a) => norm(a) === n)) return gv;
        return null;
      };
      const got = (def?.enum ?? []).map(canon);
      precision = got.length === 0 ? 0 : got.filter((x) => x !== null).length / got.length;
      recall = new Set(got.filter((x): x is string => x !== null)).size / g.values.length;
    }
    return { id: g.id, keys: names, key, gold_names: [...new Set([...(g.refines_base_key !== undefined ? [g.refines_base_key] : []), ...g.acceptable_names])], gold_type: g.type, name_ok: nameOk, type: def ? `${def.key_type}${def.items_type ? `<${def.items_type}>` : ''}` : null, type_ok: typeOk, enum: def?.enum ?? null, precision, recall };
  });
  const personal = gold.intents.filter((g) => g.kind === 'personal');
  const personalRows = personal.map((g) => {
    // Gold ids of personal needs may carry their prefix already (as stream labels do).
    const hits = keysOf.get(g.id.startsWith('personal:') ? g.id : `personal:${g.id}`) ?? [];
    const own = hits.some((h) => h.scope === g.expect);
    const leaked = hits.some((h) => h.scope === 'global');
    return { id: g.id, own, leaked, ok: own && !leaked };
  });
  const mean = (xs: (number | null)[]): number | null => {
    const v = xs.filter((x): x is number => x !== null);
    return v.length ? v.reduce((a, b) => a + b, 0) / v.length : null;
  };
  const triggered = rows.filter((r) => r.keys.length > 0).length;
  const summary = {
    stream: gold.stream ?? basename(streamFile),
    lines: lines.length,
    failed,
    ms: Math.round(ms),
    purity: total ? r3(pure / total) : null,
    global_clusters: [...final.keys()].filter((id) => views.get(id)?.scope === 'global').length,
    intents_expected: recurring.length,
    intents_triggered: triggered,
    exactly_one_key: rows.filter((r) => r.keys.length === 1).length,
    duplicate_keys: rows.filter((r) => r.keys.length > 1).length,
    noise_or_burst_triggers: noiseTriggers.length,
    noise_or_burst_global: noiseGlobal.length,
    personal_ok: `${personalRows.filter((p) => p.ok).length}/${personalRows.length}`,
    personal_leaks: personalRows.filter((p) => p.leaked).length,
    name_acceptable: r3(rows.filter((r) => r.name_ok).length / Math.max(1, rows.length)),
    type_acceptable: r3(rows.filter((r) => r.type_ok).length / Math.max(1, rows.length)),
    enum_precision: mean(rows.map((r) => r.precision)) === null ? null : r3(mean(rows.map((r) => r.precision)) as number),
    enum_recall: mean(rows.map((r) => r.recall)) === null ? null : r3(mean(rows.map((r) => r.recall)) as number),
  };
  return { summary, rows, personal: personalRows, noise_triggers: noiseTriggers };
}

const { pairs, json } = args(process.argv.slice(2));
if (pairs.length === 0) {
  out('no streams to score');
  process.exit(1);
}
const all: Record<string, unknown> = {};
for (const [s, g] of pairs) {
  const res = await score(s, g);
  const sum = res['summary'] as Record<string, unknown>;
  all[String(sum['stream'])] = sum;
  if (json) continue;
  out(`${sum['stream']} (${sum['lines']} lines, ${sum['ms']} ms${sum['failed'] ? `, ${sum['failed']} lines failed` : ''})`);
  out(`  purity ${sum['purity']} over ${sum['global_clusters']} global clusters`);
  out(`  recurring intents triggered ${sum['intents_triggered']}/${sum['intents_expected']}, exactly one key ${sum['exactly_one_key']}, duplicates ${sum['duplicate_keys']}`);
  out(`  noise or burst triggers ${sum['noise_or_burst_triggers']}${(res['noise_triggers'] as string[]).length ? `: ${(res['noise_triggers'] as string[]).join('; ')}` : ''}`);
  out(`  personal needs per-client ${sum['personal_ok']}, leaked global ${sum['personal_leaks']}`);
  out(`  key names acceptable ${sum['name_acceptable']}, types ${sum['type_acceptable']}, enum precision ${sum['enum_precision']} recall ${sum['enum_recall']}`);
  for (const r of res['rows'] as Record<string, unknown>[]) {
    out(`    ${String(r['id']).padEnd(24)} ${(r['keys'] as string[]).join(', ') || '—'}  ${r['type'] ?? ''}${r['enum'] ? ` [${(r['enum'] as unknown[]).join(', ')}]` : ''}  name ${r['name_ok'] ? 'ok' : 'no'}, type ${r['type_ok'] ? 'ok' : 'no'}${r['precision'] !== null ? `, P ${r3(r['precision'] as number)} R ${r3(r['recall'] as number)}` : ''}`);
    // A miss shows what the gold table would have accepted beside what was induced.
    if (!r['name_ok'] || !r['type_ok']) out(`      ${''.padEnd(22)} gold: ${(r['gold_names'] as string[]).join(' | ')}  ${String(r['gold_type'])}`);
  }
}
out(JSON.stringify(all));
