/**
 * Selection that learns from use (draft-chang §3.4) with the offline embedder: selectTools reading a UsageStore's
 * learned examples through `learnedExamples` (the `examples` ranker), per client, and ordinary requests unchanged.
 */
import { describe, expect, it } from 'vitest';
import { UsageStore, selectTools, type ToolLike } from '@parley/adol';
import { createOfflineEmbedder } from '@parley/embeddings';

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
