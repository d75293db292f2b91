/**
 * Step (2) of draft-zhou Figure 1: "Agent Discovery and Scenario
 * Identification" from the user's words, "leverag[ing] an agent registry"
 * (Parley's `list_agents`) and the templates of the scenarios found there; "if
 * no suitable server agent is found, the client agent SHOULD report the failure
 * to the end user" (an answer of `null` with the closest scenarios).
 *
 * Two kinds of evidence, combined:
 *  - selection (draft-chang §3.4, libs/adol `selectTools`): each (agent,
 *    scenario) is a tool whose text is the scenario's name, the agent's
 *    description, tags and domain, and the template's keys (names,
 *    descriptions, enum values); BM25, fused with the cosine of an embedder
 *    when one is given. It ranks, but its scores are relative to the best.
 *  - mapping: the template of each of the best-ranked scenarios maps the
 *    utterance (the mapper of step 4). The share of the user's content words a
 *    template explains (mapped to keys, or words of the template itself) is an
 *    absolute measure: an utterance no template explains is no scenario's.
 */
import { OTHER_KEY, payloadJsonSchema, type SchemaTemplate } from '@parley/protocol';
import type { TextEmbedder } from '@parley/adol';
import type { UtteranceMapping } from './mapping';

/** One (agent, scenario) a client may send to. */
export interface ScenarioEntry {
  /** Canonical scenario id. */
  scenario: string;
  agent: string;
  template: SchemaTemplate;
  /** The agent's description, tags and domain from the registry. */
  description?: string;
  tags?: string[];
  domain?: string;
  /** The template's etag (draft-zhou §6.2.2), sent back with execute. */
  etag?: string;
}

/** The scenarios a client can identify among (`client.scenarioCatalog()`). */
export interface ScenarioCatalog {
  readonly entries: readonly ScenarioEntry[];
}

export interface ScenarioScore {
  scenario: string;
  agent: string;
  /** The combined score the decision is made on, 0..1. */
  score: number;
  /** Selection score (draft-chang §3.4), relative to the best-ranked scenario. */
  selection: number;
  /** Share of the utterance's content words the template explains; undefined when not mapped. */
  explained?: number;
  /** Keys the mapping filled. */
  filled?: number;
}

export interface ScenarioIdentification {
  /** The scenario, or null when none explains the words. */
  scenario: string | null;
  agent: string | null;
  score: number;
  /** Every scenario considered, best first (the closest ones when `scenario` is null). */
  ranking: ScenarioScore[];
  /** The mapping of the chosen scenario's template (reused by `ask`). */
  mapping?: UtteranceMapping;
}

export interface IdentifyOptions {
  /** An embedder for hybrid selection (PARLEY_EMBEDDER's); BM25 alone without one. */
  embedder?: TextEmbedder;
  /** How many of the best-selected scenarios are mapped (default 5). */
  candidates?: number;
  /** Least share of explained content words for a scenario to be chosen (default `DEFAULT_MIN_EXPLAINED`). */
  minExplained?: number;
}

/** Measured on the development utterances (bench/ask.ts, BENCHMARKS.md). */
export const DEFAULT_MIN_EXPLAINED = 0.5;
/** Weight of the explained share in the combined score; the rest is selection. */
export const EXPLAINED_WEIGHT = 0.7;
export const DEFAULT_CANDIDATES = 5;

/** The text selection ranks a scenario on. */
export function scenarioTool(e: ScenarioEntry): { name: string; description: string; inputSchema: unknown; tags: string[] } {
  const schema = payloadJsonSchema(e.template) as { properties?: Record<string, unknown> };
  const props = { ...(schema.properties ?? {}) };
  delete props[OTHER_KEY];
  return {
    name: e.scenario,
    description: [e.template.scenario.replace(/_/g, ' '), e.description ?? '', (e.tags ?? []).join(' '), e.domain ?? ''].filter((x) => x !== '').join('. '),
    inputSchema: { ...schema, properties: props },
    tags: e.tags ?? [],
  };
}

const WORD = /[\p{L}\p{N}]+/gu;

/** Lowercase word spans of `s` ([start, end, word]). */
function wordSpans(s: string): [number, number, string][] {
  const out: [number, number, string][] = [];
  for (const m of s.matchAll(WORD)) out.push([m.index, m.index + m[0].length, m[0].toLowerCase()]);
  return out;
}

/**
 * Share of the utterance's content words that the mapping did not have to put
 * in `other` (they went to keys, or are the template's own words or the
 * wrapping of a request). `isContent` says which words count.
 */
export function explainedShare(utterance: string, m: UtteranceMapping, isContent: (word: string) => boolean): number {
  const words = wordSpans(utterance).filter(([, , w]) => isContent(w));
  if (words.length === 0) return 0;
  // Where each `other` phrase lies in the utterance (first unused occurrence).
  const covered: [number, number][] = [];
  for (const p of m.other) {
    let from = 0;
    for (;;) {
      const at = utterance.indexOf(p, from);
      if (at === -1) break;
      if (!covered.some(([a, b]) => a === at && b === at + p.length)) {
        covered.push([at, at + p.length]);
        break;
      }
      from = at + 1;
    }
  }
  const unexplained = words.filter(([a, b]) => covered.some(([x, y]) => a >= x && b <= y)).length;
  return 1 - unexplained / words.length;
}

/** Identifies the scenario of `utterance` among `catalog`; `map` maps it with one entry's template. */
export async function identifyIn(
  utterance: string,
  catalog: ScenarioCatalog,
  opts: IdentifyOptions,
  map: (e: ScenarioEntry) => Promise<UtteranceMapping>,
  isContent: (word: string) => boolean,
): Promise<ScenarioIdentification> {
  const entries = catalog.entries;
  if (entries.length === 0) return { scenario: null, agent: null, score: 0, ranking: [] };
  const minExplained = opts.minExplained ?? DEFAULT_MIN_EXPLAINED;
  const k = opts.candidates ?? DEFAULT_CANDIDATES;
  const { selectTools } = await import('@parley/adol');
  const tools = entries.map(scenarioTool);
  const ranked = await selectTools(tools, utterance, { topK: tools.length, ...(opts.embedder ? { embedder: opts.embedder } : {}) });
  const best = Math.max(1e-9, ...ranked.map((r) => r.score));
  const selection = new Map(ranked.map((r) => [r.tool, Math.max(0, r.score) / best] as const));
  const scored: (ScenarioScore & { mapping?: UtteranceMapping })[] = [];
  for (const [i, tool] of ranked.map((r) => r.tool).entries()) {
    const e = entries[tools.indexOf(tool)] as ScenarioEntry;
    const sel = selection.get(tool) ?? 0;
    if (i >= k) {
      scored.push({ scenario: e.scenario, agent: e.agent, score: (1 - EXPLAINED_WEIGHT) * sel, selection: round(sel) });
      continue;
    }
    const mapping = await map(e);
    const explained = explainedShare(utterance, mapping, isContent);
    scored.push({
      scenario: e.scenario,
      agent: e.agent,
      score: EXPLAINED_WEIGHT * explained + (1 - EXPLAINED_WEIGHT) * sel,
      selection: round(sel),
      explained: round(explained),
      filled: Object.keys(mapping.confidence).length,
      mapping,
    });
  }
  scored.sort((a, b) => b.score - a.score);
  const ranking = scored.map(({ mapping: _m, ...s }) => ({ ...s, score: round(s.score) }));
  const top = scored[0];
  if (!top || top.explained === undefined || top.explained < minExplained) return { scenario: null, agent: null, score: round(top?.score ?? 0), ranking };
  return { scenario: top.scenario, agent: top.agent, score: round(top.score), ranking, ...(top.mapping ? { mapping: top.mapping } : {}) };
}

function round(x: number): number {
  return Math.round(x * 1000) / 1000;
}
