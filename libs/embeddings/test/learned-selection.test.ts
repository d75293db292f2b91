/**
 * Selection that learns from use (draft-chang §3.4) with the offline embedder: selectTools reading a UsageStore's
 * learned examples through `learnedExamples` (the `examples` ranker), per client, and ordinary requests unchanged.
 */
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { UsageStore, selectTools, wordNetLexicon, type SelectLexicon, type ToolLike } from '@parley/adol';
import { WordNet, createOfflineEmbedder, defaultDictDir } from '@parley/embeddings';

const embedder = createOfflineEmbedder();
const GIT: ToolLike[] = [
  { name: 'git_status', description: 'Shows the working tree status' },
  { name: 'git_diff_unstaged', description: 'Shows changes in the working directory that are not yet staged' },
  { name: 'git_diff_staged', description: 'Shows changes that are staged for commit' },
  { name: 'git_commit', description: 'Records changes to the repository' },
  { name: 'git_add', description: 'Adds file contents to the staging area' },
  { name: 'git_reset', description: 'Unstages all staged changes' },
  { name: 'git_log', description: 'Shows the commit logs' },
  { name: 'git_create_branch', description: 'Creates a new branch from an optional base branch' },
  { name: 'git_checkout', description: 'Switches branches' },
  { name: 'git_show', description: 'Shows the contents of a commit' },
];
const LIST = 'git';
/** Alice's usage: one request per tool she called. */
const ALICE: [string, string][] = [
  ['git_create_branch', 'open an MR for the login fix'],
  ['git_add', 'stage the readme'],
  ['git_log', 'what landed this week'],
  ['git_status', 'anything pending here'],
  ['git_commit', 'save my work with a note'],
];
function aliceStore(): UsageStore {
  const store = new UsageStore({ now: () => 0 });
  for (const [tool, request] of ALICE) store.record(LIST, tool, request, 'alice');
  return store;
}
const rank = async (query: string, learned?: ReadonlyMap<string, readonly string[]>): Promise<string[]> =>
  (await selectTools(GIT, query, { embedder, topK: GIT.length, cut: 'fixed', ...(learned ? { learnedExamples: learned } : {}) })).map((s) => s.tool.name);

describe('selectTools with learnedExamples (the examples ranker)', () => {
  it('jargon a client used before for a tool ranks that tool first for that client; without learning it does not', async () => {
    const store = aliceStore();
    const query = 'open an MR for the payment bug';
    expect((await rank(query))[0]).not.toBe('git_create_branch');
    expect((await rank(query, store.examples(LIST, 'alice')))[0]).toBe('git_create_branch');
    // Bob never said it: his selection is what it was.
    expect(await rank(query, store.examples(LIST, 'bob'))).toEqual(await rank(query));
  });

  it('one learned example is enough (the first jargon a client teaches counts at once)', async () => {
    const store = new UsageStore({ now: () => 0 });
    store.record(LIST, 'git_create_branch', 'open an MR for the login fix', 'alice');
    expect((await rank('open an MR for the payment bug', store.examples(LIST, 'alice')))[0]).toBe('git_create_branch');
  });

  it('an ordinary request unlike any learned example keeps its ranking (tools without examples are not sunk)', async () => {
    const store = aliceStore();
    // "switch branches to main" went to git_create_branch (its example the nearest) when a tool without examples got the mean score.
    for (const q of ['switch branches to main', 'show the commit logs', 'what is the working tree status', 'shows the contents of a commit', 'record my changes', 'create a new branch called feature']) {
      expect((await rank(q, store.examples(LIST, 'alice')))[0]).toBe((await rank(q))[0]);
    }
  });

  it('a learned example for a name the list does not hold is ignored; answers are the caller\'s own tool objects', async () => {
    const learned = new Map([['git_rebase', ['open an MR for the payment bug']]]);
    expect(await rank('open an MR for the payment bug', learned)).toEqual(await rank('open an MR for the payment bug'));
    const withOne = new Map([['git_add', ['stage the readme']]]);
    const r = await selectTools(GIT, 'stage the notes', { embedder, learnedExamples: withOne });
    for (const s of r) expect(GIT).toContain(s.tool);
    await expect(selectTools(GIT, 'x', { embedder, learnedExamples: {} as never })).rejects.toMatchObject({ path: 'opts.learnedExamples' });
  });
});

/** The vendored lists (bench/data/mcp-tools; SOURCES.md there), with the WordNet lexicon, as the gateway and the bench select. */
const listOf = (file: string): ToolLike[] => JSON.parse(readFileSync(fileURLToPath(new URL(`../../../bench/data/mcp-tools/${file}`, import.meta.url)), 'utf8')) as ToolLike[];

describe('learned examples say nothing about requests they do not match (chang §3.4; a review\'s repros)', () => {
  let lexicon: SelectLexicon;
  const FILESYSTEM = listOf('filesystem.json');
  const GIT_LIST = listOf('git.json');
  const LEARNED_FS = new Map([
    ['write_file', ['jot down the meeting notes for tomorrow']],
    ['search_files', ['where did I put the tax receipts']],
    ['directory_tree', ['give me the lay of the land']],
  ]);
  const LEARNED_GIT = new Map([
    ['git_create_branch', ['open an MR for the login fix']],
    ['git_add', ['stage the readme']],
    ['git_commit', ['save my work with a note']],
  ]);
  const names = (r: { tool: ToolLike }[]): unknown[] => r.map((s) => s.tool.name);

  it('ordinary unrelated requests get exactly the answer without learning: order, scores and the adaptive cut', { timeout: 60_000 }, async () => {
    lexicon = wordNetLexicon(await WordNet.load({ dictDir: defaultDictDir() }));
    for (const [tools, learned, requests] of [
      [FILESYSTEM, new Map([['directory_tree', ['give me the lay of the land']]]), ['rename the draft to final', 'move the receipts into the archive folder', 'list the files with their sizes', 'find every pdf about invoices']],
      [GIT_LIST, LEARNED_GIT, ['is the working tree clean', 'show everything that is not staged yet', 'switch to the release branch', 'which branches exist']],
    ] as const) {
      for (const q of requests) {
        const plain = await selectTools(tools, q, { embedder, lexicon });
        const withLearning = await selectTools(tools, q, { embedder, lexicon, learnedExamples: learned });
        expect(withLearning.map((s) => [s.tool.name, s.score])).toEqual(plain.map((s) => [s.tool.name, s.score]));
      }
    }
  });

  it('an example sharing the object but not the act does not take the request', { timeout: 60_000 }, async () => {
    lexicon ??= wordNetLexicon(await WordNet.load({ dictDir: defaultDictDir() }));
    const first = async (tools: ToolLike[], q: string, learned: ReadonlyMap<string, readonly string[]>): Promise<unknown> => names(await selectTools(tools, q, { embedder, lexicon, topK: 5, cut: 'fixed', learnedExamples: learned }))[0];
    expect(await first(FILESYSTEM, 'read the meeting notes from yesterday', LEARNED_FS)).not.toBe('write_file');
    expect(await first(GIT_LIST, 'read the readme', LEARNED_GIT)).not.toBe('git_add');
    expect(await first(GIT_LIST, 'fix the login page typo', LEARNED_GIT)).not.toBe('git_create_branch');
    const top5 = names(await selectTools(FILESYSTEM, 'when was the notes file last modified', { embedder, lexicon, topK: 5, cut: 'fixed', learnedExamples: LEARNED_FS }));
    expect(top5).not.toContain('write_file');
    // The act agreeing, the jargon still counts.
    expect(await first(GIT_LIST, 'open an MR for the payment bug', LEARNED_GIT)).toBe('git_create_branch');
  });
});
