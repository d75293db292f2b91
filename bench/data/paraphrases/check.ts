/**
 * Checks the paraphrase pairs: labels and worlds are known, ids unique, no
 * pair repeated, and every "same" pair shares no content word — compared
 * after lowercasing, splitting on anything that is not a letter or digit,
 * dropping words of two letters or fewer and function words (articles,
 * pronouns, auxiliaries, prepositions, "please"), and also after a crude
 * stemming (plural and -ing/-ed endings). Reports how many "different" pairs
 * share a word (the hard negatives).
 *
 *   npx tsx bench/data/paraphrases/check.ts [file.json ...]
 *
 * Without arguments: bench/data/paraphrases/dev.json and, when present,
 * bench/heldout/paraphrases/heldout.json. Exits 1 on any failure.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

interface Pair {
  id: string;
  world: string;
  label: string;
  a: string;
  b: string;
}

const FUNCTION_WORDS = new Set(
  `a an the to of in on for and or with my me it is be i you we he she they his her our your their this that these those at by from as are was were am
do does did not no can could would should will shall may might must please pls just so but if then than there here what which who whom how when where
why about into over under up down out off again more most less few very too also all any some each every its let us him them don won isn aren didn haven
doesn wasn weren couldn wouldn shouldn`.split(/\s+/),
);
const WORLDS = new Set(['flight_booking', 'photo_retouch', 'fault_management', 'software_tools', 'cross']);

function contentWords(s: string): Set<string> {
  const out = new Set<string>();
  for (const w of s
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u))
    if ([...w].length > 2 && !FUNCTION_WORDS.has(w)) out.add(w);
  return out;
}
function stem(w: string): string {
  for (const [suf, rep] of [
    ['ies', 'y'],
    ['ing', ''],
    ['ed', ''],
    ['es', ''],
    ['s', ''],
  ] as const)
    if (w.length > suf.length + 2 && w.endsWith(suf)) return w.slice(0, -suf.length) + rep;
  return w;
}

const here = dirname(fileURLToPath(import.meta.url));
const args = process.argv.slice(2);
const files = args.length > 0 ? args : [join(here, 'dev.json'), join(here, '..', '..', 'heldout', 'paraphrases', 'heldout.json')].filter((f) => existsSync(f));
const failures: string[] = [];
const ids = new Set<string>();
const seen = new Set<string>();
const count: Record<string, number> = {};
let hard = 0;
let different = 0;
let total = 0;

for (const f of files) {
  const { pairs } = JSON.parse(readFileSync(f, 'utf8')) as { pairs: Pair[] };
  for (const p of pairs) {
    total++;
    const where = `${f.split('/').pop()} ${p.id}`;
    if (ids.has(p.id)) failures.push(`${where}: duplicate id`);
    ids.add(p.id);
    const key = [p.a, p.b].sort().join('\u0000');
    if (seen.has(key)) failures.push(`${where}: pair repeated`);
    seen.add(key);
    if (!WORLDS.has(p.world)) failures.push(`${where}: unknown world ${p.world}`);
    if (p.label !== 'same' && p.label !== 'different') failures.push(`${where}: label ${p.label}`);
    count[`${p.world}/${p.label}`] = (count[`${p.world}/${p.label}`] ?? 0) + 1;
    const a = contentWords(p.a);
    const b = contentWords(p.b);
    const shared = [...a].filter((w) => b.has(w));
    const bs = new Set([...b].map(stem));
    const near = [...a].filter((w) => bs.has(stem(w)));
    if (p.label === 'same' && (shared.length > 0 || near.length > 0)) failures.push(`${where}: a "same" pair shares [${[...new Set([...shared, ...near])].join(', ')}]: "${p.a}" / "${p.b}"`);
    if (p.label === 'different') {
      different++;
      if (shared.length > 0) hard++;
    }
  }
}

if (failures.length > 0) {
  for (const x of failures) process.stderr.write(`FAIL: ${x}\n`);
  process.exit(1);
}
process.stdout.write(
  `ok: ${files.length} file(s), ${total} pairs; ${Object.entries(count)
    .sort()
    .map(([k, n]) => `${k} ${n}`)
    .join(', ')}; no "same" pair shares a content word; ${hard}/${different} "different" pairs share one\n`,
);
