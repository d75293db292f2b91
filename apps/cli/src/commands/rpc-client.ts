/**
 * What the operator commands (`parley pool`, `parley patches`, `parley audits`)
 * share: option parsing, the gateway's JSON-RPC endpoint (through
 * `@parley/client`, so errors come back as ParleyError with the server's type,
 * path and rule), aligned tables, and one way to print errors and pick the exit
 * code (0 done, 1 the gateway refused or could not be reached, 2 usage).
 *
 * Common options: `--url` (default env PARLEY_URL or http://127.0.0.1:8080),
 * `--token` (default env PARLEY_OPERATOR_TOKEN; sent as `Authorization: Bearer`),
 * `--json` (print the raw result), `-h`/`--help`.
 */
import { createParleyClient } from '@parley/client';
import { ParleyError, toParleyError } from '@parley/protocol';

export const DEFAULT_URL = 'http://127.0.0.1:8080';

/** A usage error: exit code 2, with the usage printed after the message. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

/** `value` options take an argument (`--scenario S` or `--scenario=S`); `switch` options take none. */
export type FlagSpec = Record<string, 'value' | 'switch'>;

export interface Parsed {
  values: Record<string, string>;
  switches: Set<string>;
  positional: string[];
  help: boolean;
}

const COMMON: FlagSpec = { url: 'value', token: 'value', json: 'switch' };

export function parseFlags(argv: readonly string[], spec: FlagSpec): Parsed {
  const all: FlagSpec = { ...COMMON, ...spec };
  const out: Parsed = { values: {}, switches: new Set(), positional: [], help: false };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    if (arg === '-h' || arg === '--help') {
      out.help = true;
      continue;
    }
    if (!arg.startsWith('--')) {
      if (arg.startsWith('-') && arg !== '-') throw new UsageError(`unknown option ${arg}`);
      out.positional.push(arg);
      continue;
    }
    const eq = arg.indexOf('=');
    const name = arg.slice(2, eq === -1 ? undefined : eq);
    const kind = Object.prototype.hasOwnProperty.call(all, name) ? all[name] : undefined;
    if (!kind) throw new UsageError(`unknown option --${name}`);
    if (kind === 'switch') {
      if (eq !== -1) throw new UsageError(`--${name} takes no value`);
      out.switches.add(name);
      continue;
    }
    let v: string | undefined;
    if (eq !== -1) v = arg.slice(eq + 1);
    else {
      v = argv[i + 1];
      if (v === undefined || v.startsWith('--')) throw new UsageError(`--${name} needs a value`);
      i++;
    }
    if (v === '') throw new UsageError(`--${name} needs a non-empty value`);
    out.values[name] = v;
  }
  return out;
}

export function required(p: Parsed, name: string, what: string): string {
  const v = p.values[name];
  if (v === undefined) throw new UsageError(`--${name} is required (${what})`);
  return v;
}

/** One positional argument, named in the message when missing. */
export function onePositional(p: Parsed, name: string): string {
  if (p.positional.length === 0) throw new UsageError(`${name} is missing`);
  if (p.positional.length > 1) throw new UsageError(`unexpected argument ${JSON.stringify(p.positional[1])}`);
  return p.positional[0] as string;
}

export function noPositional(p: Parsed): void {
  if (p.positional.length > 0) throw new UsageError(`unexpected argument ${JSON.stringify(p.positional[0])}`);
}

/** An integer option in [min, max], or undefined when absent. */
export function intFlag(p: Parsed, name: string, min: number, max: number): number | undefined {
  const raw = p.values[name];
  if (raw === undefined) return undefined;
  const n = Number(raw);
  if (!/^-?\d+$/.test(raw) || !Number.isSafeInteger(n) || n < min || n > max) throw new UsageError(`--${name} must be an integer from ${min} to ${max}, got "${raw}"`);
  return n;
}

/** A number option >= min, or undefined when absent. */
export function numFlag(p: Parsed, name: string, min: number): number | undefined {
  const raw = p.values[name];
  if (raw === undefined) return undefined;
  const n = Number(raw);
  if (raw.trim() === '' || !Number.isFinite(n) || n < min) throw new UsageError(`--${name} must be a number >= ${min}, got "${raw}"`);
  return n;
}

const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);

export interface Gateway {
  url: string;
  /** Calls `method` on /rpc; throws ParleyError (the gateway's, or `unavailable` when it cannot be reached). */
  call(method: string, params: Record<string, unknown>): Promise<unknown>;
}

/** The gateway named by --url / PARLEY_URL, with the token of --token / PARLEY_OPERATOR_TOKEN. */
export function gatewayFrom(p: Parsed, env: NodeJS.ProcessEnv = process.env): Gateway {
  const url = p.values.url ?? (env.PARLEY_URL || DEFAULT_URL);
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw new UsageError(`--url is not a URL: ${url}`);
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new UsageError(`--url must be an http(s) URL, got ${url}`);
  const token = p.values.token ?? (env.PARLEY_OPERATOR_TOKEN || undefined);
  if (token && u.protocol === 'http:' && !LOOPBACK.has(u.hostname)) {
    process.stderr.write(`warning: sending the operator token over plain HTTP to ${u.host}; use https or a tunnel\n`);
  }
  const client = createParleyClient(url, { timeoutMs: 30_000, ...(token ? { headers: { authorization: `Bearer ${token}` } } : {}) });
  return { url, call: (method, params) => client.call(method, params) };
}

/** `{ ...o }` without undefined members. */
export function defined(o: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined));
}

// ---------------------------------------------------------------------------
// Output
// ---------------------------------------------------------------------------

/** Columns whose header ends with `>` are right-aligned (the `>` is dropped). */
export function table(headers: readonly string[], rows: readonly (readonly string[])[]): string {
  const right = headers.map((h) => h.endsWith('>'));
  const heads = headers.map((h) => (h.endsWith('>') ? h.slice(0, -1) : h));
  const widths = heads.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: readonly string[]) =>
    cells
      .map((c, i) => (right[i] ? c.padStart(widths[i] as number) : i === cells.length - 1 ? c : c.padEnd(widths[i] as number)))
      .join('  ')
      .trimEnd();
  return [line(heads), ...rows.map((r) => line(heads.map((_, i) => r[i] ?? '')))].join('\n');
}

export const num = (n: number | undefined, digits = 2): string => (n === undefined || n === null ? '-' : n.toFixed(digits));
export const pct = (r: number | undefined): string => (r === undefined || r === null ? '-' : `${Math.round(r * 100)}%`);
export const yesNo = (b: boolean | undefined): string => (b ? 'yes' : 'no');
export const clip = (s: string, max = 48): string => {
  const one = s.replace(/\s+/g, ' ');
  return one.length > max ? `${one.slice(0, max - 1)}…` : one;
};

/** `k=v` pairs of a figures object (numbers to 2 decimals when fractional). */
export function figures(f: Record<string, unknown> | undefined): string {
  if (!f || Object.keys(f).length === 0) return '-';
  return Object.entries(f)
    .map(([k, v]) => `${k}=${typeof v === 'number' && !Number.isInteger(v) ? v.toFixed(2) : typeof v === 'object' ? JSON.stringify(v) : String(v)}`)
    .join(' ');
}

/** The error as `type at path (rule rule): message`, plus further violations and a hint for access errors. */
export function describe(err: ParleyError): string {
  const where = [err.path ? `at ${err.path}` : '', err.rule ? `rule ${err.rule}` : ''].filter(Boolean).join(', ');
  const lines = [`${err.type}${where ? ` (${where})` : ''}: ${err.message}`];
  if (err.violations.length > 1) lines.push(...err.violations.map((v) => `  - ${v.path} (${v.rule}): ${v.message}`));
  if (err.type === 'unauthenticated') lines.push('  hint: pass the gateway\'s operator token with --token or the env PARLEY_OPERATOR_TOKEN');
  return lines.join('\n');
}

export interface Subcommand {
  summary: string;
  /** Usage line after `parley <command> `. */
  usage: string;
  flags: FlagSpec;
  /** Calls the gateway; returns the raw result and its human rendering. */
  run(p: Parsed, gw: Gateway): Promise<{ result: unknown; text: string }>;
}

export function usageOf(command: string, summary: string, subs: Record<string, Subcommand>): string {
  return [
    `usage: parley ${command} <subcommand> [options]`,
    '',
    summary,
    '',
    ...Object.values(subs).flatMap((s) => [`  parley ${command} ${s.usage}`, `      ${s.summary}`]),
    '',
    'common options:',
    `  --url URL      the gateway (default env PARLEY_URL or ${DEFAULT_URL})`,
    '  --token TOKEN  the operator token (default env PARLEY_OPERATOR_TOKEN; prefer the env: arguments show in ps)',
    '  --json         print the raw JSON-RPC result',
    '',
    'exit codes: 0 done, 1 the gateway refused the call or could not be reached, 2 usage error',
    '',
  ].join('\n');
}

/** Runs `parley <command> <subcommand> ...`: parses, calls, prints; returns the exit code. */
export async function runSubcommand(command: string, summary: string, subs: Record<string, Subcommand>, argv: readonly string[]): Promise<number> {
  const usage = usageOf(command, summary, subs);
  const [name, ...rest] = argv;
  if (name === undefined || name === '-h' || name === '--help') {
    (name === undefined ? process.stderr : process.stdout).write(usage);
    return name === undefined ? 2 : 0;
  }
  const sub = Object.prototype.hasOwnProperty.call(subs, name) ? subs[name] : undefined;
  if (!sub) {
    process.stderr.write(`parley ${command}: unknown subcommand ${JSON.stringify(name)}\n${usage}`);
    return 2;
  }
  const prefix = `parley ${command} ${name}`;
  let p: Parsed;
  let gw: Gateway;
  try {
    p = parseFlags(rest, sub.flags);
    if (p.help) {
      process.stdout.write(`usage: parley ${command} ${sub.usage}\n\n${sub.summary}\n\n${usage.slice(usage.indexOf('common options:'))}`);
      return 0;
    }
    gw = gatewayFrom(p);
  } catch (e) {
    if (e instanceof UsageError) {
      process.stderr.write(`${prefix}: ${e.message}\nusage: parley ${command} ${sub.usage}\n`);
      return 2;
    }
    throw e;
  }
  try {
    const { result, text } = await sub.run(p, gw);
    process.stdout.write(p.switches.has('json') ? `${JSON.stringify(result, null, 2)}\n` : `${text}\n`);
    return 0;
  } catch (e) {
    if (e instanceof UsageError) {
      process.stderr.write(`${prefix}: ${e.message}\nusage: parley ${command} ${sub.usage}\n`);
      return 2;
    }
    const err = toParleyError(e);
    process.stderr.write(`${prefix}: ${describe(err)}\n`);
    if (err.type === 'internal' && !(e instanceof ParleyError)) process.stderr.write(`  ${e instanceof Error ? e.message : String(e)}\n`);
    return 1;
  }
}
