/**
 * Client text on its way to a model (zhou §7: "When the "other" key contains
 * free-form natural language, server agents MUST apply the same input
 * validation and sanitization practices as they would for any natural language
 * input, preventing prompt injection"). Every fragment is passed through
 * libs/evolution `sanitizeFragment` (fragments with injection phrasing or
 * markup are dropped, not partially stripped), merged with its duplicates,
 * ranked most frequent first and bounded in count and length before it is
 * quoted in a prompt.
 */
import { DEFAULT_MAX_FRAGMENT_CHARS, sanitizeFragment, type InductionSample } from '@parley/evolution';
import { invalid } from './errors';
import type { InductionInput } from './ports';

/** Fragments quoted in one intent-induction prompt (the most frequent ones). */
export const DEFAULT_MAX_FRAGMENTS = 20;
/** Characters of one fragment (or of a judged utterance) quoted in a prompt. */
export const DEFAULT_MAX_PROMPT_CHARS = DEFAULT_MAX_FRAGMENT_CHARS;

export interface PreparedFragment {
  /** The sanitised text, exactly as quoted in the prompt. */
  readonly text: string;
  /** How many fragments had this text (after merging duplicates). */
  readonly count: number;
  /** The per-cluster client pseudonyms behind the text (a global pool's samples); absent when unlabelled. Never sent to the model. */
  readonly clients?: readonly string[];
}

export interface PreparedFragments {
  /** At most `maxFragments`, most frequent first, then shorter, then alphabetical. */
  readonly fragments: readonly PreparedFragment[];
  /** Fragment weight in the input. */
  readonly total: number;
  /** Weight dropped by sanitising (injection, markup, nothing left). */
  readonly dropped_unsafe: number;
  /** Weight of the texts beyond `maxFragments`. */
  readonly over_limit: number;
}

export interface FragmentBounds {
  readonly maxFragments: number;
  readonly maxFragmentChars: number;
}

function weight(s: InductionSample): number {
  return Number.isInteger(s.count) && s.count > 0 ? s.count : 1;
}

/** The shape of an `InductionInput` (a caller's mistake → `invalid_params`). */
export function checkInductionInput(input: InductionInput): void {
  if (input === null || typeof input !== 'object') throw invalid('input', 'type', 'induce: input must be an object { scenario, samples, existing_keys }');
  if (typeof input.scenario !== 'string') throw invalid('input.scenario', 'type', 'induce: scenario must be a string');
  if (!Array.isArray(input.samples)) throw invalid('input.samples', 'type', 'induce: samples must be an array of { text, count }');
  input.samples.forEach((s, i) => {
    if (s === null || typeof s !== 'object' || typeof s.text !== 'string') throw invalid(`input.samples[${i}].text`, 'type', `induce: samples[${i}].text must be a string`);
  });
  if (!Array.isArray(input.existing_keys)) throw invalid('input.existing_keys', 'type', 'induce: existing_keys must be an array of key definitions');
}

/** Sanitises, merges, ranks and bounds a cluster's samples for a prompt (zhou §7). */
export function prepareFragments(samples: readonly InductionSample[], bounds: FragmentBounds): PreparedFragments {
  let total = 0;
  let droppedUnsafe = 0;
  // Same text after sanitising (case-insensitive): one entry, the counts add up.
  const merged = new Map<string, { text: string; count: number; clients?: string[] }>();
  for (const s of samples) {
    const count = weight(s);
    total += count;
    const clean = sanitizeFragment(s.text, bounds.maxFragmentChars).text;
    if (clean === null) {
      droppedUnsafe += count;
      continue;
    }
    const k = clean.toLowerCase();
    const labels = Array.isArray(s.clients) ? s.clients.filter((c): c is string => typeof c === 'string') : [];
    const m = merged.get(k);
    if (m) {
      m.count += count;
      if (labels.length > 0) m.clients = [...new Set([...(m.clients ?? []), ...labels])];
    } else merged.set(k, { text: clean, count, ...(labels.length > 0 ? { clients: [...new Set(labels)] } : {}) });
  }
  const ranked = [...merged.values()].sort((a, b) => b.count - a.count || a.text.length - b.text.length || (a.text < b.text ? -1 : a.text > b.text ? 1 : 0));
  const kept = ranked.slice(0, bounds.maxFragments);
  const overLimit = ranked.slice(bounds.maxFragments).reduce((n, f) => n + f.count, 0);
  return { fragments: kept, total, dropped_unsafe: droppedUnsafe, over_limit: overLimit };
}

/**
 * Model text that other clients will read (a summary, an enum value, an
 * example value): usable only when sanitising finds nothing to flag but a
 * length cut, so instruction-like phrasing, markup, URLs and the like are
 * never passed on verbatim (zhou §7). Returns the sanitised text or null.
 */
export function cleanModelText(s: string, maxChars: number): string | null {
  const r = sanitizeFragment(s, maxChars);
  if (r.text === null || r.flags.some((f) => f !== 'truncated')) return null;
  return r.text;
}

/**
 * Whether a short model-produced string (an enum or example value) survives
 * sanitising unchanged. Underscores count as spaces (snake_case values such as
 * `window_seat` are fine; sanitising would turn them into spaces).
 */
export function isCleanValueText(s: string, maxChars: number): boolean {
  if (s.length > maxChars) return false;
  const spaced = s.replace(/_/gu, ' ');
  const r = sanitizeFragment(spaced, maxChars);
  return r.flags.length === 0 && r.text === spaced;
}

/** Whitespace- and case-insensitive comparison form of a fragment. */
export function fragmentKey(s: string): string {
  return s.normalize('NFKC').replace(/\s+/gu, ' ').trim().toLowerCase();
}
