/**
 * `parley tokens FILE [--json] [--base-url URL]`: token counts (o200k_base, compact
 * JSON) of an MCP tools/list before and after each ADOL mechanism of draft-chang
 * (A: $ref dedup, §3.1; B: short view, §3.2) and both, with the round trips that
 * make them lossless checked. FILE is a tools/list result (`{ tools: [...] }`), a
 * JSON-RPC response carrying one (`result.tools`), or an array of tools.
 *
 * Exit codes: 0 done (even when a round trip fails: that is a finding, printed and
 * in the JSON); 2 usage or bad input (missing file, invalid JSON, not a tool list).
 */
import { readFile } from 'node:fs/promises';
import { countTokens, inlineToolRefs, measureTools, toolsFromList, type ToolsMeasure } from '@parley/adol';
import { isParleyError } from '@parley/protocol';
import { progress } from '../progress';

const USAGE = `usage: parley tokens FILE [--json] [--base-url URL]

  FILE          an MCP tools/list result ({"tools":[...]}), a JSON-RPC response with
                result.tools, or a JSON array of tools (e.g. bench/data/mcp-tools/github.json)
  --json        end the output with one line of JSON (the figures below)
  --base-url    prefix of shared schema documents' addresses (default none: relative /s/<hash>,
                as Parley's gateway lists them); its length is part of every shared reference's cost
`;

class UsageError extends Error {}

interface Args {
  file: string;
  json: boolean;
  baseUrl?: string;
}

function parseArgs(argv: string[]): Args | 'help' {
  let file: string | undefined;
  let json = false;
  let baseUrl: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--help' || a === '-h') return 'help';
    if (a === '--json') json = true;
    else if (a === '--base-url' || a.startsWith('--base-url=')) {
      const v = a.includes('=') ? a.slice(a.indexOf('=') + 1) : argv[++i];
      if (!v || !/^https?:\/\/\S+$/.test(v)) throw new UsageError('--base-url needs an http(s) URL');
      baseUrl = v;
    } else if (a.startsWith('-') && a !== '-') throw new UsageError(`unknown option ${a}`);
    else if (file === undefined) file = a;
    else throw new UsageError(`one FILE only (got ${file} and ${a})`);
  }
  if (file === undefined) throw new UsageError('FILE is missing');
  return { file, json, ...(baseUrl ? { baseUrl } : {}) };
}

function pct(full: number, n: number): string {
  return full === 0 ? '-' : `${(((full - n) / full) * 100).toFixed(1)}%`;
}

export function renderTable(file: string, m: ToolsMeasure & { tokens_no_refs?: number }): string {
  const rows: [string, number][] = [
    ...(m.tokens_no_refs !== undefined ? ([['A    no $ref at all (every reference inlined)', m.tokens_no_refs]] as [string, number][]) : []),
    ['A    dedup, $defs inside each schema (MCP)', m.tokens_dedup],
    ['A    dedup, shared schema documents (Parley)', m.tokens_dedup_shared],
    ['A    dedup, one $defs for the list (baseline layout)', m.tokens_dedup_list],
    ['B    short view', m.tokens_short],
    ['A+B  short view + $defs inside each schema', m.tokens_both],
    ['A+B  short view + shared schema documents', m.tokens_both_shared],
    ['A+B  short view + one $defs for the list', m.tokens_both_list],
  ];
  const w = Math.max(...rows.map((r) => r[0].length), 20);
  const line = (label: string, n: number, saved: string): string => `${label.padEnd(w)}  ${String(n).padStart(7)}  ${saved.padStart(6)}`;
  const ok = (b: boolean): string => (b ? 'ok' : 'FAILED');
  return [
    `${file}: ${m.tools} tools (o200k_base tokens of compact JSON; draft-chang ADOL)`,
    '',
    `${'mechanism'.padEnd(w)}  ${'tokens'.padStart(7)}  ${'saved'.padStart(6)}`,
    line('     full (as listed)', m.tokens_full, '-'),
    ...rows.map(([label, n]) => line(label, n, pct(m.tokens_full, n))),
    '',
    `round trips: dedup → deref ${ok(m.roundtrip_dedup)}, short → full ${ok(m.roundtrip_short)}, both ${ok(m.roundtrip_both)}`,
  ].join('\n');
}

export async function run(argv: string[]): Promise<number> {
  let args: Args | 'help';
  try {
    args = parseArgs(argv);
  } catch (e) {
    process.stderr.write(`parley tokens: ${(e as Error).message}\n\n${USAGE}`);
    return 2;
  }
  if (args === 'help') {
    process.stdout.write(USAGE);
    return 0;
  }
  let text: string;
  try {
    text = await readFile(args.file, 'utf8');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    process.stderr.write(`parley tokens: cannot read ${args.file}: ${code === 'ENOENT' ? 'no such file' : (e as Error).message}\n`);
    return 2;
  }
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (e) {
    process.stderr.write(`parley tokens: ${args.file} is not valid JSON: ${(e as Error).message}\n`);
    return 2;
  }
  let tools;
  try {
    tools = toolsFromList(doc);
  } catch (e) {
    if (!isParleyError(e)) throw e;
    process.stderr.write(`parley tokens: ${args.file} is not an MCP tool list: ${e.message}\n`);
    return 2;
  }
  progress('tokens', `counting o200k tokens of ${tools.length} tools, before and after each mechanism…`);
  const m = { ...measureTools(tools, args.baseUrl ? { baseUrl: args.baseUrl } : {}), tokens_no_refs: countTokens(inlineToolRefs(tools).tools) };
  process.stdout.write(`${renderTable(args.file, m)}\n`);
  if (args.json) process.stdout.write(`${JSON.stringify({ file: args.file, ...m })}\n`);
  return 0;
}
