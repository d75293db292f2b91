/**
 * The token meter over a tool list: tokens before and after each ADOL mechanism
 * (chang §3.1 dedup, §3.2 short view) and both, with the round trips that make
 * them lossless checked on the spot.
 */
import { deepEqual } from './json';
import { dedupTools, derefTools, type DedupMode, type DedupToolsResult } from './dedup';
import { fullView, optionalSectionOf, shortView } from './optional';
import { countTokens } from './tokens';
import type { McpTool } from './tool';

export interface MeasureOptions {
  /** Prefix of the shared documents' addresses (`shared` mode); its length is part of every reference's cost. Default none: relative `/s/<hash>`, as Parley's gateway lists them. */
  baseUrl?: string;
}

export const DEFAULT_SCHEMA_BASE_URL = '';

export interface ToolsMeasure {
  tools: number;
  tokens_full: number;
  /** ADOL A, MCP-conformant `local` mode (each schema self-contained). */
  tokens_dedup: number;
  /** ADOL A, `shared` mode: the list plus the shared documents, each once. */
  tokens_dedup_shared: number;
  /** ADOL A, `list` layout (`{"$defs":…,"tools":…}`), the baseline's layout. */
  tokens_dedup_list: number;
  /** ADOL B, the short view. */
  tokens_short: number;
  /** Short view, then `local` dedup. */
  tokens_both: number;
  tokens_both_shared: number;
  tokens_both_list: number;
  /** Percent saved against `tokens_full`, one decimal. */
  saved_pct: Record<'dedup' | 'dedup_shared' | 'dedup_list' | 'short' | 'both' | 'both_shared' | 'both_list', number>;
  /** Definitions emitted, per mode, after the short view. */
  defs: { local: number; shared: number; list: number };
  /** dedup → deref gives back the input, in every mode. */
  roundtrip_dedup: boolean;
  /** short → full gives back the input. */
  roundtrip_short: boolean;
  /** short → dedup → deref → full gives back the input, in every mode. */
  roundtrip_both: boolean;
  roundtrip_ok: boolean;
}

function pct(before: number, after: number): number {
  return before === 0 ? 0 : Math.round(((before - after) / before) * 1000) / 10;
}

function wire<T extends McpTool>(r: DedupToolsResult<T>, mode: DedupMode): unknown {
  if (mode === 'list' && Object.keys(r.listDefs).length > 0) return { $defs: r.listDefs, tools: r.tools };
  if (mode === 'shared' && r.shared.length > 0) return { tools: r.tools, schemas: r.shared };
  return r.tools;
}

export function measureTools(tools: readonly McpTool[], opts: MeasureOptions = {}): ToolsMeasure {
  const baseUrl = opts.baseUrl ?? DEFAULT_SCHEMA_BASE_URL;
  const modes: DedupMode[] = ['local', 'shared', 'list'];
  const full = countTokens(tools);

  const dedup = modes.map((mode) => dedupTools(tools, { mode, baseUrl }));
  const roundtripDedup = dedup.every((r) => deepEqual(derefTools(r), tools));

  const shorts = tools.map((t) => shortView(t));
  const sections = shorts.map((s) => optionalSectionOf(s));
  const roundtripShort = deepEqual(
    shorts.map((s) => fullView(s)),
    tools,
  );

  const both = modes.map((mode) => dedupTools(shorts, { mode, baseUrl }));
  const roundtripBoth = both.every((r) =>
    deepEqual(
      derefTools(r).map((t, i) => fullView({ ...t, optional: sections[i]! })),
      tools,
    ),
  );

  const [dl, ds, dli] = dedup.map((r, i) => countTokens(wire(r, modes[i]!))) as [number, number, number];
  const short = countTokens(shorts);
  const [bl, bs, bli] = both.map((r, i) => countTokens(wire(r, modes[i]!))) as [number, number, number];
  return {
    tools: tools.length,
    tokens_full: full,
    tokens_dedup: dl,
    tokens_dedup_shared: ds,
    tokens_dedup_list: dli,
    tokens_short: short,
    tokens_both: bl,
    tokens_both_shared: bs,
    tokens_both_list: bli,
    saved_pct: {
      dedup: pct(full, dl),
      dedup_shared: pct(full, ds),
      dedup_list: pct(full, dli),
      short: pct(full, short),
      both: pct(full, bl),
      both_shared: pct(full, bs),
      both_list: pct(full, bli),
    },
    defs: { local: both[0]!.stats.defs_local, shared: both[1]!.stats.defs_shared, list: both[2]!.stats.defs_list },
    roundtrip_dedup: roundtripDedup,
    roundtrip_short: roundtripShort,
    roundtrip_both: roundtripBoth,
    roundtrip_ok: roundtripDedup && roundtripShort && roundtripBoth,
  };
}
