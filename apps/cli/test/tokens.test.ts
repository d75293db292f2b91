/**
 * `parley tokens` as a user runs it: the real bin (apps/cli/bin/parley.mjs) as a child
 * process, on a real tools/list data set and on bad input.
 */
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parley, parleyWith } from './run-cli';
import { countTokens, measureTools, shortView, toolsFromList, wireTools } from '@parley/adol';
import type { SelectionFigures } from '../src/commands/tokens';

const DATA = fileURLToPath(new URL('../../../bench/data/mcp-tools/', import.meta.url));


function lastJson(stdout: string): Record<string, unknown> {
  const lines = stdout.trimEnd().split('\n');
  return JSON.parse(lines[lines.length - 1]!) as Record<string, unknown>;
}

const tmp = mkdtempSync(join(tmpdir(), 'parley-tokens-'));
function file(name: string, content: string): string {
  const p = join(tmp, name);
  writeFileSync(p, content);
  return p;
}

describe('parley tokens FILE', () => {
  it('needs the data sets', () => {
    expect(existsSync(join(DATA, 'github.json')), `MCP data sets expected at ${DATA}`).toBe(true);
  });

  it('prints the table and, with --json, ends with the figures the library measures', { timeout: 60_000 }, async () => {
    const path = join(DATA, 'github.json');
    const r = await parley('tokens', path, '--json');
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const tools = toolsFromList(JSON.parse(readFileSync(path, 'utf8')));
    const m = measureTools(tools);
    const out = lastJson(r.stdout);
    expect(out).toMatchObject({
      tools: tools.length,
      tokens_full: countTokens(tools),
      tokens_dedup: m.tokens_dedup,
      tokens_short: m.tokens_short,
      tokens_both: m.tokens_both,
      roundtrip_dedup: true,
      roundtrip_short: true,
      roundtrip_both: true,
      roundtrip_ok: true,
    });
    // The table names every mechanism with its figure.
    expect(r.stdout).toContain(`${tools.length} tools`);
    expect(r.stdout).toMatch(new RegExp(`short view\\s+${m.tokens_short}\\s`));
    expect(r.stdout).toMatch(new RegExp(`full \\(as listed\\)\\s+${m.tokens_full}\\s`));
    expect(r.stdout).toContain('round trips: dedup → deref ok, short → full ok, both ok');
  });

  it('on an OpenAPI-generated list: the reference-free form and MCP-conformant dedup drop the definitions no tool uses', { timeout: 60_000 }, async () => {
    const path = join(DATA, 'openapi-petstore.json');
    const r = await parley('tokens', path, '--json');
    expect(r.code).toBe(0);
    const out = lastJson(r.stdout) as { tokens_full: number; tokens_no_refs: number; tokens_both: number };
    expect(out.tokens_no_refs).toBeLessThan(out.tokens_full * 0.4);
    expect(out.tokens_both).toBeLessThan(out.tokens_full * 0.4);
    expect(r.stdout).toMatch(new RegExp(`no \\$ref at all \\(every reference inlined\\)\\s+${out.tokens_no_refs}\\s`));
  });

  it('reads a JSON-RPC response and a { tools } result alike; without --json it prints no JSON', { timeout: 60_000 }, async () => {
    const tools = JSON.parse(readFileSync(join(DATA, 'memory.json'), 'utf8')) as unknown[];
    const rpc = await parley('tokens', file('rpc.json', JSON.stringify({ jsonrpc: '2.0', id: 1, result: { tools } })), '--json');
    const plain = await parley('tokens', file('result.json', JSON.stringify({ tools })), '--json');
    expect(rpc.code).toBe(0);
    expect(plain.code).toBe(0);
    const a = lastJson(rpc.stdout);
    const b = lastJson(plain.stdout);
    expect({ ...a, file: '' }).toEqual({ ...b, file: '' });
    expect(a.tokens_full).toBe(countTokens(tools));
    const table = await parley('tokens', file('again.json', JSON.stringify({ tools })));
    expect(table.code).toBe(0);
    expect(table.stdout).not.toContain('{"');
  });

  it('--query selects tools as the gateway does: the cut beside a fixed top K, the rule from the flags (draft-chang §3.4)', { timeout: 60_000 }, async () => {
    const path = join(DATA, 'git.json');
    const tools = toolsFromList(JSON.parse(readFileSync(path, 'utf8')));
    const short = new Map(tools.map((t) => [t.name, countTokens([shortView(t)])]));
    const auto = await parley('tokens', path, '--json', '--query', 'what changed between main and release-2', '--top-k', '4');
    expect(auto.stderr).toBe('');
    expect(auto.code).toBe(0);
    const a = lastJson(auto.stdout).selection as SelectionFigures;
    expect(a.tools.length).toBeGreaterThanOrEqual(1);
    expect(a.tools.length).toBeLessThanOrEqual(4);
    expect(a.top_k).toBe(4);
    expect(a.tokens).toBe(countTokens(a.tools.map((t) => shortView(tools.find((x) => x.name === t.name)!))));
    for (const t of a.tools) expect(t.tokens).toBe(short.get(t.name));
    expect(a.tokens).toBeLessThanOrEqual(a.top_k_tokens);
    expect(auto.stdout).toContain(`returned ${a.tools.length} tools: ${a.tokens} tokens`);
    // What a client receives (adol wireTools, what the gateway's listTools sends; apps/parley/test/tokens-face.test.ts
    // checks the same against the real listTools): the answer with short: true, plus the fetch of the first tool in full.
    const byName = (n: string) => tools.find((x) => x.name === n)!;
    expect(a.client_tokens).toBe(countTokens(wireTools(a.tools.map((t) => byName(t.name)), { short: true }).tools));
    expect(a.client_with_fetch_tokens).toBe(a.client_tokens + countTokens(wireTools([byName(a.tools[0]!.name)]).tools));
    expect(a.client_with_fetch_tokens).toBeGreaterThan(a.client_tokens);
    // min_k forces the count up, a zero drop cuts to it; fixed ignores the rule.
    const forced = lastJson((await parley('tokens', path, '--json', '--query=what changed between main and release-2', '--top-k', '4', '--cut-drop', '0', '--min-k', '3')).stdout).selection as SelectionFigures;
    expect(forced.tools.map((t) => t.name)).toEqual(a.tools.length >= 3 ? a.tools.slice(0, 3).map((t) => t.name) : forced.tools.map((t) => t.name));
    expect(forced.tools).toHaveLength(3);
    expect(forced.auto_cut).toEqual({ drop: 0, minK: 3 });
    const fixed = lastJson((await parley('tokens', path, '--json', '--query', 'what changed between main and release-2', '--top-k', '4', '--cut', 'fixed', '--cut-drop', '0')).stdout).selection as SelectionFigures;
    expect(fixed.tools).toHaveLength(4);
    expect(fixed.tokens).toBe(fixed.top_k_tokens);
  });

  it('--query on a list with $defs: the client figures are also given against what a plain tools/list through the MCP face sends (draft-chang §3.1, §3.4)', { timeout: 60_000 }, async () => {
    const path = join(DATA, 'openapi-petstore.json');
    const r = await parley('tokens', path, '--json', '--query', 'find the pets that are sold');
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const out = lastJson(r.stdout) as { tokens_full: number; tokens_no_refs: number; selection: SelectionFigures };
    const s = out.selection;
    // The face inlines references on a plain tools/list: that, not the list with its $defs, is what a client would otherwise receive.
    const tools = toolsFromList(JSON.parse(readFileSync(path, 'utf8')));
    expect(s.plain_list_tokens).toBe(countTokens(wireTools(tools).tools));
    expect(s.plain_list_tokens).toBe(out.tokens_no_refs);
    expect(out.tokens_no_refs).toBeLessThan(out.tokens_full);
    const vs = (base: number, n: number): number => Math.round(((base - n) / base) * 1000) / 10;
    expect(s.client_saved_vs_plain_pct).toBe(vs(out.tokens_no_refs, s.client_tokens));
    expect(s.client_with_fetch_saved_vs_plain_pct).toBe(vs(out.tokens_no_refs, s.client_with_fetch_tokens));
    expect(s.client_saved_vs_plain_pct).toBeLessThan(s.client_saved_pct);
    expect(r.stdout).toContain(`against a plain tools/list as the MCP face sends it (${out.tokens_no_refs} tokens, references inlined): ${s.client_saved_vs_plain_pct}% fewer`);
  });

  it('--query with hostile text ranks and renders without throwing', { timeout: 60_000 }, async () => {
    const path = join(DATA, 'memory.json');
    // (NUL cannot travel in argv; the hostile-text registry drives selectionFigures with it.)
    for (const q of ['constructor __proto__ toString', `${'(a+)+'.repeat(200)}!`, 'x \ud800 y']) {
      const r = await parley('tokens', path, '--json', '--query', q);
      expect(r.code).toBe(0);
      const sel = lastJson(r.stdout).selection as SelectionFigures;
      expect(sel.tools.length).toBeGreaterThanOrEqual(1);
      if (!q.includes('\ud800')) expect(sel.query).toBe(q);
    }
  });

  const bad: [string, () => string[], RegExp][] = [
    ['a missing file', () => ['tokens', join(tmp, 'nope.json')], /cannot read .*nope\.json: no such file/],
    ['invalid JSON', () => ['tokens', file('broken.json', '{"tools": [')], /broken\.json is not valid JSON/],
    ['an object that is not a tool list', () => ['tokens', file('obj.json', '{"hello":"world"}')], /is not an MCP tool list: not a tools\/list document/],
    ['a tool without inputSchema', () => ['tokens', file('noschema.json', '[{"name":"a","inputSchema":{"type":"object"}},{"name":"b"}]')], /\[1\]\.inputSchema must be a JSON Schema object/],
    ['no FILE', () => ['tokens'], /FILE is missing/],
    ['an unknown option', () => ['tokens', '--bogus', 'x.json'], /unknown option --bogus/],
    ['a cut flag without --query', () => ['tokens', 'x.json', '--min-k', '2'], /apply with --query/],
    ['an empty --query', () => ['tokens', 'x.json', '--query', ' '], /--query needs the request text/],
    ['a --min-k of 0', () => ['tokens', 'x.json', '--query', 'q', '--min-k', '0'], /--min-k needs an integer from 1 to 100/],
    ['a --cut-ratio above 1', () => ['tokens', 'x.json', '--query', 'q', '--cut-ratio', '2'], /--cut-ratio needs a number from 0 to 1/],
    ['a --cut-drop that is not a number', () => ['tokens', 'x.json', '--query', 'q', '--cut-drop', 'wide'], /--cut-drop needs a number/],
    ['an unknown --cut', () => ['tokens', 'x.json', '--query', 'q', '--cut', 'some'], /--cut is auto or fixed/],
    // The next flag is not the request text.
    ['--query followed by --json', () => ['tokens', join(DATA, 'git.json'), '--query', '--json'], /--query needs the request text/],
    ['--query followed by --top-k', () => ['tokens', join(DATA, 'git.json'), '--json', '--query', '--top-k', '3'], /--query needs the request text/],
    // Numbers are written in decimal digits only: no hex, binary, exponent or padding.
    ['a hex --top-k', () => ['tokens', 'x.json', '--query', 'q', '--top-k', '0x3'], /--top-k needs an integer from 1 to 100/],
    ['an exponent --top-k', () => ['tokens', 'x.json', '--query', 'q', '--top-k=1e1'], /--top-k needs an integer from 1 to 100/],
    ['a decimal --min-k', () => ['tokens', 'x.json', '--query', 'q', '--min-k', '2.0'], /--min-k needs an integer from 1 to 100/],
    ['a binary --cut-drop with spaces', () => ['tokens', 'x.json', '--query', 'q', '--cut-drop', ' 0b1 '], /--cut-drop needs a number from 0 to 100/],
    ['an exponent --cut-gap', () => ['tokens', 'x.json', '--query', 'q', '--cut-gap=5e-1'], /--cut-gap needs a number from 0 to 100/],
    ['a signed --cut-ratio', () => ['tokens', 'x.json', '--query', 'q', '--cut-ratio', '+0.5'], /--cut-ratio needs a number from 0 to 1/],
    ['a --min-k above --top-k', () => ['tokens', 'x.json', '--query', 'q', '--top-k', '3', '--min-k', '4'], /--min-k \(4\) must not exceed --top-k \(3\)/],
  ];
  it.each(bad)('%s: a clear message on stderr, exit code 2', { timeout: 60_000 }, async (_name, args, message) => {
    const r = await parley(...args());
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(message);
    expect(r.stderr.startsWith('parley tokens: ')).toBe(true);
    expect(r.stdout).toBe('');
  });

  it('a PARLEY_EMBEDDER it cannot use is a usage error found before anything is printed (exit 2)', { timeout: 60_000 }, async () => {
    const r = await parleyWith({ PARLEY_EMBEDDER: 'bogus' }, 'tokens', join(DATA, 'git.json'), '--json', '--query', 'x');
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^parley tokens: PARLEY_EMBEDDER must be one of/);
    expect(r.stdout).toBe('');
    // Without --query no embedder is needed, so the setting is not read.
    const plain = await parleyWith({ PARLEY_EMBEDDER: 'bogus' }, 'tokens', join(DATA, 'git.json'), '--json');
    expect(plain.code).toBe(0);
    expect(lastJson(plain.stdout).tools).toBe(12);
  });

  it('numbers in decimal digits and --query=TEXT starting with -- are read as written', { timeout: 60_000 }, async () => {
    const path = join(DATA, 'git.json');
    const r = await parley('tokens', path, '--json', '--query=--what changed', '--top-k', '04', '--cut-drop', '.5', '--cut-gap=1.');
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const sel = lastJson(r.stdout).selection as SelectionFigures;
    expect(sel.query).toBe('--what changed');
    expect(sel.top_k).toBe(4);
    expect(sel.auto_cut).toEqual({ drop: 0.5, gap: 1 });
  });

  it('--help prints the usage and exits 0', { timeout: 60_000 }, async () => {
    const r = await parley('tokens', '--help');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('usage: parley tokens FILE');
  });
});
