/**
 * Golden checks on the MCP tools/list data sets vendored in bench/data/mcp-tools
 * (SOURCES.md there says where each came from; BASELINES.md has the naive figures
 * of the real ones). The expected figures are read from BASELINES.md, never written here.
 */
import { describe, expect, it } from 'vitest';
import type { JsonObject } from '@parley/protocol';
import { countTokens, dedupTools, measureTools, shortView, toolsFromList, type McpTool, type ToolsMeasure } from '../src/index';
import { baselines, compile, dataFiles, loadTools, mutate, prng, sample } from './helpers';

const all = dataFiles(); // throws with the expected path when the data sets are missing
const base = baselines();
/** The real servers' lists (BASELINES.md measures them); the generated OpenAPI list is checked on its own below. */
/** Lists transcribed from the reference servers' source for the selection dev and validation sets (SOURCES.md): no baseline, round trips only. */
const TRANSCRIBED = ['gitlab.json', 'time.json', 'puppeteer.json'];
const files = all.filter((f) => f !== 'openapi-petstore.json' && !TRANSCRIBED.includes(f));
const measures = new Map<string, ToolsMeasure>();
function measured(file: string): ToolsMeasure {
  let m = measures.get(file);
  if (!m) measures.set(file, (m = measureTools(toolsFromList(loadTools(file)))));
  return m;
}

describe('the data sets', () => {
  it('are all there, with a baseline each', () => {
    expect(files).toEqual(expect.arrayContaining(['github.json', 'github-all-toolsnaps.json', 'filesystem.json', 'memory.json', 'everything.json', 'git.json']));
    for (const f of files) expect(base.has(f.replace(/\.json$/, '')), f).toBe(true);
  });
});

describe.each(files)('%s', (file) => {
  const name = file.replace(/\.json$/, '');

  it('the token meter agrees with BASELINES.md (o200k_base, compact JSON)', () => {
    const tools = loadTools(file);
    expect(tools).toHaveLength(base.get(name)!.tools);
    expect(countTokens(tools)).toBe(base.get(name)!.total);
  });

  it('every round trip holds: dedup → deref (3 modes), short → full, and both', () => {
    const m = measured(file);
    expect({ dedup: m.roundtrip_dedup, short: m.roundtrip_short, both: m.roundtrip_both, ok: m.roundtrip_ok }).toEqual({ dedup: true, short: true, both: true, ok: true });
  });

  it('no mechanism costs tokens, the short view saves more than the baseline’s, and the list layout beats the naive $defs', () => {
    const m = measured(file);
    const b = base.get(name)!;
    for (const k of ['tokens_dedup', 'tokens_dedup_shared', 'tokens_dedup_list', 'tokens_short', 'tokens_both', 'tokens_both_shared', 'tokens_both_list'] as const) {
      expect(m[k], k).toBeLessThanOrEqual(m.tokens_full);
    }
    expect(m.tokens_both).toBeLessThanOrEqual(m.tokens_short);
    // The baseline's short view keeps icons/_meta/execution; ours moves them too.
    expect(m.tokens_full - m.tokens_short).toBeGreaterThanOrEqual(b.shortSaved);
    // Same layout as the baseline's `$defs saved` column (one $defs for the list), chosen by measured saving.
    expect(m.tokens_full - m.tokens_dedup_list).toBeGreaterThanOrEqual(Math.max(0, b.defsSaved));
  });
});

describe.each(TRANSCRIBED)('%s (transcribed)', (file) => {
  it('is there, and every round trip holds', () => {
    expect(all).toContain(file);
    const m = measured(file);
    expect({ dedup: m.roundtrip_dedup, short: m.roundtrip_short, both: m.roundtrip_both, ok: m.roundtrip_ok }).toEqual({ dedup: true, short: true, both: true, ok: true });
    expect(m.tokens_short).toBeLessThanOrEqual(m.tokens_full);
  });
});

describe('openapi-petstore.json: an OpenAPI-generated server (every tool carries every component schema)', () => {
  it('short view + MCP-conformant dedup saves at least 60%, losslessly, and no mode costs tokens', () => {
    expect(all).toContain('openapi-petstore.json');
    const m = measured('openapi-petstore.json');
    expect(m.roundtrip_ok).toBe(true);
    expect((m.tokens_full - m.tokens_both) / m.tokens_full).toBeGreaterThanOrEqual(0.6);
    for (const k of ['tokens_dedup_shared', 'tokens_dedup_list', 'tokens_both_shared', 'tokens_both_list'] as const) expect(m[k], k).toBeLessThan(m.tokens_full);
  });

  it('the MCP-conformant form validates arguments exactly like the list as generated', () => {
    const tools = loadTools('openapi-petstore.json');
    const r = dedupTools(tools, { mode: 'local' });
    const rnd = prng(7);
    let valid = 0;
    let invalid = 0;
    tools.forEach((t, i) => {
      const original = compile(t.inputSchema as JsonObject);
      const compact = compile((r.tools[i] as McpTool).inputSchema as JsonObject);
      for (let n = 0; n < 8; n++) {
        const x = sample(t.inputSchema as JsonObject, rnd);
        for (const y of [x, mutate(x, rnd), mutate(x, rnd)]) {
          const ok = original(y);
          expect(compact(y)).toBe(ok);
          if (ok) valid++;
          else invalid++;
        }
      }
    });
    expect(valid).toBeGreaterThan(10);
    expect(invalid).toBeGreaterThan(10);
  });
});

describe('github.json: the target', () => {
  it('lossless dedup + short view saves at least 40% of the tool-definition tokens', () => {
    const m = measured('github.json');
    const saved = (m.tokens_full - m.tokens_both) / m.tokens_full;
    expect(m.roundtrip_both).toBe(true);
    expect(saved).toBeGreaterThanOrEqual(0.4);
  });
});

describe('compacted real schemas validate exactly like the originals', () => {
  it.each(['github.json', 'memory.json', 'git.json'])('%s: short view and list-layout dedup, on sampled and mutated arguments', (file) => {
    const tools = loadTools(file);
    const shorts = tools.map((t) => shortView(t));
    const list = dedupTools(shorts, { mode: 'list' });
    let valid = 0;
    let invalid = 0;
    const rnd = prng(2026);
    tools.forEach((t, i) => {
      const original = compile(t.inputSchema as JsonObject);
      const short = compile(shorts[i]!.inputSchema as JsonObject);
      const compact = compile((list.tools[i] as McpTool).inputSchema as JsonObject, [], list.listDefs);
      for (let n = 0; n < 8; n++) {
        const x = sample(t.inputSchema as JsonObject, rnd);
        for (const y of [x, mutate(x, rnd), mutate(x, rnd)]) {
          const ok = original(y);
          expect(short(y)).toBe(ok);
          expect(compact(y)).toBe(ok);
          if (ok) valid++;
          else invalid++;
        }
      }
    });
    expect(valid).toBeGreaterThan(10);
    expect(invalid).toBeGreaterThan(10);
  });
});
