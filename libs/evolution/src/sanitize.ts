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
 * - URLs, e-mail addresses and long digit runs (phone, card numbers) removed
 *   (§7 also asks to protect personal data);
 * - a fragment with prompt-injection phrasing ("ignore previous instructions",
 *   role markers such as "system:" or "<|im_start|>", code fences, markup) is
 *   dropped entirely: a partial strip would still quote the attacker's words;
 * - only letters, marks, digits, spaces and `- . , % + & ( )` survive; quotes,
 *   colons, brackets, backslashes become spaces (descriptions quote fragments
 *   in '...', so a fragment can never close the quote);
 * - whitespace collapsed, length capped on a word boundary.
 */

export type SanitizeFlag = 'control' | 'url' | 'email' | 'long_number' | 'markup' | 'injection' | 'truncated' | 'empty';

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
  /^\s*#{2,}\s*\w+/u,
  /\byou\s+are\s+now\b/iu,
  /\b(act|behave)\s+as\b/iu,
  /\bpretend\s+(to\s+be|you)\b/iu,
  /\bnew\s+instructions?\b/iu,
  /\b(jailbreak|do\s+anything\s+now|developer\s+mode)\b/iu,
  /\b(reveal|print|show|output|repeat)\b[\s\S]{0,30}\b(system\s+prompt|instructions|api\s*keys?|secrets?|passwords?|credentials)\b/iu,
];
const CODE_OR_MARKUP: readonly RegExp[] = [/```|~~~/u, /<\/?[a-z!][^>]*>/iu, /\$\{|\{\{|\}\}/u, /\b(eval|exec|rm\s+-rf|drop\s+table|select\s+\*)\b/iu];
const URL = /\b(?:[a-z][a-z0-9+.-]*:\/\/|www\.|(?:javascript|data|file|mailto):)\S*/giu;
const EMAIL = /\b[\p{L}\p{N}._%+-]+@[\p{L}\p{N}.-]+\.\p{L}{2,}\b/giu;
const LONG_NUMBER = /\d[\d\s-]{6,}\d/gu;
// Cc control, Cf format (zero-width, bidi), Co private use, Cs lone surrogates.
const CONTROL = /[\p{Cc}\p{Cf}\p{Co}\p{Cs}]/gu;
const HAS_CONTROL = /[\p{Cc}\p{Cf}\p{Co}\p{Cs}]/u;
const NOT_ALLOWED = /[^\p{L}\p{M}\p{N} \-.,%+&()]/gu;

export const DEFAULT_MAX_FRAGMENT_CHARS = 200;

export function sanitizeFragment(raw: string, maxChars: number = DEFAULT_MAX_FRAGMENT_CHARS): SanitizedFragment {
  const flags = new Set<SanitizeFlag>();
  let s = String(raw).normalize('NFKC');
  // Line breaks and tabs become spaces before the control strip, so words stay apart.
  s = s.replace(/[\t\n\r\v\f\u2028\u2029]+/gu, ' ');
  if (HAS_CONTROL.test(s)) {
    flags.add('control');
    s = s.replace(CONTROL, '');
  }
  for (const p of INJECTION_PATTERNS) {
    if (p.test(s)) return done(null, flags, 'injection');
  }
  for (const p of CODE_OR_MARKUP) {
    if (p.test(s)) return done(null, flags, 'markup');
  }
  s = strip(s, URL, 'url', flags);
  s = strip(s, EMAIL, 'email', flags);
  s = strip(s, LONG_NUMBER, 'long_number', flags);
  s = s.replace(NOT_ALLOWED, ' ').replace(/\s+/gu, ' ').trim();
  // Leading/trailing punctuation carries nothing.
  s = s.replace(/^[\s\-.,%+&()]+|[\s\-.,+&(]+$/gu, '');
  if ([...s].length > maxChars) {
    flags.add('truncated');
    s = cutOnWord(s, maxChars);
  }
  if (!/[\p{L}\p{N}]/u.test(s)) return done(null, flags, 'empty');
  return { text: s, flags: [...flags].sort() };
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
  const cps = [...s];
  if (cps.length <= max) return s;
  const head = cps.slice(0, max).join('');
  const sp = head.lastIndexOf(' ');
  return (sp > max / 2 ? head.slice(0, sp) : head).trim();
}
