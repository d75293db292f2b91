/**
 * What the gateway commands (`parley pool`, `parley patches`, `parley audits`,
 * `parley keys`, `parley whoami`) share: option parsing, the gateway's JSON-RPC
 * endpoint (through `@parley/client`, so errors come back as ParleyError with
 * the server's type, path and rule), aligned tables, and one way to print
 * errors and pick the exit code (0 done, 1 the gateway refused or could not be
 * reached, 2 usage).
 *
 * Common options: `--url` (default env PARLEY_URL or http://127.0.0.1:8080),
 * `--key` (the caller's API key or JWT, default env PARLEY_API_KEY; sent as
 * `Authorization: Bearer`), `--json` (print the raw result),
 * `-h`/`--help`.
 */
import { createParleyClient, type ParleyClient, type ParleyClientOptions } from '@parley/client';
import { ParleyError, scenarioId, toParleyError } from '@parley/protocol';

export const DEFAULT_URL = 'http://127.0.0.1:8080';

/** A usage error: exit code 2, with the usage printed after the message. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

/**
 * `value` options take an argument (`--scenario S` or `--scenario=S`); `switch`
 * options take none; `list` options take an argument and may be repeated, each
 * value also split on commas (`--role a --role b` or `--role a,b`).
 */
export type FlagSpec = Record<string, 'value' | 'switch' | 'list'>;

export interface Parsed {
  values: Record<string, string>;
  /** The values of `list` options, in order (absent when the option was not given). */
  lists: Record<string, string[]>;
  switches: Set<string>;
  positional: string[];
  help: boolean;
}

/** The options every gateway command takes. */
export const COMMON: FlagSpec = { url: 'value', key: 'value', json: 'switch' };
/** The options of a command that does not call the gateway. */
export const LOCAL_COMMON: FlagSpec = { json: 'switch' };

/** The environment variable the caller's API key is read from. */
export const API_KEY_ENV = 'PARLEY_API_KEY';

export function parseFlags(argv: readonly string[], spec: FlagSpec, common: FlagSpec = COMMON): Parsed {
  const all: FlagSpec = { ...common, ...spec };
  const out: Parsed = { values: {}, lists: {}, switches: new Set(), positional: [], help: false };
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
    if (!kind && name === 'token' && all.key) {
      throw new UsageError(`--token is gone (there is no shared operator token any more): pass your API key with --key or the env ${API_KEY_ENV}`);
    }
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
    if (kind === 'list') {
      const items = v.split(',').map((x) => x.trim());
      if (items.some((x) => x === '')) throw new UsageError(`--${name} has an empty item in "${v}"`);
      (out.lists[name] ??= []).push(...items);
      continue;
    }
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

/** The client of the gateway named by --url / PARLEY_URL, with the API key of --key / PARLEY_API_KEY. */
export function clientFrom(p: Parsed, env: NodeJS.ProcessEnv = process.env, extra: Omit<ParleyClientOptions, 'apiKey' | 'timeoutMs'> = {}): { url: string; client: ParleyClient } {
  const url = p.values.url ?? (env.PARLEY_URL || DEFAULT_URL);
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw new UsageError(`--url is not a URL: ${url}`);
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new UsageError(`--url must be an http(s) URL, got ${url}`);
  const apiKey = p.values.key ?? (env[API_KEY_ENV]?.trim() || undefined);
  if (apiKey && u.protocol === 'http:' && !LOOPBACK.has(u.hostname)) {
    process.stderr.write(`warning: sending the API key over plain HTTP to ${u.host}; use https or a tunnel\n`);
  }
  return { url, client: createParleyClient(url, { timeoutMs: 30_000, ...extra, ...(apiKey ? { apiKey } : {}) }) };
}

/** The gateway named by --url / PARLEY_URL, called with the API key of --key / PARLEY_API_KEY. */
export function gatewayFrom(p: Parsed, env: NodeJS.ProcessEnv = process.env): Gateway {
  const { url, client } = clientFrom(p, env);
  return { url, call: (method, params) => client.call(method, params) };
}

/**
 * A listing that came back empty for `scenario`: empty because nothing happened yet, or because no such
 * scenario exists? The latter is an error (`scenario_not_found`, exit code 1), never an empty list.
 */
export async function assertScenarioKnown(gw: Gateway, scenario: string): Promise<void> {
  const r = (await gw.call('list_schemas', { scenario })) as { schemas?: unknown[] };
  if ((r.schemas ?? []).length > 0) return;
  throw new ParleyError('scenario_not_found', `No schema is published for scenario "${scenario}"`, {
    path: '--scenario',
    rule: 'exists',
    details: { scenario_id: scenarioId(scenario) },
  });
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
  if (err.type === 'unauthenticated') {
    lines.push(`  hint: pass an API key with --key or the env ${API_KEY_ENV} (\`npm start\` prints the development key; an operator creates keys with \`parley keys create\`)`);
  }
  if (err.type === 'forbidden') {
    lines.push('  hint: the API key lacks the role (or namespace) this call needs: `parley whoami` shows what it holds; operators create keys with `parley keys create`');
  }
  return lines.join('\n');
}

export interface Subcommand {
  summary: string;
  /** Usage line after `parley <command> `. */
  usage: string;
  flags: FlagSpec;
  /** Made locally: no gateway, so no --url / --key (only --json); `run` gets a Gateway that refuses every call. */
  local?: boolean;
  /** Calls the gateway (unless `local`); returns the raw result and its human rendering. */
  run(p: Parsed, gw: Gateway): Promise<{ result: unknown; text: string }>;
}

const COMMON_HELP = [
  'common options:',
  `  --url URL   the gateway (default env PARLEY_URL or ${DEFAULT_URL})`,
  `  --key KEY   your API key (pk_…) or JWT, sent as Authorization: Bearer (default env ${API_KEY_ENV};`,
  '              prefer the env: command-line arguments show in `ps`)',
  '  --json      print the raw JSON-RPC result',
  '',
  'exit codes: 0 done, 1 the gateway refused the call or could not be reached, 2 usage error',
  '',
].join('\n');

const LOCAL_HELP = ['options:', '  --json      print the result as JSON', '', 'exit codes: 0 done, 2 usage error', ''].join('\n');

export function usageOf(command: string, summary: string, subs: Record<string, Subcommand>): string {
  const local = Object.values(subs).filter((s) => s.local);
  return [
    `usage: parley ${command} <subcommand> [options]`,
    '',
    summary,
    '',
    ...Object.values(subs).flatMap((s) => [`  parley ${command} ${s.usage}`, `      ${s.summary}`]),
    '',
    COMMON_HELP.replace('common options:', local.length > 0 ? `common options (all but ${local.map((s) => s.usage.split(' ')[0]).join(', ')}):` : 'common options:'),
  ].join('\n');
}

/** Parses `argv` for `sub`, calls it, prints the result; returns the exit code. `prefix` names the command in messages. */
async function execute(prefix: string, usageLine: string, sub: Subcommand, argv: readonly string[]): Promise<number> {
  const usageError = (e: UsageError) => {
    process.stderr.write(`${prefix}: ${e.message}\nusage: ${usageLine}\n`);
    return 2;
  };
  let p: Parsed;
  let gw: Gateway;
  try {
    p = parseFlags(argv, sub.flags, sub.local ? LOCAL_COMMON : COMMON);
    if (p.help) {
      process.stdout.write(`usage: ${usageLine}\n\n${sub.summary}\n\n${sub.local ? LOCAL_HELP : COMMON_HELP}`);
      return 0;
    }
    gw = sub.local ? localOnly : gatewayFrom(p);
  } catch (e) {
    if (e instanceof UsageError) return usageError(e);
    throw e;
  }
  try {
    const { result, text } = await sub.run(p, gw);
    process.stdout.write(p.switches.has('json') ? `${JSON.stringify(result, null, 2)}\n` : `${text}\n`);
    return 0;
  } catch (e) {
    if (e instanceof UsageError) return usageError(e);
    const err = toParleyError(e);
    process.stderr.write(`${prefix}: ${describe(err)}\n`);
    if (err.type === 'internal' && !(e instanceof ParleyError)) process.stderr.write(`  ${e instanceof Error ? e.message : String(e)}\n`);
    return 1;
  }
}

/** What a `local` subcommand gets for a gateway: calling it is a bug. */
const localOnly: Gateway = {
  url: '',
  call: () => Promise.reject(new Error('a local command called the gateway')),
};

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
  return execute(`parley ${command} ${name}`, `parley ${command} ${sub.usage}`, sub, rest);
}

/** Runs `parley <command> ...` for a command without subcommands (`usage` is the line after `parley `). */
export function runCommand(command: string, sub: Subcommand, argv: readonly string[]): Promise<number> {
  return execute(`parley ${command}`, `parley ${sub.usage}`, sub, argv);
}
