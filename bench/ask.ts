// `npm run bench:ask` (`npx tsx bench/ask.ts`): how well `parley ask` turns labelled utterances into payloads
// (draft-zhou Figure 1 steps (2)-(4), §6.1). Each utterance goes through `client.ask` with `dryRun` against an
// embedded Parley (apps/parley startParley, as `npm start` runs it: the seeded scenarios, served by their example
// agents), so identification reads the registry and the templates are the negotiated ones. Printed:
//  - identification: share of utterances whose scenario is the gold one (null = no scenario: `ask` refused with
//    scenario_not_found);
//  - keys right: share of gold key values the payload carries: the gold value or one of its `alternatives`,
//    date-times compared as instants (bench/data/ask/README.md); a wrongly identified utterance scores its gold
//    keys wrong. Also the same given the gold scenario (`mapUtterance` with the gold template);
//  - other reached: share of `other_contains` phrases whose words reached `other`: the phrase inside an item
//    (case- and punctuation-insensitively), or at least two thirds of its words of three letters or more in
//    `other` (the data set asks a scorer to accept paraphrases; this accepts only near ones);
//  - invented: share of the keys the payloads carry (but `other`) that the gold leaves empty (a key only in
//    `alternatives` is optional: one of its listed values is not invented, another value is).
// The last line is one JSON object with the figures.
//
// Options: --file PATH, repeatable (default: bench/data/ask/utterances.dev.json, utterances.dev2.json to utterances.dev10.json,
// utterances.dev12.json and utterances.dev13.json, each reported on its own: dev3 … dev10 and dev12 were validation sets once and
// are dev now, and so are dev13 and dev14 from round 16 on (dev14 with --file); dev11 and dev15 only with --file (dev15
// was read row by row for two rows in round 16: dev from the next round); dev16 (round 15's validation set) and dev17
// (round 16's), only with --file, totals only), --heldout (bench/heldout/ask/utterances.heldout.json to .heldout4.json, each on its own; run by the
// lead at the end, never while tuning), --verbose (one line per utterance), --mapper offline|llm (llm: PARLEY_LLM_*),
// --embedder offline (selection fuses the offline embedder's cosine with BM25, as PARLEY_EMBEDDER would), --local (the seeded templates in this process, no embedded Parley: faster while developing; identification then
// ranks the seeded scenario descriptions as the registry would list them).
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createParleyClient, type Mapper, type ParleyClient, type ScenarioCatalog, type UtteranceMapping } from '@parley/client';
import { SCENARIOS } from '@parley/examples';
import { ParleyError, scenarioId, type JsonValue } from '@parley/protocol';
import { createLogger } from '@parley/runtime';
import { startParley } from '../apps/parley/src/embedded';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
/** The dev and validation sets scored by default, each reported on its own (bench/data/ask/README.md). */
const DEV_FILES = ['', '2', '3', '4', '5', '6', '7', '8', '9', '10', '12', '13'].map((n) => `bench/data/ask/utterances.dev${n}.json`);
// The held-out sets, each reported on its own.
const HELDOUT_FILES = ['', '2', '3', '4'].map((n) => `bench/heldout/ask/utterances.heldout${n}.json`);

interface Labelled {
  id: string;
  text: string;
  scenario: string | null;
  payload: Record<string, JsonValue>;
  other_contains: string[];
  alternatives?: Record<string, JsonValue[]>;
  notes?: string;
}
interface DataSet {
  reference_date: string;
  timezone: string;
  utterances: Labelled[];
}

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i === -1 ? undefined : process.argv[i + 1];
}
const flag = (name: string) => process.argv.includes(`--${name}`);

const norm = (s: string) => s.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, ' ').trim();
const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/;
/** Equal JSON, or the same instant for two RFC 3339 date-times. */
function same(a: JsonValue | undefined, b: JsonValue): boolean {
  if (typeof a === 'string' && typeof b === 'string' && RFC3339.test(a) && RFC3339.test(b)) return Date.parse(a) === Date.parse(b);
  return JSON.stringify(a) === JSON.stringify(b);
}
const accepted = (u: Labelled, k: string, v: JsonValue | undefined): boolean =>
  (Object.prototype.hasOwnProperty.call(u.payload, k) && same(v, u.payload[k] as JsonValue)) || (u.alternatives?.[k] ?? []).some((alt) => same(v, alt));
/** The phrase's content reached `other`: contained in an item, or two thirds of its longer words present. */
function reached(phrase: string, other: readonly string[]): boolean {
  const items = other.map(norm);
  const p = norm(phrase);
  if (items.some((o) => o.includes(p))) return true;
  const words = p.split(' ').filter((w) => w.length >= 3);
  const all = ` ${items.join(' ')} `;
  return words.length > 0 && words.filter((w) => all.includes(w)).length / words.length >= 2 / 3;
}

/** Every `--file PATH` given, in order. */
function files(): string[] {
  const out: string[] = [];
  process.argv.forEach((a, i) => {
    if (a === '--file' && process.argv[i + 1] !== undefined) out.push(process.argv[i + 1] as string);
  });
  return out;
}

async function main(): Promise<void> {
  const chosen = flag('heldout') ? HELDOUT_FILES : files().length > 0 ? files() : DEV_FILES;
  for (const f of chosen) if (!existsSync(join(ROOT, f))) throw new Error(`no data set at ${join(ROOT, f)}`);
  const verbose = flag('verbose');
  let mapper: Mapper | undefined;
  if (arg('mapper') === 'llm') mapper = (await import('@parley/client/llm')).createLlmMapperFromEnv(process.env);

  let client: ParleyClient;
  let catalog: ScenarioCatalog;
  let stop = async () => {};
  const started = Date.now();
  if (flag('local')) {
    client = createParleyClient('http://127.0.0.1:9', mapper ? { mapper } : {});
    catalog = { entries: SCENARIOS.map((s) => ({ scenario: scenarioId(s.template.scenario), agent: 'local', template: s.template, description: s.description, tags: s.tags, domain: s.domain })) };
  } else {
    const parley = await startParley({ port: 0, log: createLogger({ level: 'silent' }) });
    stop = () => parley.stop();
    client = createParleyClient(parley.url, { apiKey: parley.devKey, ...(mapper ? { mapper } : {}) });
    catalog = await client.scenarioCatalog();
  }
  const templates = new Map(catalog.entries.map((e) => [e.scenario, e.template] as const));
  // --embedder offline: selection fuses the offline embedder's cosine (WordNet features and word vectors) with BM25.
  const embedder = arg('embedder') === 'offline' ? (await import('@parley/embeddings')).createOfflineEmbedder() : undefined;
  const setupMs = Date.now() - started;
  for (const f of chosen) await score(join(ROOT, f), { client, catalog, templates, mapper, verbose, setupMs, ...(embedder ? { embedder } : {}) });
  await stop();
}

interface Run {
  client: ParleyClient;
  catalog: ScenarioCatalog;
  templates: ReadonlyMap<string, import('@parley/protocol').SchemaTemplate>;
  mapper: Mapper | undefined;
  verbose: boolean;
  setupMs: number;
  embedder?: import('@parley/adol').TextEmbedder;
}

/** Scores one data set and prints its figures. */
async function score(file: string, run: Run): Promise<void> {
  const { client, catalog, templates, mapper, verbose, setupMs } = run;
  const data = JSON.parse(readFileSync(file, 'utf8')) as DataSet;
  const ref = { today: data.reference_date, timezone: data.timezone };

  let idRight = 0;
  let keysGold = 0;
  let keysRight = 0;
  let keysRightGiven = 0;
  let otherGold = 0;
  let otherReached = 0;
  let emitted = 0;
  let invented = 0;
  const t0 = Date.now();
  for (const u of data.utterances) {
    let predicted: string | null = null;
    let mapping: UtteranceMapping | undefined;
    try {
      const r = await client.ask(u.text, { ...ref, catalog, dryRun: true, ...(run.embedder ? { embedder: run.embedder } : {}) });
      predicted = r.identification.scenario;
      mapping = r.mapping;
    } catch (e) {
      if (!(e instanceof ParleyError)) throw e;
      if (e.type === 'payload_invalid' && e.details.mapping) {
        mapping = e.details.mapping as UtteranceMapping;
        predicted = mapping.scenario;
      } else if (e.type === 'scenario_not_found') predicted = null;
      else throw e;
    }
    if (predicted === u.scenario) idRight++;
    const payload = (mapping?.payload ?? {}) as Record<string, JsonValue>;
    const wrong: string[] = [];
    for (const [k, v] of Object.entries(u.payload)) {
      keysGold++;
      if (predicted === u.scenario && accepted(u, k, payload[k])) keysRight++;
      else wrong.push(`${k}: ${JSON.stringify(payload[k])} ≠ ${JSON.stringify(v)}`);
    }
    // Given the gold scenario: the mapping alone.
    let given = mapping && predicted === u.scenario ? mapping : undefined;
    if (!given && u.scenario && templates.has(u.scenario)) given = await client.mapUtterance(templates.get(u.scenario)!, u.text, ref);
    for (const k of Object.keys(u.payload)) if (given && accepted(u, k, (given.payload as Record<string, JsonValue>)[k])) keysRightGiven++;
    const missed: string[] = [];
    for (const phrase of u.other_contains) {
      otherGold++;
      if (reached(phrase, mapping?.other ?? [])) otherReached++;
      else missed.push(phrase);
    }
    const extra = Object.keys(payload).filter((k) => k !== 'other');
    emitted += extra.length;
    const inv = extra.filter((k) => predicted !== u.scenario || (!Object.prototype.hasOwnProperty.call(u.payload, k) && !accepted(u, k, payload[k])));
    invented += inv.length;
    if (verbose) {
      const ok = predicted === u.scenario && wrong.length === 0 && missed.length === 0 && inv.length === 0;
      console.log(`${ok ? 'ok ' : 'XX '} ${u.id.padEnd(14)} ${String(predicted).padEnd(16)} ${ok ? '' : `gold ${u.scenario}`} ${u.text}`);
      if (!ok) {
        if (wrong.length) console.log(`      wrong:    ${wrong.join('; ')}`);
        if (inv.length) console.log(`      invented: ${inv.map((k) => `${k}=${JSON.stringify(payload[k])}`).join('; ')}`);
        if (missed.length) console.log(`      missed other: ${missed.join(' | ')} (other: ${JSON.stringify(mapping?.other ?? [])})`);
      }
    }
  }
  const n = data.utterances.length;
  const ms = Date.now() - t0;
  const figures = {
    file: file.slice(ROOT.length),
    utterances: n,
    mapper: mapper?.id ?? 'offline-template-v1',
    identification: round(idRight / n),
    keys_right: round(keysRight / Math.max(1, keysGold)),
    keys_right_given_scenario: round(keysRightGiven / Math.max(1, keysGold)),
    other_reached: round(otherReached / Math.max(1, otherGold)),
    invented: round(invented / Math.max(1, emitted)),
    gold_keys: keysGold,
    other_phrases: otherGold,
    ms_per_utterance: round(ms / Math.max(1, n)),
    setup_ms: setupMs,
  };
  console.log(`utterances ${n} (${figures.file}), mapper ${figures.mapper}`);
  console.log(`identification            ${figures.identification.toFixed(3)}  (${idRight}/${n}, null = no scenario)`);
  console.log(`keys right                ${figures.keys_right.toFixed(3)}  (${keysRight}/${keysGold} gold key values)`);
  console.log(`keys right, gold scenario ${figures.keys_right_given_scenario.toFixed(3)}  (${keysRightGiven}/${keysGold})`);
  console.log(`other reached             ${figures.other_reached.toFixed(3)}  (${otherReached}/${otherGold} phrases)`);
  console.log(`invented                  ${figures.invented.toFixed(3)}  (${invented}/${emitted} keys sent that the gold leaves empty)`);
  console.log(JSON.stringify(figures));
}

function round(x: number): number {
  return Math.round(x * 1000) / 1000;
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
