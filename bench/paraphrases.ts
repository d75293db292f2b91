// `npx tsx bench/paraphrases.ts [--heldout]`: the offline embedder's separation on the dev part of the
// independent paraphrase set (bench/data/paraphrases/dev.json), or with --heldout on its held-out part
// (bench/heldout/paraphrases/heldout.json, scored only at the end, never tuned on):
// ROC AUC over all pairs, over the pairs in one language, and over the cross-language ones.
// The last line is one JSON object with the figures.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { cosine, createOfflineEmbedder, separation } from '@parley/embeddings';

interface Pair {
  id: string;
  world: string;
  label: 'same' | 'different';
  a: string;
  b: string;
}
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const FILE = process.argv.includes('--heldout') ? join(ROOT, 'bench', 'heldout', 'paraphrases', 'heldout.json') : join(ROOT, 'bench', 'data', 'paraphrases', 'dev.json');
const pairs = (JSON.parse(readFileSync(FILE, 'utf8')) as { pairs: Pair[] }).pairs;
// A pair is cross-language when one side has Latin letters only and the other none.
const latin = (s: string): boolean => /\p{Script=Latin}/u.test(s) && [...s].every((c) => !/\p{L}/u.test(c) || /\p{Script=Latin}/u.test(c));
const crossLanguage = (p: Pair): boolean => latin(p.a) !== latin(p.b);

const e = createOfflineEmbedder();
const va = await e.embed(pairs.map((p) => p.a));
const vb = await e.embed(pairs.map((p) => p.b));
const scored = pairs.map((p, i) => ({ p, score: cosine(va[i]!, vb[i]!), same: p.label === 'same' }));
const auc = (xs: typeof scored): number => Math.round(separation(xs.map((x) => ({ score: x.score, same: x.same }))).rocAuc * 1000) / 1000;
const figures = {
  embedder: e.id,
  pairs: pairs.length,
  auc: auc(scored),
  auc_one_language: auc(scored.filter((x) => !crossLanguage(x.p))),
  cross_language_pairs: scored.filter((x) => crossLanguage(x.p)).length,
  auc_cross_language: auc(scored.filter((x) => crossLanguage(x.p))),
};
process.stdout.write(`${JSON.stringify(figures)}\n`);
