/**
 * The MCP face's selection that learns from use (draft-chang §3.4): tools/list with a query reads the caller's
 * learned examples and notes the query for the caller's next call; tools/call carries the request it serves in
 * `_meta["dev.parley/request"]` (adol-params parseCallToolMeta).
 */
import { UsageStore, type ToolLike } from '@parley/adol';
import { describe, expect, it } from 'vitest';
import { REQUEST_META_KEY, parseCallToolMeta } from '../src/adol-params';
import type { SelectableEntry } from '../src/catalog';
import { MCP_USAGE_LIST, listTools } from '../src/mcp';

const tool = (name: string, description: string): SelectableEntry =>
  ({ name, description, inputSchema: { type: 'object' }, entry: { tool: { name, description, inputSchema: { type: 'object' } } } }) as unknown as SelectableEntry & ToolLike;
const LIST: SelectableEntry[] = [tool('files__read', 'Read a file'), tool('files__write', 'Write a file'), tool('repo__branch', 'Create a branch')];

describe('MCP face: selection learns from use (chang §3.4)', () => {
  it('tools/call _meta["dev.parley/request"] is read as the request the call serves; malformed ones are invalid_params', () => {
    expect(parseCallToolMeta({ [REQUEST_META_KEY]: 'open an MR' }).request).toBe('open an MR');
    expect(parseCallToolMeta({}).request).toBeUndefined();
    expect(() => parseCallToolMeta({ [REQUEST_META_KEY]: 3 })).toThrow(expect.objectContaining({ type: 'invalid_params', rule: 'type' }));
    expect(() => parseCallToolMeta({ [REQUEST_META_KEY]: ' ' })).toThrow(expect.objectContaining({ rule: 'non_empty' }));
    expect(() => parseCallToolMeta({ [REQUEST_META_KEY]: 'x'.repeat(2000) })).toThrow(expect.objectContaining({ rule: 'max_length' }));
  });

  it('a tools/list with a query notes it for the caller: its next call within the window learns it, once', async () => {
    let now = 0;
    const usage = new UsageStore({ now: () => now });
    await listTools(LIST, { query: 'open an MR' }, undefined, undefined, { usage, client: 'alice' });
    now = 10;
    expect(usage.attributeCall(MCP_USAGE_LIST, 'bob', 'repo__branch')).toBe(false);
    expect(usage.attributeCall(MCP_USAGE_LIST, 'alice', 'repo__branch')).toBe(true);
    expect(usage.examples(MCP_USAGE_LIST, 'alice').get('repo__branch')).toEqual(['open an MR']);
    // A listing without a query (or by names) notes nothing.
    await listTools(LIST, {}, undefined, undefined, { usage, client: 'alice' });
    expect(usage.attributeCall(MCP_USAGE_LIST, 'alice', 'files__read')).toBe(false);
  });

  it('learned examples of a name the catalogue does not hold change nothing', async () => {
    const usage = new UsageStore({ now: () => 0 });
    usage.record(MCP_USAGE_LIST, 'nobody__tool', 'read the notes', 'alice');
    const plain = await listTools(LIST, { query: 'read the notes' });
    const learned = await listTools(LIST, { query: 'read the notes' }, undefined, undefined, { usage, client: 'alice' });
    expect(learned.tools.map((t) => t.name)).toEqual(plain.tools.map((t) => t.name));
  });
});
