/**
 * Selection that learns from use (draft-chang §3.4): UsageStore (bounds, age, the per-client and shared scopes,
 * implicit attribution). Selection reading them (`learnedExamples`) is tested with the offline embedder in
 * libs/embeddings/test/learned-selection.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { UsageStore, normalizeRequest, requestKey } from '../src/usage';

const LIST = 'git';

describe('UsageStore: what a client\'s calls teach selection (chang §3.4)', () => {
  it('a client\'s learned examples serve that client only by default, however many clients say the same', () => {
    const store = new UsageStore({ now: () => 0 });
    expect(store.record(LIST, 'git_create_branch', 'open an MR for the login fix', 'alice')).toBe(true);
    store.record(LIST, 'git_create_branch', 'open an MR for the login fix', 'bob');
    store.record(LIST, 'git_create_branch', 'open an MR for the login fix', 'dave');
    expect(store.examples(LIST, 'alice').get('git_create_branch')).toEqual(['open an MR for the login fix']);
    expect(store.examples(LIST, 'carol').size).toBe(0);
  });

  it('with sharedClients set (opt-in), an example serves every client once that many distinct clients agree', () => {
    let now = 1_000_000;
    const store = new UsageStore({ now: () => now, sharedClients: 2 });
    store.record(LIST, 'git_create_branch', 'open an MR for the login fix', 'alice');
    expect(store.examples(LIST, 'bob').size).toBe(0);
    // The same request (case, spacing, trailing punctuation aside) from a second client: now everyone's.
    now += 10;
    store.record(LIST, 'git_create_branch', '  Open an MR   for the login fix. ', 'bob');
    expect(store.examples(LIST, 'carol').get('git_create_branch')).toEqual(['open an MR for the login fix']);
    // One client saying it twice is still one client.
    store.record(LIST, 'git_log', 'what landed today', 'mallory');
    store.record(LIST, 'git_log', 'What landed today?', 'mallory');
    expect(store.examples(LIST, 'carol').get('git_log')).toBeUndefined();
    expect(() => new UsageStore({ sharedClients: 1 })).toThrow(TypeError);
  });

  it('an example older than maxAgeMs stops counting and is dropped when its client next records; the same Map while nothing changed', () => {
    let now = 0;
    const store = new UsageStore({ now: () => now, maxAgeMs: 1000 });
    store.record(LIST, 'git_add', 'stage the readme', 'alice');
    const first = store.examples(LIST, 'alice');
    expect(store.examples(LIST, 'alice')).toBe(first);
    // Another client's call leaves Alice's answer the same object; her own does not.
    store.record(LIST, 'git_log', 'what landed', 'bob');
    expect(store.examples(LIST, 'alice')).toBe(first);
    store.record(LIST, 'git_log', 'what landed', 'alice');
    expect(store.examples(LIST, 'alice')).not.toBe(first);
    expect(store.examples(LIST, 'alice').get('git_log')).toEqual(['what landed']);
    now = 999;
    expect(store.examples(LIST, 'alice').get('git_add')).toEqual(['stage the readme']);
    now = 1000;
    expect(store.examples(LIST, 'alice').size).toBe(0);
    expect(store.examplesKept).toBe(3);
    store.record(LIST, 'git_show', 'show it', 'alice');
    // Alice's two expired examples went when she recorded; Bob's stays until he records (or a bound).
    expect(store.examplesKept).toBe(2);
  });

  it('is bounded: per client and tool, per client, per list, overall, request length; the least recent go first', () => {
    let now = 0;
    const store = new UsageStore({ now: () => now, perTool: 2, perClient: 3, perList: 5, total: 6, maxTextChars: 10 });
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
    store.record('b', 'git_log', 'x'.repeat(100), 'alice');
    expect(store.examples('b', 'alice').get('git_log')).toEqual(['x'.repeat(10)]);
  });

  it('one client cannot evict another\'s examples: per client and tool, and the list\'s bound takes from the largest holder', () => {
    let now = 0;
    const store = new UsageStore({ now: () => now, perTool: 16, perList: 10 });
    store.record(LIST, 'directory_tree', 'give me the lay of the land', 'victim');
    for (let i = 0; i < 40; i++) {
      now++;
      store.record(LIST, 'directory_tree', `junk ${i}`, 'mallory');
    }
    expect(store.examples(LIST, 'victim').get('directory_tree')).toEqual(['give me the lay of the land']);
    expect(store.examples(LIST, 'mallory').get('directory_tree')).toHaveLength(9);
  });

  it('a shared example is no shield: two clients saying it do not keep it past the victim\'s own bound', () => {
    let now = 0;
    const store = new UsageStore({ now: () => now, perTool: 2, sharedClients: 2 });
    store.record(LIST, 'git_add', 'stage it', 'alice');
    store.record(LIST, 'git_add', 'stage it', 'bob');
    for (const r of ['junk one', 'junk two', 'junk three']) {
      now++;
      store.record(LIST, 'git_add', r, 'mallory');
    }
    // Mallory's junk took only Mallory's room; what Alice and Bob said is theirs and still shared.
    expect(store.examples(LIST, 'carol').get('git_add')).toEqual(['stage it']);
    // And Mallory's pair of ids sharing junk does not make it outlive Alice's own newer examples.
    store.record(LIST, 'git_add', 'junk three', 'mallory2');
    now++;
    store.record(LIST, 'git_add', 'add the file', 'alice');
    now++;
    store.record(LIST, 'git_add', 'add the docs', 'alice');
    expect(store.examples(LIST, 'alice').get('git_add')).toEqual(['add the docs', 'add the file', 'junk three']);
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

  it('implicit attribution: the first call in the same session within the window, of a tool the selection returned; once', () => {
    let now = 0;
    const store = new UsageStore({ now: () => now, attributionWindowMs: 1000 });
    store.noteSelection(LIST, 'alice', 's1', 'stage the readme', ['git_add', 'git_commit']);
    now = 500;
    // Another session of the same principal (a team sharing one key) takes nothing.
    expect(store.takeAttribution(LIST, 'alice', 's2', 'git_add')).toBeUndefined();
    expect(store.takeAttribution(LIST, 'alice', undefined, 'git_add')).toBeUndefined();
    expect(store.takeAttribution(LIST, 'alice', 's1', 'git_add')).toBe('stage the readme');
    expect(store.takeAttribution(LIST, 'alice', 's1', 'git_commit')).toBeUndefined();
    // A tool the selection did not return: nothing, and the pending query is consumed.
    store.noteSelection(LIST, 'alice', 's1', 'what is the weather in Lyon', ['weather']);
    expect(store.takeAttribution(LIST, 'alice', 's1', 'write_file')).toBeUndefined();
    expect(store.takeAttribution(LIST, 'alice', 's1', 'weather')).toBeUndefined();
    store.noteSelection(LIST, 'alice', 's1', 'show me the history', ['git_log']);
    now = 1600;
    expect(store.takeAttribution(LIST, 'alice', 's1', 'git_log')).toBeUndefined();
    store.noteSelection('other', 'alice', 's1', 'show me the history', ['git_log']);
    expect(store.takeAttribution(LIST, 'alice', 's1', 'git_log')).toBeUndefined();
    // No session: nothing is noted.
    store.noteSelection(LIST, 'alice', undefined, 'show me the history', ['git_log']);
    expect(store.takeAttribution(LIST, 'alice', undefined, 'git_log')).toBeUndefined();
    expect(store.examplesKept).toBe(0);
  });
});
