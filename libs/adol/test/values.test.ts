/**
 * Values in a request as evidence for a tool's parameters (draft-chang §3.4):
 * the shapes read from requests and from input schemas, the `values` ranker's
 * scores, and its effect through `selectTools`; word senses (`wordNetLexicon`
 * over a small fake WordNet, then the real one) and the `concepts` ranker;
 * hostile tool names, descriptions and parameters through selection (property).
 * The requests and tools here are written for these tests, not taken from the
 * bench sets.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ParleyError } from '@parley/protocol';
import { wordNetLexicon, type LexPos, type WordNetLike } from '../src/concepts';
import { selectTools, type SelectOptions, type TextEmbedder, type ToolLike } from '../src/select';
import { isQuestion, parameterShapes, readsOnly, requestValues, valueScores, type ValueShape } from '../src/values';

const shapes = (text: string): ValueShape[] => [...requestValues(text).shapes].sort();

describe('requestValues: the shapes of the values a request holds', () => {
  it('reads URLs, e-mail addresses, times, versions, commit ids, numbers', () => {
    expect(shapes('Go to https://news.ycombinator.com/item?id=1 now')).toEqual(['url']);
    expect(shapes('visit www.wikipedia.org')).toEqual(['url']);
    expect(shapes('mail it to ops@example.org')).toEqual(['email']);
    expect(shapes('wake me at 06:45')).toEqual(['time']);
    expect(shapes('remind me at 7pm')).toEqual(['time']);
    expect(shapes('what broke between v2.0.1 and v2.1?')).toEqual(['question', 'ref']);
    expect(shapes('revert 9fceb02 please')).toEqual(['ref']);
    expect(shapes('give me 12 of them')).toEqual(['number']);
  });

  it('reads paths and file names (a known extension, or a path start), several of them as `paths`', () => {
    expect(shapes('resize holiday.png')).toEqual(['path']);
    expect(shapes('look in /etc/nginx')).toEqual(['path']);
    expect(shapes('open ~/notes')).toEqual(['path']);
    expect(shapes('diff lib/a.py and lib/b.py')).toEqual(['path', 'paths']);
    // A domain or a sentence's full stop is not a file.
    expect(shapes('is example.com down?')).toEqual(['question']);
    expect(shapes('Done. Next')).toEqual([]);
  });

  it("gives a file's kind as a word", () => {
    expect(requestValues('crop holiday.JPG and song.mp3').words).toEqual(['image', 'audio']);
    expect(requestValues('summarise report.pdf').words).toEqual(['document']);
    expect(requestValues('nothing here').words).toEqual([]);
  });

  it('reads key names: unambiguous ones anywhere, everyday words only capitalised inside a sentence', () => {
    expect(shapes('press Escape twice')).toEqual(['key']);
    expect(shapes('then Ctrl+S')).toEqual(['key']);
    expect(shapes('tap backspace')).toEqual(['key']);
    expect(shapes('hit F5')).toEqual(['key']);
    expect(shapes('enter the code')).toEqual([]);
    expect(shapes('then hit enter')).toEqual(['key']);
    expect(shapes('press tab twice')).toEqual(['key']);
    expect(shapes('Home is where the heart is')).toEqual([]);
  });

  it('reads a quoted phrase, not an apostrophe', () => {
    expect(shapes("label it 'needs review' today")).toEqual(['quoted']);
    expect(shapes('title "Q3 plan"')).toEqual(['quoted']);
    expect(shapes("it's what's left")).toEqual([]);
  });

  it('answers anything that is not a string with no shapes', () => {
    expect(requestValues(42 as unknown as string)).toEqual({ shapes: new Set(), words: [] });
  });
});

describe('questions and tools that only read', () => {
  it('tells a question from a request for an action', () => {
    for (const q of ['where did the backups go?', 'Which printers are offline', 'is the cache warm?', 'anything new from Dana?', '¿dónde está el informe?', 'how many seats are left']) expect(isQuestion(q), q).toBe(true);
    for (const q of ['rotate the logs', 'Can you archive the old invoices?', 'could you restart it?', 'please tell me the weather?', 'Have the bot post the minutes', 'do a backup tonight', '']) expect(isQuestion(q), q).toBe(false);
    expect(shapes('who owns this bucket?')).toEqual(['question']);
  });

  it("reads a tool's readOnlyHint, else its name's first verb", () => {
    expect(readsOnly({ name: 'wipe_disk', annotations: { readOnlyHint: true } })).toBe(true);
    expect(readsOnly({ name: 'get_weather', annotations: { readOnlyHint: false } })).toBe(false);
    expect(readsOnly({ name: 'listInvoices' })).toBe(true);
    expect(readsOnly({ name: 'send_invoice' })).toBe(false);
    expect(readsOnly({ name: 42 })).toBe(false);
  });
});

describe('parameterShapes: the shapes an input schema takes', () => {
  it('reads format, type and the words of names and descriptions, nested ones too', () => {
    const s = parameterShapes({
      type: 'object',
      properties: {
        target: { type: 'string', format: 'uri' },
        attachments: { type: 'array', items: { type: 'string' }, description: 'File paths to attach' },
        sendAt: { type: 'string', format: 'date-time' },
        options: { type: 'object', properties: { retries: { type: 'integer' }, replyTo: { type: 'string', format: 'email' } } },
        subject: { type: 'string' },
        body: { type: 'string' },
      },
    });
    expect([...s].sort()).toEqual(['email', 'number', 'path', 'paths', 'quoted', 'time', 'url']);
  });

  it('reads key and ref parameters by name', () => {
    expect([...parameterShapes({ properties: { key: { type: 'string' } } })]).toEqual(['key']);
    expect([...parameterShapes({ properties: { revision: { type: 'string' } } })]).toEqual(['ref']);
  });

  it("reads a file tool's source and destination as paths, another tool's not", () => {
    const schema = { properties: { source: { type: 'string' }, destination: { type: 'string' } } };
    expect([...parameterShapes(schema, 'copy_file')]).toEqual(['path']);
    expect([...parameterShapes(schema, 'transfer_funds')]).toEqual([]);
  });

  it('takes nothing from what is not a schema', () => {
    for (const x of [undefined, null, 'x', 3, [], { properties: [] }]) expect(parameterShapes(x).size).toBe(0);
  });
});

describe('valueScores: IDF of the shapes a tool takes', () => {
  it('scores tools that take a rare shape, and ignores a shape every tool (or none) takes', () => {
    const tools = [new Set<ValueShape>(['url', 'path']), new Set<ValueShape>(['path']), new Set<ValueShape>(['path'])];
    const s = valueScores(tools, new Set<ValueShape>(['url', 'path', 'email']));
    expect(s[0]).toBeGreaterThan(0);
    expect(s.slice(1)).toEqual([0, 0]);
    expect(valueScores(tools, new Set<ValueShape>(['path']))).toEqual([0, 0, 0]);
  });
});

// A bag-of-words embedder that knows no synonym: the values and concepts rankers must do the work.
class Bag implements TextEmbedder {
  readonly id = 'bag-16';
  async embed(texts: string[]): Promise<Float32Array[]> {
    return texts.map((t) => {
      const v = new Float32Array(16);
      for (const w of t.toLowerCase().split(/[^a-z]+/)) {
        if (!w) continue;
        const i = [...w].reduce((h, c) => (h * 31 + c.charCodeAt(0)) % 16, 7);
        v[i] = (v[i] ?? 0) + 1;
      }
      return v;
    });
  }
}

const BROWSER: ToolLike[] = [
  { name: 'go_to_page', description: 'Loads a page in the browser', inputSchema: { type: 'object', properties: { url: { type: 'string', format: 'uri' } }, required: ['url'] } },
  { name: 'send_keystroke', description: 'Sends a keyboard keystroke to the page', inputSchema: { type: 'object', properties: { key: { type: 'string', description: 'Name of the key' } } } },
  { name: 'capture', description: 'Saves a picture of the page', inputSchema: { type: 'object', properties: { name: { type: 'string' }, width: { type: 'number' } } } },
  { name: 'type_text', description: 'Types characters into a field', inputSchema: { type: 'object', properties: { selector: { type: 'string' }, text: { type: 'string' } } } },
  { name: 'evaluate', description: 'Runs script in the page', inputSchema: { type: 'object', properties: { script: { type: 'string' } } } },
];

describe('selectTools with the values ranker (on by default)', () => {
  const embedder = new Bag();
  it('ranks the tool taking a URL first for a request that holds one and no word of the tool', async () => {
    const r = await selectTools(BROWSER, 'Open https://example.org/docs', { embedder, topK: 5, cut: 'fixed' });
    expect(r[0]!.tool.name).toBe('go_to_page');
    const without = await selectTools(BROWSER, 'Open https://example.org/docs', { embedder, topK: 5, cut: 'fixed', rankers: ['bm25', 'dense'] });
    expect(without.findIndex((s) => s.tool.name === 'go_to_page')).toBeGreaterThan(0);
  });

  it('ranks the tool taking a key first for "Hit Escape"', async () => {
    const r = await selectTools(BROWSER, 'Hit Escape', { embedder, topK: 5, cut: 'fixed' });
    expect(r[0]!.tool.name).toBe('send_keystroke');
  });

  it('ranks the tool that only reads first for a question', async () => {
    const tools: ToolLike[] = [
      { name: 'rotate_keys', description: 'Issue fresh credentials', annotations: { readOnlyHint: false } },
      { name: 'key_report', description: 'Credentials and their age', annotations: { readOnlyHint: true } },
      { name: 'revoke_keys', description: 'Withdraw credentials', annotations: { readOnlyHint: false } },
    ];
    const r = await selectTools(tools, 'how old are my credentials?', { embedder, topK: 3, cut: 'fixed', rankers: ['values'] });
    expect(r[0]!.tool.name).toBe('key_report');
    const lead = async (o: SelectOptions): Promise<number> => {
      const x = await selectTools(tools, 'how old are my credentials?', { embedder, topK: 3, cut: 'fixed', ...o });
      const score = (n: string): number => x.find((y) => y.tool.name === n)!.score;
      return score('key_report') - Math.max(score('rotate_keys'), score('revoke_keys'));
    };
    expect(await lead({})).toBeGreaterThan(await lead({ rankers: ['bm25', 'dense'] }));
  });

  it('changes nothing for a request without values', async () => {
    const a = await selectTools(BROWSER, 'make the page bigger', { embedder, topK: 5, cut: 'fixed' });
    const b = await selectTools(BROWSER, 'make the page bigger', { embedder, topK: 5, cut: 'fixed', rankers: ['bm25', 'dense', 'examples'] });
    expect(a.map((s) => [s.tool.name, s.score])).toEqual(b.map((s) => [s.tool.name, s.score]));
  });
});

// ---------------------------------------------------------------------------
// Word senses.
// ---------------------------------------------------------------------------

/** A three-synset WordNet: {tick, check, mark}, {remove, erase}, its derivation {removal}. */
function fakeWordNet(): WordNetLike & { lookups: number } {
  const lemmas = new Map<string, { pos: LexPos; offsets: number[] }[]>([
    ['tick', [{ pos: 'v', offsets: [100] }]],
    ['check', [{ pos: 'v', offsets: [100] }]],
    ['mark', [{ pos: 'v', offsets: [100] }]],
    ['remove', [{ pos: 'v', offsets: [200] }]],
    ['erase', [{ pos: 'v', offsets: [200] }]],
    ['removal', [{ pos: 'n', offsets: [300] }]],
  ]);
  const wn = {
    lookups: 0,
    baseForms: (w: string, pos: LexPos) => ((lemmas.get(w) ?? []).some((e) => e.pos === pos) ? [w] : w.endsWith('s') && (lemmas.get(w.slice(0, -1)) ?? []).some((e) => e.pos === pos) ? [w.slice(0, -1)] : []),
    lookup: (l: string, pos: LexPos) => {
      wn.lookups++;
      const e = (lemmas.get(l) ?? []).find((x) => x.pos === pos);
      return e ? { offsets: e.offsets } : undefined;
    },
    synset: (pos: LexPos, offset: number) => (offset === 200 ? { pointers: [{ symbol: '+', offset: 300, pos: 'n' as LexPos }] } : offset === 100 ? { pointers: [{ symbol: '@', offset: 900, pos: 'v' as LexPos }] } : { pointers: [] }),
  };
  return wn;
}

describe('wordNetLexicon', () => {
  it('gives the synsets of a word and their derivations; hypernyms only when asked', () => {
    const lex = wordNetLexicon(fakeWordNet());
    expect(lex.concepts('tick')).toEqual(['v100']);
    expect(lex.concepts('marks')).toEqual(['v100']);
    expect(lex.concepts('erase')).toEqual(['v200', 'n300']);
    expect(lex.concepts('zebra')).toEqual([]);
    expect(wordNetLexicon(fakeWordNet(), { hypernyms: true }).concepts('tick')).toEqual(['v100', 'v900']);
  });

  it('memoises, and refuses what cannot be a WordNet word without asking it', () => {
    const wn = fakeWordNet();
    const lex = wordNetLexicon(wn);
    lex.concepts('check');
    const n = wn.lookups;
    lex.concepts('check');
    expect(wn.lookups).toBe(n);
    for (const w of ['__proto__', 'Constructor', '\u0000', '\ud800', 'x'.repeat(1 << 20)]) expect(lex.concepts(w)).toEqual([]);
    expect(lex.concepts('constructor')).toEqual([]);
  });
});

describe('selectTools with a lexicon (the concepts ranker)', () => {
  const tools: ToolLike[] = [
    { name: 'check_item', description: 'Check a to-do item as done' },
    { name: 'erase_item', description: 'Erase a to-do item' },
    { name: 'rename_item', description: 'Give a to-do item another title' },
  ];
  const embedder = new Bag();
  it('meets a request word the list does not use through a shared sense', async () => {
    const lexicon = wordNetLexicon(fakeWordNet());
    const alone: SelectOptions = { embedder, lexicon, topK: 3, cut: 'fixed', rankers: ['concepts'] };
    expect((await selectTools(tools, 'tick the first one', alone))[0]!.tool.name).toBe('check_item');
    expect((await selectTools(tools, 'removal of the first one', alone))[0]!.tool.name).toBe('erase_item');
    // Fused with the others, it lifts the tool the sense points at against the rest.
    const lead = async (o: object): Promise<number> => {
      const r = await selectTools(tools, 'tick the first one', { embedder, topK: 3, cut: 'fixed', ...o });
      const score = (n: string): number => r.find((x) => x.tool.name === n)!.score;
      return score('check_item') - Math.max(score('erase_item'), score('rename_item'));
    };
    expect(await lead({ lexicon })).toBeGreaterThan(await lead({}));
  });

  it('refuses a malformed lexicon with a typed error', async () => {
    await expect(selectTools(tools, 'x', { embedder, lexicon: { id: 'x' } as never })).rejects.toMatchObject({ type: 'invalid_params', path: 'opts.lexicon' });
  });
});

// ---------------------------------------------------------------------------
// Hostile text through selection (property).
// ---------------------------------------------------------------------------

const JS_NAMES = ['constructor', '__proto__', 'prototype', 'toString', 'hasOwnProperty', 'valueOf'];
const piece = fc.oneof(
  fc.string({ unit: 'grapheme', maxLength: 20 }),
  fc.string({ unit: 'binary', maxLength: 20 }),
  fc.constantFrom(...JS_NAMES, '\u0000', '\ud800', '\udfff', 'https://x.y/z', 'a.png', '~/p', "'q'", 'Enter', 'Ctrl+C', '12:30', 'v1.2', 'f00dbeef1'),
  fc.tuple(fc.constantFrom('a.', '.', '/', "'", 'a', ' '), fc.integer({ min: 1, max: 3000 })).map(([u, n]) => u.repeat(n)),
);
const hostile = fc.array(piece, { minLength: 1, maxLength: 5 }).map((xs) => xs.join(' '));
const MIB = ['.'.repeat(1 << 20) + 'a', 'a.'.repeat(1 << 19), '\ud800'.repeat(1 << 20), 'constructor '.repeat(87_381)];
const PROTO = Object.getOwnPropertyNames(Object.prototype).sort();

describe('hostile tool names, descriptions, parameters and requests through selection', () => {
  const embedder = new Bag();
  const lexicon = wordNetLexicon(fakeWordNet());
  const run = async (name: string, text: string): Promise<void> => {
    const tools: ToolLike[] = [
      ...BROWSER,
      { name, description: text, inputSchema: { type: 'object', properties: { [name]: { type: 'string', format: text, description: text, enum: [text] }, __proto__: { type: 'array', items: { format: text } } } } },
    ];
    const started = performance.now();
    try {
      const r = await selectTools(tools, `${text} ${name}`, { embedder, lexicon, topK: 3 });
      expect(r.length).toBeLessThanOrEqual(3);
      for (const s of r) expect(Number.isFinite(s.score)).toBe(true);
    } catch (e) {
      // Only a typed refusal (e.g. a request with nothing in it) is acceptable.
      expect(e).toBeInstanceOf(ParleyError);
    }
    expect(performance.now() - started).toBeLessThan(3000);
    expect(Object.getOwnPropertyNames(Object.prototype).sort()).toEqual(PROTO);
    expect(requestValues(text).shapes.size).toBeLessThanOrEqual(9);
  };

  it('answers (or refuses with a typed error) quickly, and leaves Object.prototype alone', async () => {
    await fc.assert(
      fc.asyncProperty(hostile, hostile, async (name, text) => run(name, text)),
      { numRuns: 60 },
    );
  }, 60_000);

  it('a MiB of text as tool name, description, parameter and request', async () => {
    for (const t of MIB) await run(t, t);
  }, 60_000);
});
