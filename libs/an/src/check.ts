/**
 * Small input checkers shared by the parsers of libs/an. Internal: not
 * exported from index.ts. Every failure is a ParleyError of the checker's
 * error type naming the key path and the rule broken.
 *
 * A member whose value is `undefined` counts as absent (decoded protobuf
 * messages carry unset optional fields that way); `null` is a wrong type.
 */
import { ParleyError, isPlainObject, type ErrorType } from '@parley/protocol';

/** Agent names (5.1): `{Standard Organization}-{Provider}-{Transmit}-{Version}` fits. */
export const AGENT_NAME_RE = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;
export const MAX_AGENT_NAME_LENGTH = 128;
/** Task ids and data-param ids. */
export const TASK_ID_RE = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/;
/** RFC 3339 date-time, as YANG's `yang:date-and-time`. */
export const TIMESTAMP_RE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;
/** Longest free-text member (content, descriptions): 64 KiB of UTF-8. */
export const MAX_TEXT_BYTES = 64 * 1024;
export const MAX_SHORT_LENGTH = 256;
export const MAX_LIST_LENGTH = 1024;

export { isPlainObject };

function describe(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  return `a ${typeof v}`;
}

/** UTF-8 length of a string, without Buffer or TextEncoder (pure). */
export function utf8Length(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        n += 4;
        i++;
      } else n += 3;
    } else n += 3;
  }
  return n;
}

/** An RFC 3339 date-time that names a real instant (no 30 February, no hour 24). */
export function isTimestamp(s: string): boolean {
  if (typeof s !== 'string' || !TIMESTAMP_RE.test(s)) return false;
  const [y, mo, d, h, mi, sec] = [0, 5, 8, 11, 14, 17].map((i) => Number(s.slice(i, i + (i === 0 ? 4 : 2)))) as [number, number, number, number, number, number];
  const daysInMonth = new Date(Date.UTC(y, mo, 0)).getUTCDate();
  if (mo < 1 || mo > 12 || d < 1 || d > daysInMonth || h > 23 || mi > 59 || sec > 59) return false;
  const off = /([+-])(\d{2}):(\d{2})$/.exec(s);
  if (off && (Number(off[2]) > 23 || Number(off[3]) > 59)) return false;
  return !Number.isNaN(Date.parse(s));
}

export interface StringRule {
  /** Refuse "" (rule `non_empty`); default true. */
  nonEmpty?: boolean;
  /** Longest length in characters (rule `max_length`). */
  maxLength?: number;
  /** Longest length in UTF-8 bytes (rule `max_length`). */
  maxBytes?: number;
  pattern?: RegExp;
  /** Rule name for a pattern mismatch (default `pattern`). */
  patternRule?: string;
  /** What a valid value looks like, for the message. */
  hint?: string;
}

/** One error type, many checks. */
export class Checker {
  constructor(readonly type: ErrorType) {}

  fail(path: string, rule: string, message: string, details?: Record<string, unknown>): never {
    throw new ParleyError(this.type, message, details ? { path, rule, details } : { path, rule });
  }

  object(v: unknown, path: string): Record<string, unknown> {
    if (v === undefined) this.fail(path, 'required', `${path} is required`);
    if (!isPlainObject(v)) this.fail(path, 'type', `${path} must be an object, not ${describe(v)}`);
    return v;
  }

  /**
   * Refuses members not in `allowed` (rule `unknown_member`). `hints` maps
   * known misspellings (the draft's own names) to the member meant.
   */
  members(o: Record<string, unknown>, allowed: readonly string[], path: string, hints: Readonly<Record<string, string>> = {}): void {
    for (const k of Object.keys(o)) {
      if (allowed.includes(k)) continue;
      const hint = Object.prototype.hasOwnProperty.call(hints, k) ? hints[k] : undefined;
      const tail = hint ? `; did you mean "${hint}"?` : `; allowed: ${allowed.join(', ')}`;
      this.fail(`${path}.${k}`, 'unknown_member', `${path}.${k} is not a known member${tail}`);
    }
  }

  string(v: unknown, path: string, rule: StringRule = {}): string {
    if (v === undefined) this.fail(path, 'required', `${path} is required${rule.hint ? `: ${rule.hint}` : ''}`);
    if (typeof v !== 'string') this.fail(path, 'type', `${path} must be a string, not ${describe(v)}`);
    if ((rule.nonEmpty ?? true) && v.trim() === '') this.fail(path, 'non_empty', `${path} must not be empty`);
    if (rule.maxLength !== undefined && v.length > rule.maxLength) {
      this.fail(path, 'max_length', `${path} is ${v.length} characters long; at most ${rule.maxLength} are allowed`);
    }
    if (rule.maxBytes !== undefined) {
      const bytes = utf8Length(v);
      if (bytes > rule.maxBytes) this.fail(path, 'max_length', `${path} is ${bytes} bytes long; at most ${rule.maxBytes} are allowed`);
    }
    if (rule.pattern && !rule.pattern.test(v)) {
      this.fail(
        path,
        rule.patternRule ?? 'pattern',
        `${path} ${JSON.stringify(v.slice(0, 80))} is malformed${rule.hint ? `: ${rule.hint}` : ''} (pattern ${rule.pattern.source})`,
      );
    }
    return v;
  }

  optString(v: unknown, path: string, rule: StringRule = {}): string | undefined {
    return v === undefined ? undefined : this.string(v, path, rule);
  }

  boolean(v: unknown, path: string): boolean {
    if (v === undefined) this.fail(path, 'required', `${path} is required`);
    if (typeof v !== 'boolean') this.fail(path, 'type', `${path} must be a boolean, not ${describe(v)}`);
    return v;
  }

  optBoolean(v: unknown, path: string, dflt: boolean): boolean {
    return v === undefined ? dflt : this.boolean(v, path);
  }

  /** A non-negative safe integer (rule `non_negative_integer`). */
  count(v: unknown, path: string): number {
    if (v === undefined) this.fail(path, 'required', `${path} is required`);
    if (typeof v !== 'number') this.fail(path, 'type', `${path} must be a number, not ${describe(v)}`);
    if (!Number.isSafeInteger(v) || v < 0) this.fail(path, 'non_negative_integer', `${path} must be a non-negative integer, not ${v}`);
    return v;
  }

  oneOf<T extends string>(v: unknown, allowed: readonly T[], path: string): T {
    if (v === undefined) this.fail(path, 'required', `${path} is required: one of ${allowed.join(', ')}`);
    if (typeof v !== 'string') this.fail(path, 'type', `${path} must be a string, not ${describe(v)}`);
    if (!(allowed as readonly string[]).includes(v)) {
      this.fail(path, 'enum', `${path} ${JSON.stringify(v.slice(0, 80))} is not one of ${allowed.join(', ')}`, { allowed });
    }
    return v as T;
  }

  array(v: unknown, path: string, maxItems = MAX_LIST_LENGTH): unknown[] {
    if (v === undefined) this.fail(path, 'required', `${path} is required`);
    if (!Array.isArray(v)) this.fail(path, 'type', `${path} must be an array, not ${describe(v)}`);
    if (v.length > maxItems) this.fail(path, 'max_items', `${path} has ${v.length} items; at most ${maxItems} are allowed`);
    return v;
  }

  /** An array of items parsed by `item`, refusing duplicates of `key(item)` (rule `unique`). */
  list<T>(v: unknown, path: string, item: (x: unknown, p: string) => T, key?: (t: T) => string, maxItems?: number): T[] {
    const arr = this.array(v, path, maxItems);
    const out: T[] = [];
    const seen = new Map<string, number>();
    arr.forEach((x, i) => {
      const p = `${path}[${i}]`;
      const t = item(x, p);
      if (key) {
        const k = key(t);
        const first = seen.get(k);
        if (first !== undefined) {
          this.fail(p, 'unique', `${p} repeats ${JSON.stringify(k)}, already at ${path}[${first}]`, { duplicate: k, first_index: first });
        }
        seen.set(k, i);
      }
      out.push(t);
    });
    return out;
  }

  /** Unique strings; each item checked with `rule` (or the enum `allowed`). */
  stringList(v: unknown, path: string, rule: StringRule = {}, maxItems?: number): string[] {
    return this.list(v, path, (x, p) => this.string(x, p, rule), (s) => s, maxItems);
  }

  enumList<T extends string>(v: unknown, allowed: readonly T[], path: string): T[] {
    return this.list(v, path, (x, p) => this.oneOf(x, allowed, p), (s) => s);
  }

  agentName(v: unknown, path: string): string {
    return this.string(v, path, {
      maxLength: MAX_AGENT_NAME_LENGTH,
      pattern: AGENT_NAME_RE,
      patternRule: 'name_format',
      hint: `1-${MAX_AGENT_NAME_LENGTH} letters, digits, ".", "_" or "-", starting with a letter or digit`,
    });
  }

  taskId(v: unknown, path: string): string {
    return this.string(v, path, {
      pattern: TASK_ID_RE,
      hint: '1-128 letters, digits, ".", "_", ":" or "-", starting with a letter or digit',
    });
  }

  timestamp(v: unknown, path: string): string {
    const s = this.string(v, path);
    if (!isTimestamp(s)) this.fail(path, 'timestamp', `${path} ${JSON.stringify(s.slice(0, 40))} is not an RFC 3339 date-time such as 2026-01-01T12:00:00Z`);
    return s;
  }

  text(v: unknown, path: string): string {
    return this.string(v, path, { maxBytes: MAX_TEXT_BYTES });
  }

  /** An http(s) URL (rule `url`). */
  url(v: unknown, path: string): string {
    const s = this.string(v, path, { maxLength: 2048 });
    let ok = false;
    try {
      const u = new URL(s);
      ok = (u.protocol === 'http:' || u.protocol === 'https:') && u.hostname !== '';
    } catch {
      ok = false;
    }
    if (!ok) this.fail(path, 'url', `${path} ${JSON.stringify(s.slice(0, 80))} is not an http(s) URL`);
    return s;
  }
}

/** Sets `o[k] = v` only when v is defined, so outputs carry no `undefined` members. */
export function put<T extends object, K extends keyof T>(o: T, k: K, v: T[K] | undefined): void {
  if (v !== undefined) o[k] = v;
}
