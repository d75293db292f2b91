/**
 * `parley tokens --query` measures what the MCP face sends (draft-chang §3.1, §3.2, §3.4): its client figures equal
 * the token count of the real gateway `listTools` output for the same tools (the answer with `short: true`, the
 * fetch of the first tool by `_meta.names`, and a plain tools/list), on a list with `$defs` and one without.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { countTokens, toolsFromList, type McpTool } from '@parley/adol';
import { selectionFigures } from '@parley/cli/tokens';
import { createOfflineEmbedder } from '@parley/embeddings';
import { listTools } from '@parley/gateway';
import { describe, expect, it } from 'vitest';

const DATA = fileURLToPath(new URL('../../../bench/data/mcp-tools/', import.meta.url));

/** The gateway's MCP face over a tool list: what its real listTools sends for a tools/list with this `_meta`. */
function faceOf(tools: McpTool[]): (meta: unknown) => Promise<{ name: string }[]> {
  const selectable = tools.map((t) => ({ ...t, tags: [], entry: { tool: t, tags: [] } })) as unknown as Parameters<typeof listTools>[0];
  return async (meta) => (await listTools(selectable, meta)).tools;
}

describe('parley tokens --query against the real listTools output', () => {
  const cases: [string, string][] = [
    ['openapi-petstore.json', 'find the pets that are sold'],
    ['git.json', 'what changed between main and release-2'],
  ];
  it.each(cases)('%s: the answer, the fetch and the plain list are what listTools sends', { timeout: 60_000 }, async (file, query) => {
    const tools = toolsFromList(JSON.parse(readFileSync(`${DATA}${file}`, 'utf8')));
    const face = faceOf(tools);
    const plain = countTokens(await face(undefined));
    const s = await selectionFigures(tools, { full: countTokens(tools), plain }, { query, topK: 5, autoCut: {} }, createOfflineEmbedder());
    expect(s.tools.length).toBeGreaterThanOrEqual(1);
    // A query answer comes in the ranking's order; `names` answers in the catalogue's, so the named tools are put back in it.
    const answer = await face({ names: s.tools.map((t) => t.name), short: true });
    expect(s.client_tokens).toBe(countTokens(s.tools.map((t) => answer.find((x) => x.name === t.name)!)));
    expect(s.client_with_fetch_tokens).toBe(s.client_tokens + countTokens(await face({ names: [s.tools[0]!.name] })));
    expect(s.plain_list_tokens).toBe(plain);
  });
});
