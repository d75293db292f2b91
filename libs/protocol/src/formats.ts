/**
 * The string formats payload validation checks (JSON Schema `format`, draft-zhou §4.1 key `format`): ajv-formats'
 * full set, with `date` checked by a scan instead of its regular expression.
 *
 * ajv-formats checks a date with `/^(\d\d\d\d)-(\d\d)-(\d\d)$/.exec` and three number conversions: a match array
 * and three substrings per value, which made it most of the time a payload with one date key spends in
 * validation (45% of `validate()` on flight_booking_v1 in a CPU profile). `isFullDate` accepts exactly what
 * that does (RFC 3339 full-date: four, two and two ASCII digits joined by '-', a month 01–12, a day that month
 * has, 29 February in leap years) reading the characters in place.
 */
import type { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsImport from 'ajv-formats';
import { fullFormats } from 'ajv-formats/dist/formats.js';

// ajv-formats is CommonJS; under some ESM loaders its default export is nested.
const addFormats = ((addFormatsImport as unknown as { default?: unknown }).default ?? addFormatsImport) as (a: Ajv2020) => unknown;

const DAYS = [0, 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/** The value of the ASCII digit at `i`, or -1. */
function digit(s: string, i: number): number {
  const c = s.charCodeAt(i) - 48;
  return c >= 0 && c <= 9 ? c : -1;
}

/** Whether `s` is an RFC 3339 full-date (YYYY-MM-DD, a day the month has), as ajv-formats' `date` decides. */
export function isFullDate(s: string): boolean {
  if (typeof s !== 'string' || s.length !== 10 || s.charCodeAt(4) !== 45 || s.charCodeAt(7) !== 45) return false;
  const y0 = digit(s, 0), y1 = digit(s, 1), y2 = digit(s, 2), y3 = digit(s, 3);
  const m0 = digit(s, 5), m1 = digit(s, 6), d0 = digit(s, 8), d1 = digit(s, 9);
  if ((y0 | y1 | y2 | y3 | m0 | m1 | d0 | d1) < 0) return false;
  const year = y0 * 1000 + y1 * 100 + y2 * 10 + y3;
  const month = m0 * 10 + m1;
  const day = d0 * 10 + d1;
  if (month < 1 || month > 12 || day < 1) return false;
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  return day <= (month === 2 && leap ? 29 : DAYS[month]!);
}

/** Adds the payload formats to an Ajv instance: ajv-formats' full set, `date` by isFullDate (same comparison). */
export function addPayloadFormats(ajv: Ajv2020): void {
  addFormats(ajv);
  const date = fullFormats.date as { compare: (a: string, b: string) => number | undefined };
  ajv.addFormat('date', { type: 'string', validate: isFullDate, compare: date.compare });
}
