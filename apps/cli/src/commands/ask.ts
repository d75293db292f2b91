/**
 * `parley ask "WORDS" [options]`: draft-zhou Figure 1 from the user's side.
 * The words (1) are matched to a registered scenario (2; skipped with
 * --scenario), its template is negotiated (3), the words are mapped to a
 * payload (4; §6.1: a confidence per key, what did not map goes to `other`),
 * the payload is shown and checked with the server's validator, and after a
 * confirmation (or --yes) it is executed (5) and the result printed (6).
 *
 * Exit codes: 0 done (executed, --dry-run, or the user said no); 1 no scenario
 * matched, the payload would be refused (which key and why is printed), or the
 * gateway refused the call or could not be reached; 2 usage.
 */
import { createInterface } from 'node:readline';
import type { AskOptions, AskResult, Mapper, ParleyClient, ScenarioIdentification, UtteranceMapping } from '@parley/client';
import { createLlmMapperFromEnv } from '@parley/client/llm';
import { createEmbedderFromEnv } from '@parley/embeddings';
import { ParleyError, toParleyError, type JsonObject, type JsonValue } from '@parley/protocol';
import { API_KEY_ENV, DEFAULT_URL, UsageError, clientFrom, describe, parseFlags, table, type Parsed } from './rpc-client';
import { progress } from '../progress';

const USAGE = `usage: parley ask "WORDS" [--scenario S] [--agent A] [--dry-run] [--yes] [--today YYYY-MM-DD]
                  [--timezone TZ] [--threshold 0..1] [--mapper offline|llm] [--language TAG] [--json]
                  [--url URL] [--key KEY]

From a user's words to an executed payload (draft-zhou Figure 1, §6.1): finds the scenario,
negotiates its template, maps the words to a payload (a confidence per key; what did not map
goes to "other"), shows it, asks before executing, executes and prints the result.

  WORDS            the request, e.g. "Book me a business flight from Beijing to Shanghai next Monday"
  --scenario S     the scenario (skips identification), e.g. flight_booking
  --agent A        the server agent, when several serve the scenario
  --dry-run        stop before executing
  --yes            execute without asking
  --today DATE     the date relative dates resolve against (default: today in --timezone)
  --timezone TZ    IANA time zone of the user (default: this machine's)
  --threshold T    values mapped with less confidence go to "other" (default 0.5, draft-zhou §6.1)
  --mapper M       offline (default: the template, WordNet and chrono-node only) or llm (an
                   OpenAI-compatible endpoint: PARLEY_LLM_URL, PARLEY_LLM_MODEL, PARLEY_LLM_API_KEY)
  --language TAG   preferred language of the template (BCP 47)
  --json           end with one line of JSON: {"scenario","schema_id","payload","confidence","other",…}
  --url URL        the gateway (default env PARLEY_URL or ${DEFAULT_URL})
  --key KEY        your API key (default env ${API_KEY_ENV}; prefer the env: arguments show in \`ps\`)

Identification uses the offline embedder only when PARLEY_EMBEDDER is set (BM25 otherwise).
Without --yes the question is read from stdin: "y" executes, anything else (or no input) does not.

exit codes: 0 done (executed, dry run, or declined), 1 no scenario / invalid payload / the gateway
refused or could not be reached, 2 usage error
`;

const FLAGS = {
  scenario: 'value',
  agent: 'value',
  today: 'value',
  timezone: 'value',
  threshold: 'value',
  mapper: 'value',
  language: 'value',
  'dry-run': 'switch',
  yes: 'switch',
} as const;

function show(v: JsonValue): string {
  return typeof v === 'string' ? v : JSON.stringify(v);
}

function clip(s: string, max = 60): string {
  return s.length > max ? `${s.slice(0, max - 1)}…` : s;
}

/** The mapping as a person reads it. */
export function mappingText(m: UtteranceMapping, id?: ScenarioIdentification): string {
  const lines: string[] = [];
  const who = id?.agent ? `agent ${id.agent}` : 'agent: any that serves it';
  const how = id && id.ranking.length > 0 ? `; score ${id.score.toFixed(2)}` : '; named with --scenario';
  lines.push(`scenario  ${m.scenario}  (${who}${how})`);
  lines.push(`schema    ${m.schema_id}  (mapper ${m.mapper}; today ${m.today}, ${m.timezone})`);
  lines.push('');
  const rows = Object.entries(m.payload)
    .filter(([k]) => k !== 'other')
    .map(([k, v]) => [k, clip(show(v)), (m.confidence[k] ?? 0).toFixed(2), clip(m.sources[k] ?? '')]);
  if (rows.length > 0) lines.push(table(['key', 'value', 'confidence>', 'from the words'], rows).replace(/^/gm, '  '));
  else lines.push('  (no key was filled)');
  lines.push('');
  lines.push(m.other.length > 0 ? `other     ${m.other.map((o) => JSON.stringify(o)).join(', ')}` : 'other     (nothing)');
  for (const b of m.below_threshold) lines.push(`          ${JSON.stringify(b.words)}: ${b.key} = ${show(b.value)} at confidence ${b.confidence.toFixed(2)}, under the threshold, so sent as other`);
  if (m.missing_required.length > 0) lines.push(`missing   ${m.missing_required.join(', ')} (REQUIRED; the words do not say it, and it is not invented)`);
  for (const n of m.notes) lines.push(`note      ${n}`);
  return lines.join('\n');
}

function summary(m: UtteranceMapping, extra: Record<string, unknown>): string {
  return JSON.stringify({
    scenario: m.scenario,
    schema_id: m.schema_id,
    payload: m.payload,
    confidence: m.confidence,
    other: m.other,
    missing_required: m.missing_required,
    violations: m.violations,
    ...extra,
  });
}

/** One line from stdin, or undefined at its end. */
function readAnswer(): Promise<string | undefined> {
  return new Promise((resolve) => {
    const rl = createInterface({ input: process.stdin, terminal: false });
    let done = false;
    const finish = (v: string | undefined) => {
      if (done) return;
      done = true;
      rl.close();
      resolve(v);
    };
    rl.once('line', (l) => finish(l));
    rl.once('close', () => finish(undefined));
  });
}

function mapperOf(p: Parsed): Mapper | undefined {
  const m = p.values.mapper ?? 'offline';
  if (m === 'offline') return undefined;
  if (m === 'llm') return createLlmMapperFromEnv(process.env);
  throw new UsageError(`--mapper must be offline or llm, got "${m}"`);
}

function embedderOf(): AskOptions['embedder'] {
  if (!process.env.PARLEY_EMBEDDER?.trim()) return undefined;
  return createEmbedderFromEnv(process.env);
}

export async function run(argv: string[]): Promise<number> {
  let p: Parsed;
  let client: ParleyClient;
  let opts: AskOptions;
  let words: string;
  try {
    p = parseFlags(argv, FLAGS);
    if (p.help) {
      process.stdout.write(USAGE);
      return 0;
    }
    words = p.positional.join(' ').trim();
    if (words === '') throw new UsageError('WORDS are missing: say what you want, in quotes');
    if (p.switches.has('dry-run') && p.switches.has('yes')) throw new UsageError('--dry-run and --yes contradict each other');
    const threshold = p.values.threshold === undefined ? undefined : Number(p.values.threshold);
    if (threshold !== undefined && !(threshold >= 0 && threshold <= 1)) throw new UsageError(`--threshold must be a number from 0 to 1, got "${p.values.threshold}"`);
    const mapper = mapperOf(p);
    ({ client } = clientFrom(p, process.env, mapper ? { mapper } : {}));
    const embedder = embedderOf();
    opts = {
      ...(p.values.scenario ? { scenario: p.values.scenario } : {}),
      ...(p.values.agent ? { agent: p.values.agent } : {}),
      ...(p.values.today ? { today: p.values.today } : {}),
      ...(p.values.timezone ? { timezone: p.values.timezone } : {}),
      ...(p.values.language ? { preferred_language: p.values.language } : {}),
      ...(threshold !== undefined ? { threshold } : {}),
      ...(embedder ? { embedder } : {}),
    };
  } catch (e) {
    // A bad option, or an LLM endpoint configured wrongly (PARLEY_LLM_*): usage.
    if (e instanceof UsageError || (e instanceof ParleyError && e.type === 'invalid_params')) {
      process.stderr.write(`parley ask: ${e.message}\n${USAGE}`);
      return 2;
    }
    throw e;
  }
  const json = p.switches.has('json');
  const out = (s: string) => process.stdout.write(`${s}\n`);
  let shown: UtteranceMapping | undefined;
  progress('ask', `${opts.scenario ? `negotiating ${opts.scenario}` : 'finding the scenario among those the registry lists'}, then mapping the words (${p.values.mapper ?? 'offline'} mapper)…`);
  try {
    const r: AskResult = await client.ask(words, {
      ...opts,
      dryRun: p.switches.has('dry-run'),
      confirm: async (m, id) => {
        out(mappingText(m, id));
        shown = m;
        if (p.switches.has('yes')) return true;
        process.stderr.write(`\nExecute this payload${id.agent ? ` with ${id.agent}` : ''}? [y/N] `);
        const answer = (await readAnswer())?.trim().toLowerCase();
        return answer === 'y' || answer === 'yes';
      },
    });
    if (!shown) out(mappingText(r.mapping, r.identification));
    if (r.executed) {
      out(`\nresult\n${JSON.stringify(r.result, null, 2)}`);
    } else {
      out(r.declined ? '\nnot executed (declined)' : '\nnot executed (--dry-run)');
    }
    if (json) out(summary(r.mapping, { agent: r.identification.agent, executed: r.executed, ...(r.executed ? { result: r.result as JsonObject } : {}) }));
    return 0;
  } catch (e) {
    const err = toParleyError(e);
    if (err.type === 'payload_invalid' && err.details.mapping) {
      // Which key and why, before anything ran.
      const m = err.details.mapping as UtteranceMapping;
      out(mappingText(m, err.details.identification as ScenarioIdentification | undefined));
      process.stderr.write(`\nparley ask: ${describe(err)}\n`);
      if (json) out(summary(m, { executed: false }));
      return 1;
    }
    if (err.type === 'scenario_not_found' && err.rule === 'no_matching_scenario') {
      const closest = (err.details.closest ?? []) as Array<{ scenario: string; agent: string; score: number; explained?: number }>;
      process.stderr.write(`parley ask: ${err.message}\n`);
      if (closest.length > 0) {
        process.stderr.write(`${table(['closest scenario', 'agent', 'score>', 'words explained>'], closest.map((c) => [c.scenario, c.agent, c.score.toFixed(2), c.explained === undefined ? '-' : c.explained.toFixed(2)])).replace(/^/gm, '  ')}\n`);
      }
      return 1;
    }
    if (err.type === 'invalid_params' && err.path.startsWith('options.')) {
      // --today, --timezone: checked by the client, a usage error here.
      process.stderr.write(`parley ask: ${err.message}\n${USAGE}`);
      return 2;
    }
    process.stderr.write(`parley ask: ${describe(err)}\n`);
    if (err.type === 'internal' && !(e instanceof ParleyError)) process.stderr.write(`  ${e instanceof Error ? e.message : String(e)}\n`);
    return 1;
  }
}
