/**
 * Selection that learns from use (draft-chang §3.4): UsageStore (bounds, age, the per-client and shared scopes,
 * implicit attribution). Selection reading them (`learnedExamples`) is tested with the offline embedder in
 * libs/embeddings/test/learned-selection.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { UsageStore, normalizeRequest, requestKey } from '../src/usage';

const LIST = 'git';

describe('UsageStore: what a client\'s calls teach selection (chang §3.4)', () => {
  it('a client\'s own learned example serves it; another client is served only once enough distinct clients agree', () => {
    let now = 1_000_000;
    const store = new UsageStore({ now: () => now });
    expect(store.record(LIST, 'git_create_branch', 'open an MR for the login fix', 'alice')).toBe(true);
    expect(store.examples(LIST, 'alice').get('git_create_branch')).toEqual(['open an MR for the login fix']);
    expect(store.examples(LIST, 'bob').size).toBe(0);
    // The same request (case, spacing, trailing punctuation aside) from a second client: now everyone's.
    now += 10;
    store.record(LIST, 'git_create_branch', '  Open an MR   for the login fix. ', 'bob');
    expect(store.examples(LIST, 'carol').get('git_create_branch')).toEqual(['open an MR for the login fix']);
    // One client saying it twice is still one client.
    store.record(LIST, 'git_log', 'what landed today', 'mallory');
    store.record(LIST, 'git_log', 'What landed today?', 'mallory');
    expect(store.examples(LIST, 'carol').get('git_log')).toBeUndefined();
  });

  it('an example older than maxAgeMs stops counting; the answer is the same Map while nothing changed', () => {
    let now = 0;
    const store = new UsageStore({ now: () => now, maxAgeMs: 1000 });
    store.record(LIST, 'git_add', 'stage the readme', 'alice');
    const first = store.examples(LIST, 'alice');
    expect(store.examples(LIST, 'alice')).toBe(first);
    // Another client's call leaves Alice's answer the same object (selection's caches are keyed by it); her own does not.
    store.record(LIST, 'git_log', 'what landed', 'bob');
    expect(store.examples(LIST, 'alice')).toBe(first);
    store.record(LIST, 'git_log', 'what landed', 'alice');
    expect(store.examples(LIST, 'alice')).not.toBe(first);
    expect(store.examples(LIST, 'alice').get('git_log')).toEqual(['what landed']);
    now = 999;
    expect(store.examples(LIST, 'alice').get('git_add')).toEqual(['stage the readme']);
    now = 1000;
    expect(store.examples(LIST, 'alice').size).toBe(0);
  });

  it('is bounded: per tool, per list, overall, clients per example, request length; the least recent go first', () => {
    let now = 0;
    const store = new UsageStore({ now: () => now, perTool: 2, perList: 3, total: 4, maxTextChars: 10 });
    for (const r of ['one', 'two', 'three']) {
      now++;
      store.record('a', 'git_add', r, 'alice');
    }
    expect(store.examples('a', 'alice').get('git_add')).toEqual(['three', 'two']);
    now++;
    store.record('a', 'git_log', 'four', 'alice');
    now++;
    store.record('a', 'git_show', 'five', 'alice');
    expect([...store.examples('a', 'alice').values()].flat().sort()).toEqual(['five', 'four', 'three']);
    now++;
    store.record('b', 'git_add', 'six', 'alice');
    now++;
    store.record('b', 'git_add', 'seven', 'alice');
    expect(store.examplesKept).toBe(4);
    expect(store.examples('a', 'alice').get('git_add')).toBeUndefined();
    store.record('b', 'git_log', 'x'.repeat(100), 'alice');
    expect(store.examples('b', 'alice').get('git_log')).toEqual(['x'.repeat(10)]);
  });

  it('a tool\'s bound evicts a request only one client said before one several share (one client cannot flush the shared)', () => {
    let now = 0;
    const store = new UsageStore({ now: () => now, perTool: 2 });
    store.record(LIST, 'git_add', 'stage it', 'alice');
    store.record(LIST, 'git_add', 'stage it', 'bob');
    for (const r of ['junk one', 'junk two', 'junk three']) {
      now++;
      store.record(LIST, 'git_add', r, 'mallory');
    }
    expect(store.examples(LIST, 'carol').get('git_add')).toEqual(['stage it']);
  });

  it('refuses what is not an id or has no text; hostile names are Map keys, not properties', () => {
    const store = new UsageStore({ now: () => 0 });
    expect(store.record(LIST, 'git_add', '   ', 'alice')).toBe(false);
    expect(store.record(LIST, '', 'x', 'alice')).toBe(false);
    expect(store.record(LIST, 'git_add', 'x', 'a'.repeat(257))).toBe(false);
    expect(store.record(LIST, 'git_add', 3, 'alice')).toBe(false);
    expect(store.record('__proto__', 'constructor', 'toString', '__proto__')).toBe(true);
    expect(store.examples('__proto__', '__proto__').get('constructor')).toEqual(['toString']);
    expect(store.examples('constructor', 'alice').size).toBe(0);
  });

  it('normalizes without splitting a surrogate pair and drops lone surrogates, NUL and runs of space', () => {
    expect(normalizeRequest('a\u0000\u0000b \n c\ud800')).toBe('a b c');
    expect(normalizeRequest('ab\ud83d\ude00', 3)).toBe('ab');
    expect(requestKey('Stage it?! ')).toBe('stage it');
  });

  it('implicit attribution: the first call within the window after a selection with a query; once; same list only', () => {
    let now = 0;
    const store = new UsageStore({ now: () => now, attributionWindowMs: 1000 });
    store.noteSelection(LIST, 'alice', 'stage the readme');
    now = 500;
    expect(store.attributeCall(LIST, 'alice', 'git_add')).toBe(true);
    expect(store.attributeCall(LIST, 'alice', 'git_commit')).toBe(false);
    expect(store.examples(LIST, 'alice').get('git_add')).toEqual(['stage the readme']);
    store.noteSelection(LIST, 'alice', 'show me the history');
    now = 1600;
    expect(store.attributeCall(LIST, 'alice', 'git_log')).toBe(false);
    store.noteSelection('other', 'alice', 'show me the history');
    expect(store.attributeCall(LIST, 'alice', 'git_log')).toBe(false);
    expect(store.examples(LIST, 'alice').get('git_log')).toBeUndefined();
  });
});

