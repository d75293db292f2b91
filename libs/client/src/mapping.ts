/**
 * Step (4) of draft-zhou Figure 1 on the client side: from the user's words to
 * a payload of the negotiated template (§6.1 "LLM-based Semantic Parsing").
 *
 * The `Mapper` port turns one utterance into values for the template's keys,
 * each with a confidence and the words it came from, plus the phrases it could
 * not map. What every mapper shares lives here, so the rules are the same
 * whichever adapter maps:
 *  - the utterance is bounded and normalised before any adapter sees it;
 *  - §6.1 "Confidence thresholding": a value under the threshold is not sent;
 *    the words it came from go to `other` instead "rather than risk a
 *    hallucinated mapping";
 *  - §4.3: `other` carries what did not map, as the template declares it (a
 *    string or an array of strings);
 *  - §3.2 step (4): REQUIRED keys the words did not fill are reported, never
 *    invented; the payload is checked with the validator the server compiles
 *    (libs/protocol `compilePayloadValidator`), so a bad value is named by key
 *    and rule before anything is executed.
 *
 * Adapters: `@parley/client/offline` (the default: only the template, WordNet
 * and chrono-node) and `@parley/client/llm` (an OpenAI-compatible chat
 * endpoint). Both are loaded only when used, so importing `@parley/client`
 * stays cheap.
 */
import { OTHER_KEY, ParleyError, compilePayloadValidator, type JsonObject, type JsonValue, type PayloadValidator, type SchemaTemplate, type Violation } from '@parley/protocol';

/** Characters of an utterance a mapper accepts (a request to an agent, not a document). */
export const MAX_UTTERANCE_CHARS = 2000;
/** §6.1 confidence threshold: values under it go to `other`. */
export const DEFAULT_CONFIDENCE_THRESHOLD = 0.5;

/** What a mapper is given. */
export interface MappingContext {
  readonly template: SchemaTemplate;
  /** The user's words: NFKC, control characters as spaces, well-formed UTF-16, trimmed, at most MAX_UTTERANCE_CHARS. */
  readonly utterance: string;
  /** The user's local date (YYYY-MM-DD) relative dates resolve against ("next Monday"). */
  readonly today: string;
  /** The user's IANA time zone: the offset of a date-time the user gave without one. */
  readonly timezone: string;
  /** The reference instant: noon of `today` in `timezone` when `today` was given, else the clock's now. */
  readonly now: Date;
  /** True when only `today` was given: `now` is the noon that stands for a day whose time of day is unknown. */
  readonly dayOnly?: boolean;
  /** The confidence threshold the result will be cut at (a mapper may use it to decide what to try). */
  readonly threshold: number;
}

/** One key's value as a mapper found it. */
export interface MappedValue {
  readonly value: JsonValue;
  /** 0..1: how sure the mapper is that the user meant this value for this key. */
  readonly confidence: number;
  /** The user's words the value came from (what reaches `other` when the value is not sent). */
  readonly words: string;
}

export interface MapperOutput {
  /** Key name → value. Keys outside the template (and `other`) are ignored, with a note. */
  readonly values: ReadonlyMap<string, MappedValue>;
  /** Phrases of the utterance no key took, in the user's words (§4.3, §6.1). */
  readonly other: readonly string[];
  /** What the mapper wants the caller to know (e.g. a model answer it corrected). */
  readonly notes?: readonly string[];
  /**
   * Share (0..1) of the utterance's content words the template accounts for, when the mapper can tell
   * (scenario identification reads it; without it, the words left in `other` decide).
   */
  readonly explained?: number;
  /**
   * How many phrases the template recognised without sending a value for them: its own `other` examples
   * ("make the eyes a little bigger") and keys named with no value said ("smooth the skin"). Evidence of the
   * scenario for identification, as a filled key is.
   */
  readonly recognised?: number;
  /**
   * How many of the user's words, taken by no value, lie in the field of meaning of the template's names (WordNet
   * kinds and derivations of the scenario's and keys' names and enum values: "snapshot", "fuzzy" for photo_retouch).
   * Evidence of the scenario for identification, weaker than a phrase recognised, and only beside other evidence.
   */
  readonly associated?: number;
  /**
   * Words of the request that name a sister of the scenario's own concept, not the concept ("a train" for a flight
   * template: another way to travel). Evidence against the scenario for identification (draft-zhou §6.1).
   */
  readonly rivals?: readonly string[];
  /**
   * Words of the scenario's name the request says, spelled or inflected, as nouns ("flights" for flight_booking).
   * Evidence for the scenario (draft-zhou §6.1, identification), as the name spelled is. Only words of the
   * scenario's name are kept.
   */
  readonly named?: readonly string[];
  /**
   * Words of the scenario's name the request says only by a synonym of their first WordNet noun sense, at the head
   * of the request ("pics" for photo_retouch): weaker evidence than `named`. Only words of the scenario's name are kept.
   */
  readonly namedBySynonym?: readonly string[];
}

/** The port: one utterance, one template, values with confidences. */
export interface Mapper {
  /** Names the adapter in results, e.g. `offline-template-v1`, `openai:gpt-4o-mini`. */
  readonly id: string;
  map(ctx: MappingContext): Promise<MapperOutput>;
}

export interface MapUtteranceOptions {
  /** The user's local date, YYYY-MM-DD (default: today in `timezone` by `clock`). */
  today?: string;
  /** IANA time zone (default: the process's, `Intl.DateTimeFormat().resolvedOptions().timeZone`). */
  timezone?: string;
  /** The clock, when `today` is not given (default `() => new Date()`). */
  clock?: () => Date;
  /** §6.1 confidence threshold in [0, 1] (default 0.5). */
  threshold?: number;
  /** The mapper (default: the offline mapper, loaded on first use and kept by the client). */
  mapper?: Mapper;
  /** The scenario id the template was negotiated for (default: the template's `scenario`). */
  scenario?: string;
}

/** A value the mapper found but under the threshold: its words went to `other`. */
export interface BelowThreshold {
  key: string;
  value: JsonValue;
  confidence: number;
  words: string;
}

/** What `mapUtterance` returns: the payload and how it was made. */
export interface UtteranceMapping {
  scenario: string;
  schema_id: string;
  /** The payload to execute: only keys the words filled (the server applies defaults), and `other`. */
  payload: JsonObject;
  /** Per key of the payload but `other`: the mapper's confidence, 0..1. */
  confidence: Record<string, number>;
  /** What went to `other`, one phrase per item, in the user's words. */
  other: string[];
  /** Per key of the payload but `other`: the user's words it came from. */
  sources: Record<string, string>;
  /** Values under the threshold, sent as `other` instead. */
  below_threshold: BelowThreshold[];
  /** REQUIRED keys the words did not fill (§3.2 (4)): reported, never invented. */
  missing_required: string[];
  /** What the server's validator says about the payload; empty when it would be accepted. */
  violations: Violation[];
  mapper: string;
  today: string;
  timezone: string;
  notes: string[];
  /** The mapper's own share of explained words, when it reports one (see MapperOutput.explained). */
  explained?: number;
  /** Phrases the template recognised without a value (see MapperOutput.recognised). */
  recognised?: number;
  /** The user's words in the template's field of meaning (see MapperOutput.associated). */
  associated?: number;
  /** Words naming a sister of the scenario's concept (see MapperOutput.rivals). */
  rivals?: string[];
  /** Words of the scenario's name the request says (see MapperOutput.named). */
  named?: string[];
  /** Words of the scenario's name the request says by a synonym only (see MapperOutput.namedBySynonym). */
  namedBySynonym?: string[];
}

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

function invalid(path: string, rule: string, message: string): ParleyError {
  return new ParleyError('invalid_params', message, { path, rule });
}

/**
 * The utterance as mappers see it: bounded first (before any pattern runs),
 * then NFKC, C0/C1 controls and lone surrogates as spaces, whitespace runs as one space.
 * Throws `invalid_params` at `utterance` (rules `type`, `max_length`, `required`).
 */
export function prepareUtterance(utterance: unknown, path = 'utterance'): string {
  if (typeof utterance !== 'string') throw invalid(path, 'type', `${path} must be a string`);
  if (utterance.length > MAX_UTTERANCE_CHARS * 2) {
    throw invalid(path, 'max_length', `${path} has ${utterance.length} characters; at most ${MAX_UTTERANCE_CHARS} are mapped (say one request at a time)`);
  }
  const s = utterance
    // Lone surrogates first: NFKC and the tokenizers want well-formed UTF-16.
    .replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, ' ')
    .normalize('NFKC')
    .replace(/[\u0000-\u001f\u007f-\u009f\ufffd]/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  if (s.length > MAX_UTTERANCE_CHARS) {
    throw invalid(path, 'max_length', `${path} has ${s.length} characters; at most ${MAX_UTTERANCE_CHARS} are mapped (say one request at a time)`);
  }
  if (s === '') throw invalid(path, 'required', `${path} is empty`);
  return s;
}

/** Whether `tz` is an IANA time zone this runtime knows. */
export function isTimeZone(tz: string): boolean {
  if (tz.length === 0 || tz.length > 64) return false;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: tz });
    return true;
  } catch {
    return false;
  }
}

/** The local calendar date of `instant` in `tz`, YYYY-MM-DD. */
export function localDate(instant: Date, tz: string): string {
  const parts = new Intl.DateTimeFormat('en-CA', { timeZone: tz, year: 'numeric', month: '2-digit', day: '2-digit' }).formatToParts(instant);
  const get = (t: string) => parts.find((p) => p.type === t)?.value ?? '';
  return `${get('year')}-${get('month')}-${get('day')}`;
}

/** Time zones whose offset formatter was built (building one costs far more than formatting with it). */
const MAX_ZONE_FORMATS = 64;
const zoneFormats = new Map<string, Intl.DateTimeFormat>();
function offsetFormat(tz: string): Intl.DateTimeFormat {
  let f = zoneFormats.get(tz);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', { timeZone: tz, timeZoneName: 'longOffset' });
    if (zoneFormats.size >= MAX_ZONE_FORMATS) zoneFormats.delete(zoneFormats.keys().next().value as string);
    zoneFormats.set(tz, f);
  }
  return f;
}

/** Offset of `tz` from UTC at `instant`, in minutes (Europe/Paris in winter: 60). */
export function offsetMinutes(tz: string, instant: Date): number {
  const name = offsetFormat(tz).formatToParts(instant).find((p) => p.type === 'timeZoneName')?.value ?? 'GMT';
  const m = /^GMT([+-])(\d{2}):(\d{2})$/.exec(name);
  if (!m) return 0;
  const v = Number(m[2]) * 60 + Number(m[3]);
  return m[1] === '-' ? -v : v;
}

/** The instant of a wall-clock time in `tz` (two passes settle the offset, DST edges included). */
export function zonedInstant(tz: string, y: number, mo: number, d: number, h = 0, mi = 0, s = 0): Date {
  const wall = Date.UTC(y, mo - 1, d, h, mi, s);
  let t = wall - offsetMinutes(tz, new Date(wall)) * 60_000;
  t = wall - offsetMinutes(tz, new Date(t)) * 60_000;
  return new Date(t);
}

export interface Reference {
  today: string;
  timezone: string;
  now: Date;
  /** Only `today` was given: `now` is noon standing for that day. */
  dayOnly?: boolean;
}

/** Checks the date options and fixes the reference: `today` at noon in `timezone`, or the clock's now. */
export function referenceFrom(opts: Pick<MapUtteranceOptions, 'today' | 'timezone' | 'clock'>): Reference {
  const timezone = opts.timezone ?? Intl.DateTimeFormat().resolvedOptions().timeZone ?? 'UTC';
  if (typeof timezone !== 'string' || !isTimeZone(timezone)) throw invalid('options.timezone', 'time_zone', `timezone ${JSON.stringify(String(timezone).slice(0, 64))} is not an IANA time zone (e.g. Europe/Paris)`);
  if (opts.today !== undefined) {
    const m = typeof opts.today === 'string' ? DATE.exec(opts.today) : null;
    const y = Number(m?.[1]);
    const mo = Number(m?.[2]);
    const d = Number(m?.[3]);
    const check = new Date(Date.UTC(y, mo - 1, d));
    if (!m || check.getUTCFullYear() !== y || check.getUTCMonth() !== mo - 1 || check.getUTCDate() !== d) {
      throw invalid('options.today', 'format', `today must be a calendar date YYYY-MM-DD, got ${JSON.stringify(String(opts.today).slice(0, 32))}`);
    }
    return { today: opts.today, timezone, now: zonedInstant(timezone, y, mo, d, 12), dayOnly: true };
  }
  const now = (opts.clock ?? (() => new Date()))();
  if (!(now instanceof Date) || Number.isNaN(now.getTime())) throw invalid('options.clock', 'type', 'clock must return a valid Date');
  return { today: localDate(now, timezone), timezone, now };
}

/** The threshold option, checked. */
export function thresholdFrom(v: unknown): number {
  if (v === undefined) return DEFAULT_CONFIDENCE_THRESHOLD;
  if (typeof v !== 'number' || !(v >= 0 && v <= 1)) throw invalid('options.threshold', 'range', 'threshold must be a number in [0, 1]');
  return v;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Where `phrase` stands in `text` (lowercase both), as whole words, from a place no earlier phrase took: its start, or -1. */
function wordPlace(text: string, phrase: string, taken: readonly [number, number][]): number {
  if (phrase === '') return -1;
  for (let at = text.indexOf(phrase); at >= 0; at = text.indexOf(phrase, at + 1)) {
    const before = text[at - 1] ?? ' ';
    const after = text[at + phrase.length] ?? ' ';
    if (/[\p{L}\p{N}]/u.test(before) || /[\p{L}\p{N}]/u.test(after)) continue;
    if (taken.some(([a, b]) => at < b && at + phrase.length > a)) continue;
    return at;
  }
  return -1;
}

/**
 * `other` in the user's order (§4.3): each phrase at its place in the utterance, neighbours with nothing but spaces
 * and glue words between them joined into one phrase as said ("remove", "cold", "sore" → "remove the cold sore").
 * Phrases not found as written (a mapper's rewording) keep their order after the rest.
 */
function inUserOrder(phrases: readonly string[], utterance: string, glue: (word: string) => boolean): string[] {
  const text = utterance.toLowerCase();
  if (text.length !== utterance.length) return [...phrases];
  const taken: [number, number][] = [];
  const placed: { at: number; end: number; phrase: string }[] = [];
  const rest: string[] = [];
  for (const p of phrases) {
    const at = wordPlace(text, p.toLowerCase(), taken);
    if (at < 0) rest.push(p);
    else {
      taken.push([at, at + p.length]);
      placed.push({ at, end: at + p.length, phrase: p });
    }
  }
  placed.sort((a, b) => a.at - b.at);
  const out: { at: number; end: number }[] = [];
  for (const p of placed) {
    const last = out[out.length - 1];
    const gap = last ? utterance.slice(last.end, p.at) : undefined;
    if (last && gap !== undefined && /^[\p{L}\s]*$/u.test(gap) && gap.split(/\s+/).every((w) => w === '' || glue(w.toLowerCase()))) last.end = p.end;
    else out.push({ at: p.at, end: p.end });
  }
  return [...out.map((p) => utterance.slice(p.at, p.end)), ...rest];
}

/** Case- and space-insensitive identity of a phrase, for de-duplicating `other`. */
function phraseKey(s: string): string {
  return s.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, ' ').trim();
}

/**
 * Turns a mapper's output into the payload and its report: the threshold, `other`
 * in the template's shape, missing REQUIRED keys, the validator's violations.
 * `validator` is the one compiled for `template` (the server's rules).
 */
export function finishMapping(
  template: SchemaTemplate,
  out: MapperOutput,
  ctx: { threshold: number; mapper: string; scenario: string; reference: Reference; utterance?: string; glue?: (word: string) => boolean },
  validator: PayloadValidator,
): UtteranceMapping {
  const keys = new Map(template.keys.map((k) => [k.key_name, k] as const));
  const notes = [...(out.notes ?? [])];
  const entries: [string, JsonValue][] = [];
  const confidence: Record<string, number> = {};
  const sources: Record<string, string> = {};
  const below: BelowThreshold[] = [];
  const other: string[] = [];
  const seen = new Set<string>();
  const addOther = (phrase: string) => {
    const p = phrase.trim();
    const k = phraseKey(p);
    if (k === '' || seen.has(k)) return;
    seen.add(k);
    other.push(p);
  };
  if (!(out.values instanceof Map)) throw new ParleyError('internal', 'mapper returned no Map of values');
  for (const [key, mv] of out.values) {
    const def = keys.get(key);
    if (!def || key === OTHER_KEY) {
      notes.push(`the mapper gave a value for "${String(key).slice(0, 64)}", which is not a key of ${template.schema_id}; ignored`);
      if (isRecord(mv) && typeof mv.words === 'string') addOther(mv.words);
      continue;
    }
    const c = typeof mv.confidence === 'number' && Number.isFinite(mv.confidence) ? Math.min(1, Math.max(0, mv.confidence)) : 0;
    if (c < ctx.threshold) {
      below.push({ key, value: mv.value, confidence: c, words: mv.words });
      addOther(mv.words);
      continue;
    }
    entries.push([key, mv.value]);
    Object.defineProperty(confidence, key, { value: Math.round(c * 1000) / 1000, enumerable: true, writable: true, configurable: true });
    Object.defineProperty(sources, key, { value: mv.words, enumerable: true, writable: true, configurable: true });
  }
  for (const p of out.other) if (typeof p === 'string') addOther(p);
  if (ctx.utterance !== undefined) {
    const ordered = inUserOrder(other, ctx.utterance, ctx.glue ?? (() => false));
    other.length = 0;
    other.push(...ordered);
  }
  // Template order, so payloads read like the template.
  const order = new Map(template.keys.map((k, i) => [k.key_name, i] as const));
  entries.sort((a, b) => (order.get(a[0]) ?? 0) - (order.get(b[0]) ?? 0));
  const payload = Object.fromEntries(entries) as JsonObject;
  const otherDef = keys.get(OTHER_KEY);
  if (other.length > 0) {
    // §4.3: `other` as the template declares it; a string when it says nothing.
    const value: JsonValue = otherDef?.key_type === 'array' ? [...other] : other.join('; ');
    Object.defineProperty(payload, OTHER_KEY, { value, enumerable: true, writable: true, configurable: true });
  }
  const missing = template.keys.filter((k) => k.required && k.key_name !== OTHER_KEY && !Object.prototype.hasOwnProperty.call(payload, k.key_name)).map((k) => k.key_name);
  return {
    scenario: ctx.scenario,
    schema_id: template.schema_id,
    payload,
    confidence,
    other,
    sources,
    below_threshold: below,
    missing_required: missing,
    violations: validator.explain(payload),
    mapper: ctx.mapper,
    today: ctx.reference.today,
    timezone: ctx.reference.timezone,
    notes,
    ...(typeof out.explained === 'number' && out.explained >= 0 && out.explained <= 1 ? { explained: out.explained } : {}),
    ...(typeof out.recognised === 'number' && Number.isInteger(out.recognised) && out.recognised > 0 ? { recognised: out.recognised } : {}),
    ...(typeof out.associated === 'number' && Number.isInteger(out.associated) && out.associated > 0 ? { associated: out.associated } : {}),
    ...rivalsFrom(out.rivals),
    ...namedFrom(out.named, ctx.scenario, 'named'),
    ...namedFrom(out.namedBySynonym, ctx.scenario, 'namedBySynonym'),
  };
}

/** Compiles (once per template object) the validator the server uses. */
export function validatorCache(): (t: SchemaTemplate) => PayloadValidator {
  const cache = new WeakMap<SchemaTemplate, PayloadValidator>();
  return (t) => {
    let v = cache.get(t);
    if (!v) {
      v = compilePayloadValidator(t);
      cache.set(t, v);
    }
    return v;
  };
}

/** The error `ask` throws for a payload the server would refuse: which key, which rule, before executing. */
export function payloadInvalid(m: UtteranceMapping, identification?: unknown): ParleyError {
  const first = m.violations[0];
  const missing = m.missing_required.length > 0 ? ` (REQUIRED and not in the words: ${m.missing_required.join(', ')})` : '';
  return new ParleyError('payload_invalid', `The payload mapped from the words does not satisfy ${m.schema_id}: ${first ? first.message : 'invalid'}${missing}; nothing was executed`, {
    ...(first ? { path: first.path, rule: first.rule } : {}),
    violations: m.violations,
    details: { mapping: m as unknown as JsonObject, ...(identification !== undefined ? { identification } : {}) },
  });
}

/**
 * A mapper's concept words said, kept when they are a short list of short strings (outside data, as rivals) and
 * each is a word of the scenario's name: a mapper cannot make "banana" evidence for photo_retouch.
 */
function namedFrom<F extends 'named' | 'namedBySynonym'>(r: unknown, scenario: string, field: F): Partial<Record<F, string[]>> {
  const name = new Set(scenario.toLowerCase().split(/[^a-z]+/).filter((w) => w !== ''));
  const words = (rivalsFrom(r).rivals ?? []).filter((w) => name.has(w));
  return words.length > 0 ? ({ [field]: words } as Partial<Record<F, string[]>>) : {};
}

/** A mapper's rival words, kept when they are a short list of short strings (a mapper's output is outside data). */
function rivalsFrom(r: unknown): { rivals?: string[] } {
  if (!Array.isArray(r)) return {};
  const words = r.filter((w): w is string => typeof w === 'string' && w.length > 0 && w.length <= 64).slice(0, 16);
  return words.length > 0 ? { rivals: words } : {};
}
