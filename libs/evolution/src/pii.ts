/**
 * Personal data in `other` fragments (zhou §7: "Structured key-value payloads
 * may contain sensitive personal information ... Implementations MUST protect
 * this data"). `other` carries users' own words, so before a fragment is
 * embedded, stored as sanitised text, clustered or quoted in a generated
 * description, the obvious personal data in it is replaced by a typed
 * placeholder: `[email]`, `[phone]`, `[card]`, `[iban]`, `[id-number]`, `[ip]`.
 *
 * Pure and deterministic. Conservative on ordinary numbers: "2 bags",
 * "seat 12A", "20%", "3 nights", prices, dates ("2026-05-04", "04.05.2026"),
 * times ("14:30"), flight numbers ("CA1234") and short lists of numbers stay.
 *
 * What is found, in this order (an earlier kind wins over a later one):
 * - e-mail addresses, also written "name (at) host (dot) com" or "name at host dot com";
 * - IP addresses: IPv4 dotted quads (each part 0-255), IPv6 (full or with `::`);
 * - IBANs: country code, check digits and 11-30 more characters, mod-97 checked;
 * - identity numbers written with letters: passport-like ("E12345678": one or
 *   two capitals and 7-9 digits; flight numbers have at most 4 digits), UK
 *   National Insurance ("AB 12 34 56 C"), Spanish DNI/NIE ("12345678Z"),
 *   Chinese resident ID (17 digits and a digit or X, with a valid birth date),
 *   and any token of 5+ digits after a cue word ("passport no. 1234567", "my ID is
 *   98765": passport, ID, SSN, licence, tax);
 * - digit runs (digits with single spaces, hyphens, dots or parentheses between
 *   them, an optional leading `+`), classified by shape:
 *   - `ddd-dd-dddd` → id-number (US SSN);
 *   - 13-19 digits passing the Luhn check → card (payment card numbers);
 *   - a leading `+` and 7-15 digits, an area code in parentheses, `ddd-dddd`,
 *     10-15 digits in groups (not all of them 1-2 digit groups or years), 9+
 *     digits starting with 0, or 10-11 bare digits → phone;
 *   - any other run of 9 bare digits, 12+ bare digits or 16+ digits → id-number
 *     (account, customer or document numbers: nothing ordinary is that long).
 *
 * The result's text is NFKC-normalised with decimal digits of every script
 * folded to ASCII ("١٢٣" → "123"), so no script or width hides a number.
 */

import { evolutionError } from './errors';

export type PiiKind = 'email' | 'phone' | 'card' | 'iban' | 'id_number' | 'ip';

export const PII_KINDS: readonly PiiKind[] = Object.freeze(['card', 'email', 'iban', 'id_number', 'ip', 'phone']);

/** The placeholder each kind is replaced by. */
export const PII_PLACEHOLDERS: Readonly<Record<PiiKind, string>> = Object.freeze({
  email: '[email]',
  phone: '[phone]',
  card: '[card]',
  iban: '[iban]',
  id_number: '[id-number]',
  ip: '[ip]',
});

/** Matches any placeholder (global). */
export const PII_PLACEHOLDER_PATTERN = /\[(?:email|phone|card|iban|id-number|ip)\]/gu;

export interface ScrubResult {
  /** The text with every match replaced by its placeholder. */
  readonly text: string;
  /** The kinds found (sorted, unique); empty when nothing was replaced. */
  readonly found: readonly PiiKind[];
}

// Letters/digits around a match: a match never starts or ends inside a word.
const L_OR_N = String.raw`\p{L}\p{N}`;

const EMAIL = new RegExp(String.raw`(?<![${L_OR_N}._%+\-])[${L_OR_N}._%+\-]+@[${L_OR_N}\-]+(?:\.[${L_OR_N}\-]+)*\.\p{L}{2,}(?![${L_OR_N}])`, 'gu');
// "jane (at) example (dot) com", "jane[at]example.com": any top-level domain.
const BRACKET_AT = String.raw`\s*[(\[{]\s*at\s*[)\]}]\s*`;
const DOT = String.raw`(?:\s*[(\[{]\s*dot\s*[)\]}]\s*|\s+dot\s+|\.)`;
const EMAIL_BRACKETED = new RegExp(String.raw`(?<![${L_OR_N}._%+\-])[${L_OR_N}._%+\-]+${BRACKET_AT}[${L_OR_N}\-]+(?:${DOT}[${L_OR_N}\-]+)*${DOT}\p{L}{2,}(?![${L_OR_N}])`, 'giu');
// "jane at example dot com": ordinary words too ("seat at window dot ..."), so only with a common top-level domain.
const TLD = '(?:com|net|org|edu|gov|info|biz|io|co|me|ai|app|dev|mail|uk|us|ca|au|de|fr|es|it|nl|be|ch|at|se|no|dk|fi|pl|ru|cn|jp|kr|in|br|mx)';
const EMAIL_SPELLED = new RegExp(String.raw`(?<![${L_OR_N}._%+\-])[${L_OR_N}._%+\-]+\s+at\s+[${L_OR_N}\-]+(?:${DOT}[${L_OR_N}\-]+)*${DOT}${TLD}(?![${L_OR_N}])`, 'giu');

const OCTET = String.raw`(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)`;
const IPV4 = new RegExp(String.raw`(?<![\p{N}.])(?:${OCTET}\.){3}${OCTET}(?!\.?\d)`, 'gu');
const H = '[0-9a-f]{1,4}';
const IPV6 = new RegExp(
  String.raw`(?<![${L_OR_N}:])(?:(?:${H}:){7}${H}|(?:${H}:){1,7}:(?:${H}(?::${H}){0,6})?|::(?:${H}(?::${H}){0,6}))(?![${L_OR_N}:])`,
  'giu',
);

const IBAN = new RegExp(String.raw`(?<![${L_OR_N}])[A-Z]{2}\d{2}(?: ?[A-Z0-9]{4}){2,7}(?: ?[A-Z0-9]{1,4})?(?![${L_OR_N}])`, 'giu');

const PASSPORT_LIKE = new RegExp(String.raw`(?<![${L_OR_N}])[A-Z]{1,2}\d{7,9}(?![${L_OR_N}])`, 'gu');
const UK_NINO = new RegExp(String.raw`(?<![${L_OR_N}])[A-Z]{2} ?\d{2} ?\d{2} ?\d{2} ?[A-D](?![${L_OR_N}])`, 'gu');
const ES_DNI_NIE = new RegExp(String.raw`(?<![${L_OR_N}])(?:\d{8}|[XYZ]-?\d{7})-?[A-Z](?![${L_OR_N}])`, 'gu');
const CN_ID = new RegExp(String.raw`(?<![${L_OR_N}])\d{17}[\dXx](?![${L_OR_N}])`, 'gu');
// A cue word, an optional "no." / "number" / "#" / ":", then a token with at least 5 digits.
// Each optional word carries its own leading spaces: three `\s*` in a row around optional words split
// a run of spaces in cubically many ways ("id" and a MiB of spaces never finished).
const ID_CUE = new RegExp(
  String.raw`(?<![${L_OR_N}])(passports?|ids?|identity|identification|ssn|social security|national insurance|licen[cs]e|tax)(?![\p{L}])((?:\s*(?:card|document))?(?:\s*(?:no\.?|nr\.?|number|num|#))?\s*(?:is\s+|[:#]\s*)?)([A-Z0-9][A-Z0-9\-]{4,24})(?![${L_OR_N}])`,
  'giu',
);

// Digit runs: digits joined by one separator (space, hyphen or dash, dot) or by parentheses.
const DASH = String.raw`\-\u2010-\u2015\u2212`;
const RUN = new RegExp(String.raw`(?:(?<![${L_OR_N}+])\+ ?)?\(?\d+\)?(?:(?:[ .${DASH}]|(?<=\))|(?=\())\(?\d+\)?)*`, 'gu');

/** Dates with a four-digit year: kept whole, never joined to a number next to them into a "phone". */
const DATE = new RegExp(String.raw`(?<![\p{N}.\-/${DASH}])(?:(?:19|20)\d\d([.\-/${DASH}])\d{1,2}\1\d{1,2}|\d{1,2}([.\-/${DASH}])\d{1,2}\2(?:19|20)\d\d)(?![\p{N}]|[.\-/${DASH}]\d)`, 'gu');
const HELD = /\uE000([\uE100-\uF8FF])\uE001/gu;

const DATE_SHAPES: readonly RegExp[] = [
  new RegExp(String.raw`^\d{4}([.\-/${DASH}])\d{1,2}\1\d{1,2}$`, 'u'),
  new RegExp(String.raw`^\d{1,2}([.\-/${DASH}])\d{1,2}\1\d{2,4}$`, 'u'),
  // A range of ISO dates: 2026-05-04-2026-05-10.
  new RegExp(String.raw`^\d{4}[${DASH}]\d{2}[${DASH}]\d{2}[${DASH} ]+\d{4}[${DASH}]\d{2}[${DASH}]\d{2}$`, 'u'),
];

/**
 * The longest text scrubbed, in UTF-16 units. Every pattern here is linear, but
 * a scrubber cannot cut (the tail would keep its personal data), so a longer
 * text is refused: callers cut first (sanitizeFragment reads at most
 * `sanitizeInputLimit(maxChars)` units).
 */
export const MAX_SCRUB_CHARS = 65_536;

/** Replaces obvious personal data with typed placeholders (see the module comment). */
export function scrubPersonalData(text: string): ScrubResult {
  const found = new Set<PiiKind>();
  const raw = String(text);
  if (raw.length > MAX_SCRUB_CHARS) {
    throw evolutionError('max_length', 'text', `scrubPersonalData: text has ${raw.length} UTF-16 units, at most ${MAX_SCRUB_CHARS} are scrubbed (cut it first)`);
  }
  let s = foldDigits(raw.normalize('NFKC'));
  // A replacement can free a neighbour ("2026-05-044111E1234567": once the digits are
  // [phone], E1234567 stands alone): repeat until nothing changes, so scrubbing is idempotent.
  for (let pass = 0; pass < 4; pass++) {
    const next = scrubOnce(s, found);
    if (next === s) break;
    s = next;
  }
  return { text: s, found: PII_KINDS.filter((k) => found.has(k)) };
}

function scrubOnce(input: string, found: Set<PiiKind>): string {
  let s = input;
  const put = (kind: PiiKind): string => {
    found.add(kind);
    return PII_PLACEHOLDERS[kind];
  };
  s = s.replace(EMAIL, () => put('email'));
  s = s.replace(EMAIL_BRACKETED, () => put('email'));
  s = s.replace(EMAIL_SPELLED, () => put('email'));
  s = s.replace(IPV6, (m) => (ipv6Like(m) ? put('ip') : m));
  s = s.replace(IPV4, () => put('ip'));
  s = s.replace(IBAN, (m) => (ibanValid(m) ? put('iban') : m));
  s = s.replace(CN_ID, (m) => (validDate(m.slice(6, 14)) ? put('id_number') : m));
  s = s.replace(PASSPORT_LIKE, () => put('id_number'));
  s = s.replace(UK_NINO, () => put('id_number'));
  s = s.replace(ES_DNI_NIE, () => put('id_number'));
  s = s.replace(ID_CUE, (m, cue: string, gap: string, token: string) => ((token.match(/\d/g)?.length ?? 0) >= 5 ? `${cue}${gap}${put('id_number')}` : m));
  // Dates are held aside (private-use markers, no digits) while digit runs are classified.
  const held: string[] = [];
  s = s.replace(DATE, (m) => (held.length < 0x17ff ? `\uE000${String.fromCharCode(0xe100 + held.push(m) - 1)}\uE001` : m));
  s = s.replace(RUN, (m, offset: number, whole: string) => {
    const { lead, core, trail } = balanceParens(m);
    const kind = classifyRun(core, whole[offset - 1], whole[offset + m.length]);
    return kind === null ? m : `${lead}${put(kind)}${trail}`;
  });
  return s.replace(HELD, (m, c: string) => held[c.charCodeAt(0) - 0xe100] ?? m);
}

/** What a digit run is, or null for an ordinary number. `before`/`after`: the characters around it. */
function classifyRun(raw: string, before: string | undefined, after: string | undefined): PiiKind | null {
  const digits = raw.replace(/\D/gu, '');
  const n = digits.length;
  if (n < 7) return null;
  // Glued to letters ("12A", "23kg", "CA1234"): an ordinary token unless it is long.
  const glued = (before !== undefined && /[\p{L}_]/u.test(before)) || (after !== undefined && /[\p{L}_]/u.test(after));
  if (glued && n < 9) return null;
  const plus = raw.startsWith('+');
  const groups = raw.split(/\D+/u).filter((g) => g !== '');
  const separated = groups.length > 1;
  if (!plus && DATE_SHAPES.some((d) => d.test(raw))) return null;
  // A decimal number ("0.123456789").
  if (!plus && /^\d+\.\d+$/u.test(raw)) return null;
  // Lists of small numbers ("rows 10 11 12 13 14") and of years are not personal.
  if (!plus && separated && digits[0] !== '0' && groups.every((g) => g.length <= 2)) return null;
  if (!plus && separated && groups.every((g) => /^(19|20)\d\d$/u.test(g))) return null;
  if (!plus && new RegExp(String.raw`^\d{3}[${DASH}]\d{2}[${DASH}]\d{4}$`, 'u').test(raw)) return 'id_number';
  if (!plus && n >= 13 && n <= 19 && luhnValid(digits)) return 'card';
  if (plus) return n <= 15 ? 'phone' : 'id_number';
  if (n <= 15 && /\(\d{1,5}\)/u.test(raw)) return 'phone';
  if (new RegExp(String.raw`^\d{3}[${DASH}]\d{4}$`, 'u').test(raw)) return 'phone';
  if (separated) {
    if (n >= 10 && n <= 15) return 'phone';
    if (n >= 9 && n <= 15 && digits[0] === '0') return 'phone';
    return n >= 16 ? 'id_number' : null;
  }
  if (n >= 10 && n <= 11) return 'phone';
  if (n === 9 || n >= 12) return 'id_number';
  return null;
}

/** A run's surrounding prose parentheses stay: "(call 555 123 4567)" keeps its ")". */
function balanceParens(m: string): { lead: string; core: string; trail: string } {
  let core = m;
  let lead = '';
  let trail = '';
  const count = (s: string, c: string): number => s.split(c).length - 1;
  while (core.endsWith(')') && count(core, ')') > count(core, '(')) {
    trail = `)${trail}`;
    core = core.slice(0, -1);
  }
  while (core.startsWith('(') && count(core, '(') > count(core, ')')) {
    lead = `${lead}(`;
    core = core.slice(1);
  }
  return { lead, core, trail };
}

/** An IPv6 candidate with at least two groups, one of them longer than two characters or hex letters (not "a::b"). */
function ipv6Like(m: string): boolean {
  const groups = m.split(':').filter((g) => g !== '');
  return groups.length >= 2 && groups.some((g) => g.length >= 3 || /[a-f]/iu.test(g)) && groups.some((g) => /\d/u.test(g));
}

/** The Luhn checksum (ISO/IEC 7812) over a string of digits. */
export function luhnValid(digits: string): boolean {
  if (!/^\d{2,}$/u.test(digits)) return false;
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = digits.charCodeAt(digits.length - 1 - i) - 48;
    if (i % 2 === 1) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return sum % 10 === 0;
}

/** ISO 13616 IBAN check: 15-34 characters, mod 97 = 1, and a mostly numeric account part. */
export function ibanValid(s: string): boolean {
  const iban = s.replace(/\s+/gu, '').toUpperCase();
  if (!/^[A-Z]{2}\d{2}[A-Z0-9]{11,30}$/u.test(iban)) return false;
  // Words are not account numbers: the BBAN has at least 8 digits.
  if ((iban.slice(4).match(/\d/gu)?.length ?? 0) < 8) return false;
  const moved = iban.slice(4) + iban.slice(0, 4);
  let rem = 0;
  for (const ch of moved) {
    const v = ch >= 'A' ? String(ch.charCodeAt(0) - 55) : ch;
    for (const d of v) rem = (rem * 10 + (d.charCodeAt(0) - 48)) % 97;
  }
  return rem === 1;
}

function validDate(yyyymmdd: string): boolean {
  const y = Number(yyyymmdd.slice(0, 4));
  const m = Number(yyyymmdd.slice(4, 6));
  const d = Number(yyyymmdd.slice(6, 8));
  if (y < 1900 || y > 2100 || m < 1 || m > 12 || d < 1) return false;
  return d <= new Date(Date.UTC(y, m, 0)).getUTCDate();
}

const ND = /\p{Nd}/u;

/** Decimal digits of any script become ASCII digits (Unicode Nd digits come in runs of ten, 0 to 9). */
function foldDigits(s: string): string {
  return s.replace(/\p{Nd}/gu, (ch) => {
    const cp = ch.codePointAt(0) as number;
    if (cp >= 48 && cp <= 57) return ch;
    let zero = cp;
    while (zero > 0 && ND.test(String.fromCodePoint(zero - 1))) zero--;
    return String((cp - zero) % 10);
  });
}
