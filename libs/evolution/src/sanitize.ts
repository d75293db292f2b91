/**
 * Sanitising `other` fragments (zhou §7: "When the "other" key contains
 * free-form natural language, server agents MUST apply the same input
 * validation and sanitization practices as they would for any natural language
 * input, preventing prompt injection"). Fragments end up in generated
 * semantic_descriptions, which client LLMs read as instructions; so the text is
 * reduced to plain words before it is stored or quoted:
 *
 * - Unicode NFKC (full-width and compatibility forms fold to plain letters, so
 *   "ｓｙｓｔｅｍ:" is caught like "system:");
 * - control, format (zero-width, bidi override) and private-use characters removed;
 * - a fragment with prompt-injection phrasing ("ignore previous instructions",
 *   role markers such as "system:" or "<|im_start|>", code fences, markup) is
 *   dropped entirely: a partial strip would still quote the attacker's words.
 *   The phrasing and markup are also looked for in a folded form (accents removed, Cyrillic
 *   and Greek look-alikes and digit-for-letter spellings mapped to Latin
 *   letters, letters spaced out or dotted apart joined), so "іgnore prevіous
 *   іnstructions" with Cyrillic і or "1gn0re prev10us" is caught too;
 * - URLs removed;
 * - personal data (§7 "sensitive personal information ... MUST protect this
 *   data"): e-mail addresses, phone numbers, payment card numbers (Luhn), IBANs,
 *   identity numbers and IP addresses become typed placeholders (`[email]`,
 *   `[phone]`, `[card]`, `[iban]`, `[id-number]`, `[ip]`; pii.ts), flagged by
 *   kind. Ordinary numbers (counts, dates, times, flight numbers) stay;
 * - only letters, marks, digits, spaces, `- . , % + & ( )` and the placeholders
 *   survive; quotes, colons, other brackets, backslashes become spaces
 *   (descriptions quote fragments in '...', so a fragment can never close the quote);
 * - whitespace collapsed, length capped on a word boundary (never inside a
 *   placeholder); a fragment that is nothing but placeholders is dropped (empty).
 *
 * Hostile input (ReDoS): the text is cut to `sanitizeInputLimit(maxChars)` UTF-16 units
 * *before* any pattern sees it (the output is at most `maxChars` code points), and every pattern here is linear in
 * its input: bounded repetitions, no quantified group whose body can match the
 * same text two ways, trailing punctuation trimmed by a loop rather than `[…]+$`.
 * libs/evolution/test/redos.test.ts times them all on a MiB of pathological text.
 *
 * Sanitising is idempotent: a sanitised text comes out of sanitizeFragment unchanged.
 * Everything downstream (embedding, cluster samples, induction, patches, the
 * pool's stored text, pool.matured events, LLM prompts) sees only this text.
 */
import { PII_PLACEHOLDER_PATTERN, scrubPersonalData, type PiiKind } from './pii';

/**
 * What sanitising found. The personal-data kinds are those of pii.ts;
 * `long_number` is no longer produced (digit runs are classified now) but may
 * appear in flags stored before.
 */
export type SanitizeFlag = 'control' | 'url' | PiiKind | 'long_number' | 'markup' | 'injection' | 'truncated' | 'empty';

export interface SanitizedFragment {
  /** The cleaned text, or null when nothing usable is left or the fragment was dropped. */
  readonly text: string | null;
  /** What was found (sorted, unique). */
  readonly flags: readonly SanitizeFlag[];
}

/** Phrasing that addresses the reading model rather than describing a need: the fragment is dropped. */
const INJECTION_PATTERNS: readonly RegExp[] = [
  /\b(ignore|disregard|forget|override|bypass|skip)\b[\s\S]{0,40}\b(instruction|instructions|prompt|prompts|rules?|context|above|previous|prior|earlier|everything|guidelines?)\b/iu,
  /\b(system|assistant|user|developer|tool|function)\s*(prompt\s*)?[:>]/iu,
  /<\|[^|]{0,40}\|>/u,
  /\[\/?(inst|sys|system)\]/iu,
  /<<\s*\/?\s*sys\s*>>/iu,
  /(^|\s)#{2,}\s*\w+/u,
  /\b(instructions?|prompt)\s*[:>]/iu,
  /\byou\s+are\s+now\b/iu,
  /\b(act|behave)\s+as\b/iu,
  /\bpretend\s+(to\s+be|you)\b/iu,
  /\bnew\s+instructions?\b/iu,
  /\b(jailbreak|do\s+anything\s+now|developer\s+mode)\b/iu,
  /\b(reveal|print|show|output|repeat)\b[\s\S]{0,30}\b(system\s+prompt|instructions|api\s*keys?|secrets?|passwords?|credentials)\b/iu,
  // Words about the conversation rather than the trip: "ignore what you were told before".
  /\b(ignore|disregard)\b[\s\S]{0,40}\b(told|said|given|before|below|system|developer|operator)\b/iu,
  // Addressing the model that reads the description.
  /\b(tell|inform|instruct|remind|ask)\s+(the\s+)?(user|human|model|llm|assistant|ai|client\s+agent)s?\b/iu,
  /\bas\s+an?\s+(ai|language\s+model|llm|assistant)\b/iu,
  /\b(ai|llm|language\s+model|assistant|agent|model)s?\s+(reading|processing|seeing|parsing)\s+this\b/iu,
  /\b(respond|reply|answer|output)\s+only\b|\bonly\s+(respond|reply|answer)\b/iu,
];
// A tag ends at the next `>`; `[^<>]` (not `[^>]`) so "<a<a<a…" costs one scan, not one per `<`.
const CODE_OR_MARKUP: readonly RegExp[] = [/```|~~~/u, /<\/?[a-z!][^<>]*>/iu, /\$\{|\{\{|\}\}/u, /\b(eval|exec|rm\s+-rf|drop\s+table|select\s+\*)\b/iu];
/**
 * High-signal phrasing looked for with every non-letter removed, so spacing,
 * punctuation and line breaks between the words do not hide it ("i g n o r e
 * p r e v i o u s ...", "ignore.previous.instructions").
 */
const SQUEEZED_INJECTION: readonly RegExp[] = [
  /(ignore|disregard|forget|override|bypass)(all|the|any|your|my)?(previous|prior|above|earlier|preceding)(instruction|prompt|rule|context|direction)/u,
  /(reveal|print|show|output|repeat)(your|the)?systemprompt/u,
  /youarenow(a|an|in)?(dan|jailbroken|unrestricted|developermode)/u,
  /newinstructions?(follow|are|is)/u,
  /endofprompt|endofinstructions|endofsystemprompt/u,
];
// A scheme is at most 32 characters (RFC 3986 sets no limit; none in use is longer): unbounded,
// "a.a.a.…" made every letter scan to the end for "://" (quadratic: 64 KB took 1.9 s).
const URL = /\b(?:[a-z][a-z0-9+.-]{0,31}:\/\/|www\.|(?:javascript|data|file|mailto):)\S*/giu;
// Cc control, Cf format (zero-width, bidi), Co private use, Cs lone surrogates.
const CONTROL = /[\p{Cc}\p{Cf}\p{Co}\p{Cs}]/gu;
const HAS_CONTROL = /[\p{Cc}\p{Cf}\p{Co}\p{Cs}]/u;
/**
 * A code whose letters an underscore joins to its digits ("SCAN_0712") keeps them joined, by the hyphen sanitising
 * allows ("SCAN-0712"): the inducer reads one identifier, never a word before a number ("I NEED 300" stays words).
 */
export function joinCodes(text: string): string {
  // Capitals only, two to eight ("IMG_2041", "ABC_123_456"): "room_12" and "need_300" are words someone typed
  // with an underscore, not a code.
  return text.replace(/(?<![\p{L}\p{N}_])([A-Z]{2,8})((?:_\d+)+)(?![\p{L}\p{N}])/gu, (_m, l: string, rest: string) => `${l}${rest.replace(/_/g, '-')}`);
}

/**
 * The form sanitising wrote such codes in before they were joined: the capitals, one space, three or more digits
 * ("PG 1042"). Read back as one identifier ("PG-1042") so fragments stored then are read as they were (zhou §6.2.2
 * induction over a cluster's life), unless the capitals are a word (`isWord`: "I NEED 300 COPIES") or the text is
 * shouted (most of its words in capitals).
 */
export function joinOldCodes(text: string, isWord: (lower: string) => boolean): string {
  if (!/[A-Z]{2} \d{3}/.test(text)) return text;
  const words = text.slice(0, 4096).match(/\p{L}{2,}/gu) ?? [];
  const shouted = words.filter((w) => w === w.toUpperCase() && w !== w.toLowerCase()).length;
  return text.replace(/(?<![\p{L}\p{N}\p{M}-])([A-Z]{2,8}) (\d{3,})(?![\p{L}\p{N}\p{M}]| \d)/gu, (m, l: string, d: string) => (shouted * 2 > words.length + 1 || isWord(l.toLowerCase()) ? m : `${l}-${d}`));
}
const NOT_ALLOWED = /[^\p{L}\p{M}\p{N} \-.,%+&()]/gu;
/** Splits a text into placeholders (odd indices) and the rest. */
const PLACEHOLDER_SPLIT = new RegExp(`(${PII_PLACEHOLDER_PATTERN.source})`, 'u');
/** A placeholder cut in half at the end by the length cap. */
const CUT_PLACEHOLDER = /\[[a-z-]*$/u;

/**
 * Cyrillic and Greek letters that look like Latin ones, and digits or signs
 * written for letters: folded only to look for injection phrasing, never in
 * the stored text.
 */
const LOOKALIKE: ReadonlyMap<string, string> = new Map(Object.entries({
  а: 'a', в: 'b', е: 'e', ё: 'e', к: 'k', м: 'm', н: 'h', о: 'o', р: 'p', с: 'c', т: 't', у: 'y', х: 'x', і: 'i', ї: 'i', ј: 'j', ѕ: 's', ԁ: 'd', ԛ: 'q', ԝ: 'w', ӏ: 'l', һ: 'h', ɡ: 'g',
  α: 'a', β: 'b', ε: 'e', η: 'n', ι: 'i', κ: 'k', μ: 'm', ν: 'v', ο: 'o', ρ: 'p', τ: 't', υ: 'u', χ: 'x', γ: 'y', ω: 'w',
  '0': 'o', '1': 'i', '3': 'e', '4': 'a', '5': 's', '7': 't', '@': 'a', $: 's', '!': 'i', '|': 'l',
}));

export const DEFAULT_MAX_FRAGMENT_CHARS = 200;

/**
 * UTF-16 units of a raw fragment the sanitiser reads for a `maxChars` result:
 * room for the result in any script (two units a code point) and a thousand
 * units of URLs and personal data that sanitising removes; at least 2,000.
 */
export function sanitizeInputLimit(maxChars: number): number {
  return Math.max(2000, 4 * maxChars + 1000);
}

/** Characters trimmed from the start of a sanitised text, and from its end (where `%` and `)` stay). */
const TRIM_START = new Set([' ', '-', '.', ',', '%', '+', '&', '(', ')']);
const TRIM_END = new Set([' ', '-', '.', ',', '+', '&', '(']);

/** `s` without leading characters of `lead` and trailing characters of `trail` (whitespace counts as ' '). A loop: linear. */
function trimSet(s: string, lead: ReadonlySet<string> | null, trail: ReadonlySet<string>): string {
  const isWs = (c: string) => c.trim() === '';
  let a = 0;
  let b = s.length;
  if (lead) while (a < b && (lead.has(s[a] as string) || isWs(s[a] as string))) a++;
  while (b > a && (trail.has(s[b - 1] as string) || isWs(s[b - 1] as string))) b--;
  return s.slice(a, b);
}

/** The first `max` UTF-16 units of `s`, a surrogate pair never split. */
function headUnits(s: string, max: number): string {
  if (s.length <= max) return s;
  const c = s.charCodeAt(max - 1);
  return s.slice(0, c >= 0xd800 && c <= 0xdbff ? max - 1 : max);
}

export function sanitizeFragment(raw: string, maxChars: number = DEFAULT_MAX_FRAGMENT_CHARS): SanitizedFragment {
  const flags = new Set<SanitizeFlag>();
  // Cut first: no pattern below ever sees more than sanitizeInputLimit(maxChars) units.
  const whole = String(raw);
  const limit = sanitizeInputLimit(maxChars);
  if (whole.length > limit) flags.add('truncated');
  let s = headUnits(whole, limit).normalize('NFKC');
  // Line breaks and tabs become spaces before the control strip, so words stay apart.
  s = s.replace(/[\t\n\r\v\f\u2028\u2029]+/gu, ' ');
  if (HAS_CONTROL.test(s)) {
    flags.add('control');
    s = s.replace(CONTROL, '');
  }
  const folded = fold(s);
  if (looksLikeInjection(s, folded)) return done(null, flags, 'injection');
  if (CODE_OR_MARKUP.some((p) => p.test(s) || p.test(folded))) return done(null, flags, 'markup');
  s = strip(s, URL, 'url', flags);
  // zhou §7 personal data: typed placeholders, before anything is embedded or stored.
  // Scrubbed again after the clean-up: a removed character can join two numbers
  // ("1111123[555" → "1111123 555"), so sanitising stays idempotent.
  for (let pass = 0; pass < 3; pass++) {
    const pii = scrubPersonalData(s);
    for (const k of pii.found) flags.add(k);
    const cleaned = pii.text
      .split(PLACEHOLDER_SPLIT)
      .map((part, i) => (i % 2 === 1 ? part : joinCodes(part).replace(NOT_ALLOWED, ' ')))
      .join('')
      .replace(/\s+/gu, ' ');
    // Leading/trailing punctuation carries nothing.
    const trimmed = trimSet(cleaned, TRIM_START, TRIM_END);
    if (trimmed === s) break;
    s = trimmed;
  }
  // A cut can leave a number that reads differently on its own ("10.0.0.10130" → "10.0.0.1"),
  // so the cut text is scrubbed again (and cut again should a placeholder make it longer).
  for (let pass = 0; [...s].length > maxChars && pass < 5; pass++) {
    flags.add('truncated');
    const again = scrubPersonalData(trimSet(cutOnWord(s, maxChars).replace(CUT_PLACEHOLDER, ''), null, TRIM_END));
    for (const k of again.found) flags.add(k);
    s = again.text;
  }
  // Nothing of the user's own words left (only placeholders, or nothing): dropped.
  if (!/[\p{L}\p{N}]/u.test(s.replace(PII_PLACEHOLDER_PATTERN, ' '))) return done(null, flags, 'empty');
  return { text: s, flags: [...flags].sort() };
}

/** Whether the text, or its folded form, has prompt-injection phrasing. */
function looksLikeInjection(s: string, folded: string): boolean {
  if (INJECTION_PATTERNS.some((p) => p.test(s))) return true;
  if (folded !== s && INJECTION_PATTERNS.some((p) => p.test(folded))) return true;
  const squeezed = folded.toLowerCase().replace(/[^\p{L}]+/gu, '');
  return SQUEEZED_INJECTION.some((p) => p.test(squeezed));
}

/** Accents removed, look-alikes mapped to Latin, letters spaced or dotted apart ("i g n o r e") joined. */
function fold(s: string): string {
  const base = s
    .normalize('NFD')
    .replace(/\p{M}+/gu, '')
    .replace(/./gu, (ch) => LOOKALIKE.get(ch) ?? LOOKALIKE.get(ch.toLowerCase()) ?? ch);
  // Runs of single letters separated by one space, dot, hyphen or underscore become one word.
  return base.replace(/(?<![\p{L}\p{N}])\p{L}(?:[ ._\-]\p{L}(?![\p{L}\p{N}])){2,}/gu, (m) => m.replace(/[ ._\-]/gu, ''));
}

function done(text: string | null, flags: Set<SanitizeFlag>, add: SanitizeFlag): SanitizedFragment {
  flags.add(add);
  return { text, flags: [...flags].sort() };
}

function strip(s: string, re: RegExp, flag: SanitizeFlag, flags: Set<SanitizeFlag>): string {
  const out = s.replace(re, ' ');
  if (out !== s) flags.add(flag);
  return out;
}

/** Cuts to at most `max` code points, at the last space when there is one in the second half. */
export function cutOnWord(s: string, max: number): string {
  // The first `max` code points, found by walking (no array of a MiB of code points).
  let i = 0;
  for (let n = 0; n < max && i < s.length; n++) {
    const c = s.charCodeAt(i);
    i += c >= 0xd800 && c <= 0xdbff && i + 1 < s.length && (s.charCodeAt(i + 1) & 0xfc00) === 0xdc00 ? 2 : 1;
  }
  if (i >= s.length) return s;
  const head = s.slice(0, i);
  const sp = head.lastIndexOf(' ');
  return (sp > max / 2 ? head.slice(0, sp) : head).trim();
}
