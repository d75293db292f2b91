/**
 * The opt-in `params` ranker (draft-chang §3.4): the words of a tool's input-schema fields read as senses, the
 * tool's object, against the request's words no tool name uses. A small fake lexicon and embedder, so the
 * expectations follow from the mechanism alone; hostile field names and requests neither throw nor touch
 * Object.prototype.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { SelectLexicon } from '../src/concepts';
import { DEFAULT_RANKERS, selectTools, type TextEmbedder, type ToolLike } from '../src/select';

class Bag implements TextEmbedder {
  readonly id = 'bag-16-params';
  async embed(texts: string[]): Promise<Float32Array[]> {
    return texts.map((t) => {
      const v = new Float32Array(16);
      for (const w of t.toLowerCase().split(/[^a-z]+/)) if (w) v[[...w].reduce((h, c) => (h * 31 + c.charCodeAt(0)) % 16, 7)]! += 1;
      return v;
    });
  }
}

/** Senses as a Map (outside strings are its keys): "note" and "message" share one, "history" and "count" none with the rest. */
const SENSES = new Map<string, string[]>([
  ['note', ['s:message']],
  ['message', ['s:message']],
  ['path', ['s:path']],
  ['repo', ['s:repo']],
  ['files', ['s:file']],
  ['file', ['s:file']],
]);
const lexicon: SelectLexicon = { id: 'fake-senses', concepts: (w) => SENSES.get(w) ?? [] };

const obj = (...names: string[]): object => ({ type: 'object', properties: Object.fromEntries(names.map((n) => [n, { type: 'string' }])) });
const TOOLS: ToolLike[] = [
  { name: 'vcs_commit', description: 'Records changes', inputSchema: obj('repo_path', 'message') },
  { name: 'vcs_add', description: 'Adds contents', inputSchema: obj('repo_path', 'files') },
  { name: 'vcs_log', description: 'Shows logs', inputSchema: obj('repo_path', 'max_count') },
];
const opts = { embedder: new Bag(), lexicon, cut: 'fixed' as const, topK: 3 };

describe('the params ranker', () => {
  it('is not a default ranker', () => {
    expect(DEFAULT_RANKERS).not.toContain('params');
  });

  it('lifts the tool whose parameter the request names by sense, and only that one', async () => {
    const alone = await selectTools(TOOLS, 'seal it with the note wip', { ...opts, mode: 'semantic', rankers: ['params'] });
    expect(alone[0]!.tool.name).toBe('vcs_commit');
    expect(alone[1]!.score).toBeLessThan(alone[0]!.score);
    expect(alone[1]!.score).toBe(alone[2]!.score);
  });

  it('a request with no sense of any field ranks as without the ranker', async () => {
    const base = await selectTools(TOOLS, 'zebra giraffe please', { ...opts, rankers: ['bm25', 'dense'] });
    const withParams = await selectTools(TOOLS, 'zebra giraffe please', { ...opts, rankers: ['bm25', 'dense', 'params'] });
    expect(withParams.map((s) => [s.tool.name, s.score])).toEqual(base.map((s) => [s.tool.name, s.score]));
  });

  it('a sense every tool\'s fields have counts nothing: it does not favour the shortest schema', async () => {
    // "route" shares the sense of `path`, a word of repo_path, which every tool has.
    const routes: SelectLexicon = { id: 'fake-senses-route', concepts: (w) => (w === 'route' ? ['s:path'] : (SENSES.get(w) ?? [])) };
    const o = { embedder: new Bag(), lexicon: routes, cut: 'fixed' as const, topK: 3 };
    const base = await selectTools(TOOLS, 'which route', { ...o, rankers: ['dense'] });
    const withParams = await selectTools(TOOLS, 'which route', { ...o, rankers: ['dense', 'params'] });
    expect(withParams.map((s) => [s.tool.name, s.score])).toEqual(base.map((s) => [s.tool.name, s.score]));
    // A sense only some tools have still counts: "note" meets vcs_commit's `message` alone.
    const note = await selectTools(TOOLS, 'which route note', { ...o, mode: 'semantic', rankers: ['params'] });
    expect(note[0]!.tool.name).toBe('vcs_commit');
    expect(note[1]!.score).toBeLessThan(note[0]!.score);
  });

  it('hostile field names and requests: no throw, Object.prototype untouched', async () => {
    const before = Object.getOwnPropertyNames(Object.prototype).sort();
    const text = fc.oneof(fc.string({ unit: 'binary', maxLength: 40 }), fc.constantFrom('constructor', '__proto__', 'toString', '\u0000', '\ud800', 'a'.repeat(1 << 20), '(a+)+'.repeat(500)));
    await fc.assert(
      fc.asyncProperty(text, text, async (field, query) => {
        const tools = [...TOOLS, { name: 'odd', description: field.slice(0, 4096), inputSchema: { type: 'object', properties: { [field]: { type: 'string', description: field } } } }];
        const r = await selectTools(tools, `note ${query}`, { ...opts, rankers: ['bm25', 'dense', 'params'] });
        expect(r).toHaveLength(3);
        for (const s of r) expect(Number.isFinite(s.score)).toBe(true);
      }),
      { numRuns: 40 },
    );
    expect(Object.getOwnPropertyNames(Object.prototype).sort()).toEqual(before);
  });
});
