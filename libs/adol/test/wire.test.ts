import { describe, expect, it } from 'vitest';
import { countTokens, savedPct, wireTools, type McpTool } from '../src/index';

describe('savedPct: one rounding for every token figure', () => {
  it('is computed on the unrounded mean, not on a mean first rounded to whole tokens', () => {
    // time / para: 2 tools, 231 tokens; a mean of 205.5 tokens rounds to 206 (10.8%) but is 11.0% fewer.
    expect(savedPct(231, 411, 2)).toBe(11);
    expect(savedPct(231, Math.round(411 / 2))).toBe(10.8);
    // Costs more than the list: negative, same rule.
    expect(savedPct(100, 301, 2)).toBe(-50.5);
  });

  it('a single request is the plain ratio; an empty baseline or no request is 0, never NaN', () => {
    expect(savedPct(1902, 373)).toBe(80.4);
    expect(savedPct(0, 10)).toBe(0);
    expect(savedPct(100, 10, 0)).toBe(0);
  });
});

describe('wireTools: what the MCP face sends', () => {
  const shared = { type: 'object', properties: { street: { type: 'string' }, city: { type: 'string' } }, required: ['city'] };
  const tools: McpTool[] = ['ship', 'bill'].map((name) => ({
    name,
    title: `${name} title`,
    description: `${name} an order`,
    inputSchema: { type: 'object', properties: { to: { $ref: '#/$defs/address' }, note: { type: 'string', description: 'free text' } }, required: ['to'], $defs: { address: shared, unused: { type: 'number' } } },
  }));

  it('by default every reference is inlined and unused definitions are gone; the input is left as it was', () => {
    const before = JSON.stringify(tools);
    const r = wireTools(tools);
    expect(JSON.stringify(r.tools)).not.toContain('$ref');
    expect(JSON.stringify(r.tools)).not.toContain('unused');
    expect(r.tools[0]!.inputSchema.properties).toMatchObject({ to: shared });
    expect(r.shared).toEqual([]);
    expect(JSON.stringify(tools)).toBe(before);
  });

  it('short: the short view in its wire form (no title, no optional property descriptions), then the references', () => {
    const r = wireTools(tools, { short: true });
    expect(r.tools.map((t) => t.title)).toEqual([undefined, undefined]);
    expect(JSON.stringify(r.tools)).not.toContain('free text');
    expect(JSON.stringify(r.tools)).not.toContain('$ref');
    // Wire form: exactly what JSON carries, nothing out of band.
    expect(r.tools).toEqual(JSON.parse(JSON.stringify(r.tools)));
    expect(countTokens(r.tools)).toBeLessThan(countTokens(wireTools(tools).tools));
  });

  it('refs "shared": the common definition becomes a document the answer references', () => {
    const r = wireTools(tools, { refs: 'shared' });
    expect(r.shared.length).toBeGreaterThan(0);
    for (const doc of r.shared) expect(JSON.stringify(r.tools)).toContain(doc.url);
    const local = wireTools(tools, { refs: 'local' });
    expect(local.shared).toEqual([]);
    expect(JSON.stringify(local.tools)).toContain('#/$defs/');
  });
});
