import { createOfflineEmbedder } from '@parley/embeddings';
import { selectTools, UsageStore } from '@parley/adol';
const embedder = createOfflineEmbedder();
const GIT = [
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
const one = new UsageStore({ now: () => 0 });
one.record('git', 'git_create_branch', 'open an MR for the login fix', 'alice');
const five = new UsageStore({ now: () => 0 });
for (const [t, r] of [['git_create_branch', 'open an MR for the login fix'], ['git_add', 'stage the readme'], ['git_log', 'what landed this week'], ['git_status', 'anything pending here'], ['git_commit', 'save my work with a note']]) five.record('git', t, r, 'alice');
const qs = ['open an MR for the payment bug', 'switch branches to main', 'show the commit logs', 'what is the working tree status', 'shows the contents of a commit', 'undo everything I staged', 'create a new branch called feature', 'record my changes'];
for (const q of qs) {
  const out: string[] = [];
  for (const m of [undefined, one.examples('git', 'alice'), five.examples('git', 'alice')]) {
    const r = await selectTools(GIT, q, { embedder, topK: 10, cut: 'fixed', ...(m ? { learnedExamples: m } : {}) });
    out.push(r[0]!.tool.name);
  }
  console.log(q.padEnd(40), out.join('  '));
}
