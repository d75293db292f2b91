/**
 * Dates and date-times in an utterance, with chrono-node (casual English:
 * "next Monday", "the day after tomorrow", "December 3rd", "at 06:30 today",
 * "yesterday at 22:40 UTC"), resolved against the user's reference: `today`
 * and the IANA `timezone` are inputs, never the process clock.
 *
 * - A date key (`format: date`) gets the local calendar date (YYYY-MM-DD).
 * - A date-time key (`format: date-time`) gets RFC 3339 with an offset: the one
 *   the user said ("UTC", "GMT+8", "+08:00", "Paris time", or a "<name> time"
 *   the template's own examples define: "Beijing time" is +08:00 in the
 *   fault-management example), else the user's time zone's offset at that time.
 * - Which way an ambiguous weekday goes ("Monday") follows the key: a departure
 *   is ahead, a fault that "occurred" is behind (`orientation`).
 */
import * as chrono from 'chrono-node';
import { offsetMinutes, zonedInstant } from '../mapping';
import type { Token } from './text';

export type Orientation = 'future' | 'past';

export interface FoundDate {
  /** Token indices [from, to) the date was read from (the time zone words included). */
  readonly from: number;
  readonly to: number;
  /** YYYY-MM-DD, local. */
  readonly date: string;
  /** RFC 3339 with offset when a time of day was said. */
  readonly dateTime?: string;
  readonly hasTime: boolean;
  /** The user named the day (not only a time of day). */
  readonly hasDay: boolean;
}

export interface DateReference {
  readonly now: Date;
  readonly timezone: string;
  /**
   * The reference is a day, not an instant (the user gave only `today`; `now` is its noon): an event that already
   * happened may be at any time of that day.
   */
  readonly wholeDay?: boolean;
}

const PAST_WORDS = /\b(last|ago|yesterday|previous|past|earlier|since)\b/i;
/** Characters of utterance chrono is given (it is already bounded; this bounds chrono's own patterns again). */
const MAX_CHRONO_CHARS = 2000;
/** chrono readings kept per locale, and ordinal days read ("on the 3rd"). */
const MAX_READINGS = 16;

function pad(n: number, w = 2): string {
  return String(Math.trunc(Math.abs(n))).padStart(w, '0');
}

function formatOffset(min: number): string {
  const sign = min < 0 ? '-' : '+';
  return `${sign}${pad(Math.floor(Math.abs(min) / 60))}:${pad(Math.abs(min) % 60)}`;
}

/** IANA zones by the last part of their name ("paris" → Europe/Paris, "new york" → America/New_York). */
export function zoneCities(): Map<string, string> {
  const out = new Map<string, string>();
  const zones = (Intl as unknown as { supportedValuesOf?: (k: string) => string[] }).supportedValuesOf?.('timeZone') ?? [];
  for (const z of zones) {
    const city = z.split('/').pop()?.replace(/_/g, ' ').toLowerCase();
    if (city && !out.has(city)) out.set(city, z);
  }
  return out;
}

/** What the mapper keeps of a chrono result: the wall-clock parts and what the user actually said. */
interface Parts {
  y: number;
  mo: number;
  d: number;
  h: number;
  mi: number;
  s: number;
  /** Minutes east of UTC, when the user said it. */
  offset?: number;
  /** The user named the day ("Monday", "today", "4 May"), not only a time of day. */
  day: boolean;
  time: boolean;
}

interface Parsed {
  from: number;
  to: number;
  parts: Parts;
  text: string;
}

const NAMED_DAY = /\b(today|tonight|tomorrow|yesterday|morning|evening|afternoon|night)\b/i;

function partsOf(c: chrono.ParsedComponents, text: string): Parts {
  return {
    y: c.get('year') ?? 1970,
    mo: c.get('month') ?? 1,
    d: c.get('day') ?? 1,
    h: c.get('hour') ?? 0,
    mi: c.get('minute') ?? 0,
    s: c.get('second') ?? 0,
    ...(c.isCertain('timezoneOffset') ? { offset: c.get('timezoneOffset') ?? 0 } : {}),
    day: c.isCertain('day') || c.isCertain('weekday') || NAMED_DAY.test(text),
    time: c.isCertain('hour'),
  };
}

/**
 * `<name> time` right after token `i` (optionally in parentheses or after a comma):
 * its offset in minutes at `when`, and the token after it.
 */
function zoneAfter(tokens: readonly Token[], i: number, aliases: ReadonlyMap<string, number>, cities: ReadonlyMap<string, string>, when: Date): { minutes: number; next: number } | undefined {
  let j = i;
  if (tokens[j]?.text === ',' || tokens[j]?.text === '(') j++;
  for (let len = 3; len >= 1; len--) {
    const words = tokens.slice(j, j + len);
    if (words.length < len || words.some((t) => t.kind !== 'word')) continue;
    if (tokens[j + len]?.lower !== 'time') continue;
    const name = words.map((t) => t.lower).join(' ');
    const alias = aliases.get(name);
    let next = j + len + 1;
    if (tokens[next]?.text === ')') next++;
    if (alias !== undefined) return { minutes: alias, next };
    const zone = cities.get(name);
    if (zone) return { minutes: offsetMinutes(zone, when), next };
  }
  return undefined;
}

/** Fixed-date holidays English names ("Christmas Eve", "New Year's Day"): [month, day]. */
const HOLIDAYS: ReadonlyMap<string, readonly [number, number]> = new Map([
  ['christmas', [12, 25]], ['christmas day', [12, 25]], ['christmas eve', [12, 24]], ['boxing day', [12, 26]],
  ['new year', [1, 1]], ["new year's day", [1, 1]], ['new years day', [1, 1]], ["new year's eve", [12, 31]], ['new years eve', [12, 31]],
  ["valentine's day", [2, 14]], ['halloween', [10, 31]],
]);
const HOLIDAY = /\b(christmas(?: day| eve)?|boxing day|new year(?:'?s)?(?: day| eve)?|valentine's day|halloween)\b/i;
const SPAN_UNITS: ReadonlyMap<string, number> = new Map([['day', 1], ['week', 7], ['fortnight', 14]]);
const SMALL: ReadonlyMap<string, number> = new Map([['a', 1], ['an', 1], ['one', 1], ['two', 2], ['three', 3], ['four', 4], ['five', 5], ['six', 6], ['seven', 7], ['eight', 8], ['nine', 9], ['ten', 10]]);
/** "a week from today", "3 days from now", "two weeks from tomorrow". */
const SPAN_FROM = /\b(a|an|one|two|three|four|five|six|seven|eight|nine|ten|\d{1,2}) (day|week|fortnight)s? from (today|now|tomorrow)\b/i;
/** Weekday names and their chat abbreviations ("Wed", "Weds", "Thurs", "Sat"); an optional full stop after one. */
const WEEKDAY_ALTERNATION = '(?:mon|tue|tues|wed|weds|thu|thur|thurs|fri|sat|sun)\\.?|monday|tuesday|wednesday|thursday|friday|saturday|sunday';
/** Monday is 0: a weekday by its first two letters (unique in English). */
const WEEKDAY_BY_PREFIX: ReadonlyMap<string, number> = new Map([['mo', 0], ['tu', 1], ['we', 2], ['th', 3], ['fr', 4], ['sa', 5], ['su', 6]]);
/**
 * "after next" that is the weekday's own ("Monday after next"), not "next" of the words after it ("the Tuesday after
 * next Monday's meeting", "Monday after next month's release", "after next week").
 */
const AFTER_NEXT = `after next\\b(?!\\s*(?:['’]s\\b|(?:${WEEKDAY_ALTERNATION})\\b|(?:week|weekend|fortnight|month|quarter|year)s?\\b|[a-z]+['’]s\\b))`;
/**
 * "a week from Saturday", "two days from next Monday", "a week from last Saturday", "a day from Sunday after next": a
 * span counted from a named weekday (the coming one, the last one after "last", the one a week later after "after next").
 */
const SPAN_FROM_WEEKDAY = new RegExp(`\\b(a|an|one|two|three|four|five|six|seven|eight|nine|ten|\\d{1,2}) (day|week|fortnight)s? from (?:(this|next|last) )?(${WEEKDAY_ALTERNATION})(?=\\W|$)(?: (${AFTER_NEXT}))?`, 'i');
/** "the Wednesday after next", "Monday after next", "Thurs after next": the weekday of the week after the coming one. */
const WEEKDAY_AFTER_NEXT = new RegExp(`\\b(${WEEKDAY_ALTERNATION}) ${AFTER_NEXT}`, 'i');

/**
 * The coming `weekday` (1 to 7 days ahead: "Saturday" said on a Saturday is the next one) and `extraDays` days more,
 * from the reference's local day; with `last`, the last one (1 to 7 days back) instead.
 */
function daysToWeekday(ref: ConstructorParameters<typeof chrono.ParsingComponents>[0], weekday: string, extraDays: number, last = false): chrono.ParsingComponents | null {
  const target = WEEKDAY_BY_PREFIX.get(weekday.slice(0, 2).toLowerCase());
  if (target === undefined) return null;
  const base = chrono.ParsingComponents.createRelativeFromReference(ref, { day: 0 });
  // Monday is 0 in WEEKDAY_BY_PREFIX, 1 in getUTCDay.
  const today = (new Date(Date.UTC(base.get('year') ?? 1970, (base.get('month') ?? 1) - 1, base.get('day') ?? 1)).getUTCDay() + 6) % 7;
  const ahead = (last ? -((today - target + 7) % 7 || 7) : (target - today + 7) % 7 || 7) + extraDays;
  const c = chrono.ParsingComponents.createRelativeFromReference(ref, { day: ahead });
  for (const unit of ['day', 'month', 'year'] as const) c.assign(unit, c.get(unit) ?? 1);
  c.assign('weekday', (target + 1) % 7);
  return c;
}

const CLOCK_HOURS: ReadonlyMap<string, number> = new Map([['one', 1], ['two', 2], ['three', 3], ['four', 4], ['five', 5], ['six', 6], ['seven', 7], ['eight', 8], ['nine', 9], ['ten', 10], ['eleven', 11], ['twelve', 12]]);
/** "half past three", "quarter to ten" (then "in the afternoon", "this evening", "pm" make it afternoon). */
const CLOCK_PHRASE = /\b(half|quarter) (past|to) (one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|\d{1,2})\b( ?(?:am|pm|a\.m\.|p\.m\.))?/i;
const AFTERNOON_AFTER = /^[^,;.]{0,24}\b(afternoon|evening|tonight|night|pm|p\.m\.)/i;

/** Minutes said in words, one to twenty-nine ("twenty past nine", "twenty-five past six"). */
const MINUTE_WORDS: ReadonlyMap<string, number> = (() => {
  const units = ['one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine'];
  const teens = ['ten', 'eleven', 'twelve', 'thirteen', 'fourteen', 'fifteen', 'sixteen', 'seventeen', 'eighteen', 'nineteen'];
  const m = new Map<string, number>();
  units.forEach((u, i) => m.set(u, i + 1));
  teens.forEach((u, i) => m.set(u, i + 10));
  m.set('twenty', 20);
  units.forEach((u, i) => (m.set(`twenty-${u}`, 21 + i), m.set(`twenty ${u}`, 21 + i)));
  return m;
})();
const HOUR_ALTERNATION = 'one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|\\d{1,2}';
/**
 * "twenty past nine", "ten past ten", "5 minutes past 8", "twenty minutes to six": minutes in words, or in digits
 * with "minutes" (a bare "5 to 9" is a range of sites or people, not 8:55).
 */
const MINUTES_PHRASE = new RegExp(
  `\\b(?:(twenty[- ](?:one|two|three|four|five|six|seven|eight|nine)|${[...'one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen seventeen eighteen nineteen twenty'.split(' ')].join('|')})(?: minutes?)?|(\\d{1,2}) minutes?) (past|after|to) (${HOUR_ALTERNATION})\\b( ?(?:am|pm|a\\.m\\.|p\\.m\\.))?`,
  'i',
);
/**
 * "6 this morning", "9 tomorrow evening", "11 last night", "7:30 this evening", "12 tonight": an hour then the part
 * of a named day, which chrono reads only as the day ("this morning") and loses the hour, or reads "12 tonight" as noon.
 */
const HOUR_OF_PART = new RegExp(`\\b(${HOUR_ALTERNATION})(?:[:.](\\d{2}))?(?: o'?clock)? (?:(this|tomorrow|yesterday|last) (morning|afternoon|evening|night)|tonight)\\b`, 'i');
/** Words after which "ten to six" is a time of day ("from nine to eleven" is a span, so not "from"). */
const CLOCK_LEAD = /\b(?:at|around|about|since|by|until|till)\s*$/i;
/** Minutes a bare "N to H" (no "minutes") may say: the clock's usual steps ("five to ten"), not "nine to eleven". */
const TO_MINUTES: ReadonlySet<number> = new Set([5, 10, 15, 20, 25]);
/** A content word right after a clock phrase makes it a count ("around five to ten customers"). */
const WORD_AFTER = /^\s+([a-z]+)/i;
/** Words that may follow a time of day (a part of the day, a preposition, a conjunction). */
const TIME_FOLLOW: ReadonlySet<string> = new Set(['this', 'tomorrow', 'yesterday', 'last', 'tonight', 'today', 'in', 'at', 'on', 'and', 'or', 'am', 'pm', 'sharp', 'local', 'utc', 'when', 'the', 'o', 'oclock']);
/** "for twenty minutes after nine" is a duration, "the one after nine" a rank: no clock after these words. */
const NOT_CLOCK_BEFORE = /\b(?:for|the)\s*$/i;
/** "at night", "tonight" after a clock time: 12 is midnight and an hour before 6 is in the small hours. */
const NIGHT_AFTER = /^[^,;.]{0,24}\b(?:tonight|night)\b/i;
const PART_DAY: ReadonlyMap<string, number> = new Map([['this', 0], ['tomorrow', 1], ['yesterday', -1], ['last', -1]]);

/**
 * The hour of a clock time said with a part of the day, and the days after the named day it falls on: afternoon and
 * evening hours are after noon; "11 last night" is 23:00 the day before, "2 last night" and "12 last night" are in
 * the small hours after that night's midnight (02:00 and 00:00 of the next day).
 */
function hourOfPart(hour: number, part: string): { hour: number; days: number } | undefined {
  if (!(hour >= 0 && hour <= 23)) return undefined;
  if (part === 'night' && (hour === 12 || hour < 6)) return { hour: hour % 12, days: 1 };
  if (hour >= 12 || part === 'morning') return { hour: part === 'morning' && hour === 12 ? 0 : hour, days: 0 };
  return { hour: hour + 12, days: 0 };
}

/** chrono's English with the holidays, "<span> from today" and "half past three" it lacks. */
const ENGLISH = (() => {
  const en = chrono.en.casual.clone();
  en.parsers.push({
    pattern: () => HOLIDAY,
    extract: (_ctx, m) => {
      const md = HOLIDAYS.get((m[1] ?? '').toLowerCase().replace('new years', "new year's"));
      return md ? { month: md[0], day: md[1] } : null;
    },
  });
  en.parsers.push({
    pattern: () => SPAN_FROM,
    extract: (ctx, m) => {
      const n = SMALL.get((m[1] ?? '').toLowerCase()) ?? Number(m[1]);
      const days = n * (SPAN_UNITS.get((m[2] ?? '').toLowerCase()) ?? 1) + ((m[3] ?? '').toLowerCase() === 'tomorrow' ? 1 : 0);
      const c = chrono.ParsingComponents.createRelativeFromReference(ctx.reference, { day: days });
      c.assign('day', c.get('day') ?? 1);
      c.assign('month', c.get('month') ?? 1);
      return c;
    },
  });
  // Registered before chrono's own weekday reading would win the words: the longer reading is kept.
  en.parsers.push({
    pattern: () => SPAN_FROM_WEEKDAY,
    extract: (ctx, m) => {
      const n = SMALL.get((m[1] ?? '').toLowerCase()) ?? Number(m[1]);
      const last = (m[3] ?? '').toLowerCase() === 'last';
      const span = n * (SPAN_UNITS.get((m[2] ?? '').toLowerCase()) ?? 1);
      return daysToWeekday(ctx.reference, m[4] ?? '', span + (m[5] && !last ? 7 : 0), last);
    },
  });
  en.parsers.push({
    pattern: () => WEEKDAY_AFTER_NEXT,
    extract: (ctx, m) => daysToWeekday(ctx.reference, m[1] ?? '', 7),
  });
  en.parsers.push({
    pattern: () => CLOCK_PHRASE,
    extract: (ctx, m) => {
      const base = CLOCK_HOURS.get((m[3] ?? '').toLowerCase()) ?? Number(m[3]);
      if (!(base >= 0 && base <= 23)) return null;
      const quarter = (m[1] ?? '').toLowerCase() === 'quarter';
      const past = (m[2] ?? '').toLowerCase() === 'past';
      let hour = past ? base : (base + 23) % 24;
      const minute = past ? (quarter ? 15 : 30) : quarter ? 45 : 30;
      const after = ctx.text.slice((m.index ?? 0) + m[0].length - (m[4]?.length ?? 0));
      if (hour < 12 && ((m[4] ?? '').toLowerCase().includes('p') || AFTERNOON_AFTER.test(after))) hour += 12;
      const c = ctx.createParsingComponents({ hour, minute });
      return c;
    },
  });
  en.parsers.push({
    pattern: () => MINUTES_PHRASE,
    extract: (ctx, m) => {
      const minutes = m[2] !== undefined ? Number(m[2]) : MINUTE_WORDS.get((m[1] ?? '').toLowerCase().replace(/ minutes?$/, ''));
      const base = CLOCK_HOURS.get((m[4] ?? '').toLowerCase()) ?? Number(m[4]);
      if (minutes === undefined || !(minutes >= 1 && minutes <= 59) || !(base >= 0 && base <= 23)) return null;
      const said = /minute/i.test(m[0]);
      const before = ctx.text.slice(Math.max(0, (m.index ?? 0) - 12), m.index ?? 0);
      // "for twenty minutes after nine" is a duration, "the one after nine" a rank; "one after nine" is no minute.
      if (NOT_CLOCK_BEFORE.test(before) || (!said && minutes === 1)) return null;
      const past = (m[3] ?? '').toLowerCase() !== 'to';
      const rest = ctx.text.slice((m.index ?? 0) + m[0].length, (m.index ?? 0) + m[0].length + 24);
      const next = WORD_AFTER.exec(rest)?.[1]?.toLowerCase();
      // "two to three people", "from nine to eleven", "around five to ten customers": a range or a count; "to" reads
      // as a clock only with "minutes", or after a word of time with the clock's usual minutes and no noun after.
      if (!past && !said && (!CLOCK_LEAD.test(before) || !TO_MINUTES.has(minutes) || (next !== undefined && !TIME_FOLLOW.has(next)))) return null;
      let hour = past ? base : (base + 23) % 24;
      const minute = past ? minutes : 60 - minutes;
      const after = ctx.text.slice((m.index ?? 0) + m[0].length - (m[5]?.length ?? 0));
      // "ten past twelve at night": midnight and the small hours are the next day's.
      if (!m[5] && (hour === 12 || hour < 6) && NIGHT_AFTER.test(after)) {
        const c = chrono.ParsingComponents.createRelativeFromReference(ctx.reference, { day: 1 });
        for (const unit of ['day', 'month', 'year'] as const) c.assign(unit, c.get(unit) ?? 1);
        c.assign('hour', hour % 12);
        c.assign('minute', minute);
        return c;
      }
      if (hour < 12 && ((m[5] ?? '').toLowerCase().includes('p') || AFTERNOON_AFTER.test(after))) hour += 12;
      return ctx.createParsingComponents({ hour, minute });
    },
  });
  en.parsers.push({
    pattern: () => HOUR_OF_PART,
    extract: (ctx, m) => {
      // "ten past ten this morning": the hour of a clock phrase (MINUTES_PHRASE, CLOCK_PHRASE), not an hour of its own.
      const before = ctx.text.slice(Math.max(0, (m.index ?? 0) - 12), m.index ?? 0);
      if (/\b(?:past|to|after)\s*$/i.test(before)) return null;
      // "site 9 this morning", "router 7 this morning": a bare hour (no ":mm", no "o'clock") needs a word of time
      // before it ("at 9", "since 6").
      if (m[2] === undefined && !/o'?clock/i.test(m[0]) && !CLOCK_LEAD.test(before)) return null;
      const said = CLOCK_HOURS.get((m[1] ?? '').toLowerCase()) ?? Number(m[1]);
      // "tonight" is this night: "at 9 tonight" 21:00, "at 12 tonight" the midnight that ends today.
      const at = hourOfPart(said, (m[4] ?? 'night').toLowerCase());
      const minute = m[2] !== undefined ? Number(m[2]) : 0;
      if (at === undefined || minute > 59) return null;
      const c = chrono.ParsingComponents.createRelativeFromReference(ctx.reference, { day: (PART_DAY.get((m[3] ?? '').toLowerCase()) ?? 0) + at.days });
      for (const unit of ['day', 'month', 'year'] as const) c.assign(unit, c.get(unit) ?? 1);
      c.assign('hour', at.hour);
      c.assign('minute', minute);
      return c;
    },
  });
  return en;
})();

/** A reading that opens with two bare numbers and a range word between ("4 to 9", "12 through 15"): no ':mm', no am/pm. */
const BARE_RANGE = /^\d{1,2} ?(?:to|through|thru|till|until|-|\u2013) ?\d{1,2}(?![\d:.]| ?(?:am|pm|a\.m|p\.m|h\b|o'?clock))/i;
/** Words of time that make such a reading a span of hours ("from 9 to 11", "between 4 and 6", "since 4 to 5"). */
const RANGE_LEAD = /\b(?:from|between|at|around|about|since|by|until|till)\s*$/i;

/** The locales chrono reads, English first: a request written in another language still has dates. */
const LOCALES = ['en', 'fr', 'de', 'es', 'it', 'pt', 'ru', 'uk', 'ja', 'zh', 'zh-hans'] as const;
/** chrono's `zh` reads Traditional characters ("後天"); Simplified ones ("后天", "大后天") need its `zh.hans` (`zh` already reads 下周一). */
const parserOf = (locale: (typeof LOCALES)[number]) => (locale === 'en' ? ENGLISH : locale === 'zh-hans' ? chrono.zh.hans : chrono[locale]);

/** "the 3rd", "on the 21st": a day of the month chrono leaves alone. */
const ORDINAL_DAY = /^(\d{1,2})(st|nd|rd|th)$/;

/**
 * The text chrono reads: the utterance with corrected slips ("tomorow" →
 * tomorrow) written in, and where each token now starts and ends.
 */
function dateView(text: string, tokens: readonly Token[], corrected = true): { input: string; starts: number[]; ends: number[] } {
  let input = '';
  let at = 0;
  const starts: number[] = [];
  const ends: number[] = [];
  for (const [n, t] of tokens.entries()) {
    input += text.slice(at, t.start);
    starts.push(input.length);
    let written = corrected && t.kind === 'word' && t.lower !== t.text.toLowerCase() && t.lower !== 'not' ? t.lower : t.text;
    // Korean writes dates with the units of Chinese and Japanese ("12월 3일" is 12月3日), which chrono reads.
    if (!corrected && t.kind === 'cjk' && tokens[n - 1]?.kind === 'number') written = (HANGUL_UNITS.get(written[0] ?? '') ?? written[0] ?? '') + written.slice(1);
    input += written;
    ends.push(input.length);
    at = t.end;
  }
  input += text.slice(at);
  return { input, starts, ends };
}

/** Hangul date and time units after a number, as the CJK units chrono reads (one code unit each: offsets hold). */
const HANGUL_UNITS: ReadonlyMap<string, string> = new Map([['\uc6d4', '\u6708'], ['\uc77c', '\u65e5'], ['\uc2dc', '\u6642'], ['\ubd84', '\u5206']]);

function firstAtOrAfter(list: readonly number[], at: number): number {
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((list[mid] as number) < at) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

type View = ReturnType<typeof dateView>;

/**
 * "sites 4 to 9 this morning": two bare numbers joined by a range word, right after a list key's cue (`listCue`:
 * whether one stands right before token `at`) and with no word of time before them ("from", "between", "at"),
 * number things where chrono reads hours 4 to 9. Such a range is blanked in both views (same length: offsets hold),
 * so chrono still reads what follows ("this morning", "yesterday"). A range chrono reads as days of a month
 * ("12 to 14 December") or with no cue before it ("the link went down 2 to 4 yesterday") is left to chrono.
 */
function listRanges(views: { en: View; other: View }, reference: chrono.ParsingReference, listCue: (at: number) => boolean): { en: View; other: View } {
  let en = views.en.input;
  let other = views.other.input;
  if (!views.en.starts.some((_, i) => listCue(i))) return views;
  for (const r of ENGLISH.parse(en, reference, { forwardDate: false })) {
    const m = BARE_RANGE.exec(r.text);
    if (!m || !r.start.isCertain('hour') || RANGE_LEAD.test(en.slice(Math.max(0, r.index - 12), r.index))) continue;
    const from = firstAtOrAfter(views.en.starts, r.index);
    if (views.en.starts[from] !== r.index || !listCue(from)) continue;
    const to = firstAtOrAfter(views.en.starts, r.index + m[0].length);
    if (to <= from) continue;
    const blank = (input: string, v: View) => input.slice(0, v.starts[from]) + ' '.repeat((v.ends[to - 1] as number) - (v.starts[from] as number)) + input.slice(v.ends[to - 1]);
    en = blank(en, views.en);
    other = blank(other, views.other);
  }
  return { en: { ...views.en, input: en }, other: { ...views.other, input: other } };
}

/** The offset a reading's time of day is in: a "<name> time" after it, the one chrono read, else the reference zone's. */
function offsetOf3339(p: Parsed, tokens: readonly Token[], ref: DateReference, names: { aliases: ReadonlyMap<string, number>; cities: ReadonlyMap<string, string> }): { offset: number; to: number } {
  const { y, mo, d, h, mi, s } = p.parts;
  // "<name> time" right after the date, or between its time and its day ("at 06:05 Beijing time today").
  let zone: { minutes: number; next: number } | undefined;
  for (let i = p.from; i <= p.to && !zone; i++) zone = zoneAfter(tokens, i, names.aliases, names.cities, zonedInstant('UTC', y, mo, d, h, mi, s));
  if (zone) return { offset: zone.minutes, to: Math.max(p.to, zone.next) };
  if (p.parts.offset !== undefined) return { offset: p.parts.offset, to: p.to };
  return { offset: offsetMinutes(ref.timezone, zonedInstant(ref.timezone, y, mo, d, h, mi, s)), to: p.to };
}

/**
 * A time of day said with no day, for a key whose description says the event already happened (draft-zhou §6.1,
 * `orientation` past: "since midnight", "down since 3pm", "since midnight UTC"): never after the reference instant.
 * chrono puts such a time on the reference day ("midnight" at the coming one); a reading later than the reference is
 * stepped back a day, in the zone or offset the user said (else the reference zone), until it is not (at most twice:
 * the said zone and the reference zone's day are at most 26 hours apart). When the reference is a whole day (only
 * `today` given), "later" is from the end of that day on: "since 16:40" is that day's 16:40, "since midnight" its 00:00.
 */
function lastOccurrence(p: Parsed, tokens: readonly Token[], ref: DateReference, names: { aliases: ReadonlyMap<string, number>; cities: ReadonlyMap<string, string> }): { parts: Parts; offset: number; to: number } {
  let parts = p.parts;
  let at = offsetOf3339(p, tokens, ref, names);
  const instant = (x: Parts, offset: number) => Date.UTC(x.y, x.mo - 1, x.d, x.h, x.mi, x.s) - offset * 60_000;
  const day = localParts(ref.now, ref.timezone);
  const latest = ref.wholeDay === true ? zonedInstant(ref.timezone, day.y, day.mo, day.d + 1, 0).getTime() - 1 : ref.now.getTime();
  for (let n = 0; n < 3 && !parts.day && instant(parts, at.offset) > latest; n++) {
    const back = new Date(Date.UTC(parts.y, parts.mo - 1, parts.d - 1));
    parts = { ...parts, y: back.getUTCFullYear(), mo: back.getUTCMonth() + 1, d: back.getUTCDate() };
    at = offsetOf3339({ ...p, parts }, tokens, ref, names);
  }
  return { parts, ...at };
}

/**
 * Every date in the utterance, in order, for a key of `orientation`. `aliases`:
 * "<name> time" → offset minutes, from the template's examples.
 */
export function findDates(
  text: string,
  tokens: readonly Token[],
  ref: DateReference,
  orientation: Orientation,
  aliases: ReadonlyMap<string, number>,
  cities: ReadonlyMap<string, string>,
  english: (word: string) => boolean,
  listCue: (at: number) => boolean = () => false,
): FoundDate[] {
  // English reads the slips corrected ("tomorow"); other languages their own words ("Dezember" is no slip of "december").
  const reference = { instant: ref.now, timezone: offsetMinutes(ref.timezone, ref.now) };
  const views = listRanges({ en: dateView(text.slice(0, MAX_CHRONO_CHARS), tokens), other: dateView(text.slice(0, MAX_CHRONO_CHARS), tokens, false) }, reference, listCue);
  const parsed: Parsed[] = [];
  const taken: boolean[] = tokens.map(() => false);
  const today = localParts(ref.now, ref.timezone);
  for (const locale of LOCALES) {
    const parser = parserOf(locale);
    const view = locale === 'en' ? views.en : views.other;
    const input = view.input.slice(0, MAX_CHRONO_CHARS);
    // A request names a few dates, a pasted log many times: at most MAX_READINGS kept readings per locale that name a
    // day and as many that do not ("alarms at 09:01, …, 09:17; down since November 20" keeps its date). Readings
    // thrown away below count for neither, and each costs a binary search, not a scan of the tokens.
    const kept = { day: 0, dayless: 0 };
    for (const r of parser.parse(input, reference, { forwardDate: false })) {
      // "sites 2031 and 2040": a bare number is not a date.
      if (/^\d{1,4}$/.test(r.text.trim())) continue;
      const c = r.start;
      if (!c.isCertain('day') && !c.isCertain('weekday') && !c.isCertain('hour') && !c.isCertain('month')) continue;
      const kind = c.isCertain('day') || c.isCertain('weekday') || c.isCertain('month') ? 'day' : 'dayless';
      if (kept[kind] >= MAX_READINGS) continue;
      // Only whole tokens: "CR-04 a" is no time. CJK runs have no word boundaries inside: a date may start or
      // end inside one ("今天下午2点开始"), which it then takes whole.
      const end = r.index + r.text.length;
      const at = firstAtOrAfter(view.starts, r.index);
      let from = view.starts[at] === r.index ? at : -1;
      const startsIn = firstAtOrAfter(view.starts, r.index + 1) - 1;
      if (from === -1 && tokens[startsIn]?.kind === 'cjk' && (view.ends[startsIn] as number) > r.index) from = startsIn;
      if (from === -1) continue;
      let to = firstAtOrAfter(view.starts, end);
      if (to > 0 && (view.ends[to - 1] as number) > end && tokens[to - 1]?.kind !== 'cjk') continue;
      // chrono keeps a trailing comma ("next Monday,").
      while (to > from && tokens[to - 1]?.kind === 'punct') to--;
      if (to <= from) continue;
      // Another language's reading of English words ("to" is Thursday in Swedish) is no date: it must hold a
      // digit, a word of another script, or a word English does not have.
      if (locale !== 'en' && !tokens.slice(from, to).some((t) => t.kind === 'number' || t.kind === 'ident' || t.kind === 'cjk' || (t.kind === 'word' && (/[^\x00-\x7f]/.test(t.text) || !english(t.lower))))) continue;
      // The forward reading of the same words ("Monday" ahead of today): chrono reads them again alone, rather than
      // the whole text a second time (half of the date step's work on a long utterance).
      const fwd = orientation === 'future' ? parser.parse(r.text, reference, { forwardDate: true }).find((x) => x.index === 0 && x.text === r.text) : undefined;
      const useAhead = fwd !== undefined && !PAST_WORDS.test(r.text) && !c.isCertain('year');
      const parts = partsOf(useAhead ? fwd.start : c, r.text);
      if (taken.slice(from, to).some(Boolean)) {
        // A reading that names the day replaces the earlier dayless ones it covers ("am 15. Dezember" read by
        // English as 15:00 in December).
        const covered = parsed.filter((p) => p.from >= from && p.to <= to);
        const overlapping = parsed.filter((p) => p.from < to && p.to > from);
        if (!parts.day || covered.length !== overlapping.length || covered.some((p) => p.parts.day)) continue;
        for (const p of covered) parsed.splice(parsed.indexOf(p), 1);
      }
      parsed.push({ from, to, parts, text: r.text });
      kept[kind]++;
      for (let i = from; i < to; i++) taken[i] = true;
    }
  }
  // "on the 3rd": the next (or, for a past event, the last) day of that number.
  let ordinals = 0;
  tokens.forEach((t, i) => {
    const m = ORDINAL_DAY.exec(t.lower);
    if (!m || taken[i] || ordinals >= MAX_READINGS) return;
    ordinals++;
    const day = Number(m[1]);
    if (day < 1 || day > 31) return;
    let y = today.y;
    let mo = today.mo;
    const step = orientation === 'future' ? 1 : -1;
    if ((orientation === 'future' && day < today.d) || (orientation === 'past' && day > today.d)) mo += step;
    for (let n = 0; n < 3; n++) {
      if (mo > 12) [y, mo] = [y + 1, 1];
      if (mo < 1) [y, mo] = [y - 1, 12];
      if (new Date(Date.UTC(y, mo - 1, day)).getUTCDate() === day) break;
      mo += step;
    }
    const from = tokens[i - 1]?.lower === 'the' ? i - 1 : i;
    parsed.push({ from, to: i + 1, parts: { y, mo, d: day, h: 0, mi: 0, s: 0, day: true, time: false }, text: t.text });
    taken[i] = true;
  });
  parsed.sort((a, b) => a.from - b.from);
  // "at 9:12 Beijing time on 4 May 2026": chrono reads a time and a date apart; join them.
  const merged: Parsed[] = [];
  for (const p of parsed) {
    const prev = merged[merged.length - 1];
    if (prev) {
      const gap = tokens.slice(prev.to, p.from);
      const closeBy = gap.length <= 5 && gap.every((t) => t.kind === 'word' || t.text === ',' || t.text === '(' || t.text === ')');
      const timeOnly = (x: Parts) => x.time && !x.day;
      const dayOnly = (x: Parts) => x.day && !x.time;
      if (closeBy && ((timeOnly(prev.parts) && dayOnly(p.parts)) || (dayOnly(prev.parts) && timeOnly(p.parts)))) {
        const day = dayOnly(prev.parts) ? prev.parts : p.parts;
        const time = timeOnly(prev.parts) ? prev.parts : p.parts;
        const parts: Parts = { ...day, h: time.h, mi: time.mi, s: time.s, time: true, ...(time.offset !== undefined ? { offset: time.offset } : {}) };
        merged[merged.length - 1] = { from: prev.from, to: p.to, parts, text: `${prev.text} ${p.text}` };
        continue;
      }
    }
    merged.push(p);
  }
  return merged.map((p) => {
    if (!p.parts.time) {
      const { y, mo, d } = p.parts;
      return { from: p.from, to: p.to, date: `${pad(y, 4)}-${pad(mo)}-${pad(d)}`, hasTime: false, hasDay: p.parts.day };
    }
    const { parts, offset, to } = orientation === 'past' ? lastOccurrence(p, tokens, ref, { aliases, cities }) : { parts: p.parts, ...offsetOf3339(p, tokens, ref, { aliases, cities }) };
    const { y, mo, d, h, mi, s } = parts;
    const date = `${pad(y, 4)}-${pad(mo)}-${pad(d)}`;
    const dateTime = `${date}T${pad(h)}:${pad(mi)}:${pad(s)}${formatOffset(offset)}`;
    return { from: p.from, to, date, dateTime, hasTime: true, hasDay: p.parts.day };
  });
}
function localParts(instant: Date, tz: string): { y: number; mo: number; d: number } {
  const parts = new Intl.DateTimeFormat('en-CA', { timeZone: tz, year: 'numeric', month: '2-digit', day: '2-digit' }).formatToParts(instant);
  const get = (t: string) => Number(parts.find((p) => p.type === t)?.value ?? 0);
  return { y: get('year'), mo: get('month'), d: get('day') };
}

/** "2026-05-04T09:12:00+08:00" → +480 minutes (from a template example's value), or undefined. */
export function offsetOf(value: string): number | undefined {
  const m = /([+-])(\d{2}):(\d{2})$/.exec(value.slice(-6));
  if (m) return (m[1] === '-' ? -1 : 1) * (Number(m[2]) * 60 + Number(m[3]));
  return value.endsWith('Z') ? 0 : undefined;
}
