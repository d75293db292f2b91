/**
 * The dev / held-out split of the evaluation sets written by hand for the
 * tuners (tool-selection requests, mapper utterances, paraphrase pairs).
 *
 * Rule: sort the items by id (ids carry a zero-padded sequence number in the
 * order they were written); draw one mulberry32 number per item from the set's
 * seed, in that order; an item is dev when its draw is below DEV_SHARE (0.4),
 * held-out otherwise. Items of a list kept whole in held-out draw nothing.
 *
 *   npx tsx bench/data/split.ts write <set> <all.json>   # once, by the author: writes both parts
 *   npx tsx bench/data/split.ts verify                    # recomputes the split from both parts
 *
 * `verify` needs the held-out files (bench/heldout/...); with only the dev
 * files present it says so and exits 0.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { seededRandom } from '@parley/testkit';

export const DEV_SHARE = 0.4;
export const SEEDS = { selection: 20261127, ask: 20261128, paraphrases: 20261129 } as const;
/** Tool lists whose requests are all held out (lists taken from outside the project for this purpose). */
export const HELDOUT_LISTS = ['slack.json', 'sqlite.json', 'google-maps.json'];
export const SELECTION_LISTS = ['everything.json', 'filesystem.json', 'git.json', 'memory.json', ...HELDOUT_LISTS];

type Split = 'dev' | 'heldout';
interface Item {
  id: string;
}

export function assign(items: readonly Item[], seed: number, forceHeldout: (it: Item) => boolean = () => false): Map<string, Split> {
  const r = seededRandom(seed);
  const out = new Map<string, Split>();
  for (const it of [...items].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))) {
    if (forceHeldout(it)) out.set(it.id, 'heldout');
    else out.set(it.id, r() < DEV_SHARE ? 'dev' : 'heldout');
  }
  return out;
}

const bench = join(dirname(fileURLToPath(import.meta.url)), '..');
const readJson = <T>(p: string): T => JSON.parse(readFileSync(p, 'utf8')) as T;
const writeJson = (p: string, v: unknown): void => {
  mkdirSync(dirname(p), { recursive: true });
  writeFileSync(p, `${JSON.stringify(v, null, 2)}\n`);
};

interface Req extends Item {
  text: string;
  expected: string[];
  shares_word: boolean;
}
/** Selection: the id's prefix names the list (`<list stem>-NNN`). */
const listOf = (id: string): string => `${id.replace(/-\d+$/, '')}.json`;
const selDev = (list: string): string => join(bench, 'data', 'selection', list.replace(/\.json$/, '.dev.json'));
const selHeld = (list: string): string => join(bench, 'heldout', 'selection', list.replace(/\.json$/, '.heldout.json'));

interface AskFile {
  reference_date: string;
  timezone: string;
  description?: string;
  utterances: Item[];
}
interface PairFile {
  description: string;
  pairs: Item[];
}
const ASK_DEV = join(bench, 'data', 'ask', 'utterances.dev.json');
const ASK_HELD = join(bench, 'heldout', 'ask', 'utterances.heldout.json');
const PAR_DEV = join(bench, 'data', 'paraphrases', 'dev.json');
const PAR_HELD = join(bench, 'heldout', 'paraphrases', 'heldout.json');

function write(set: string, file: string): void {
  if (set === 'selection') {
    const all = readJson<{ requests: Req[] }>(file).requests;
    const split = assign(all, SEEDS.selection, (it) => HELDOUT_LISTS.includes(listOf(it.id)));
    for (const list of SELECTION_LISTS) {
      const mine = all.filter((q) => listOf(q.id) === list);
      const dev = mine.filter((q) => split.get(q.id) === 'dev');
      const held = mine.filter((q) => split.get(q.id) === 'heldout');
      if (dev.length > 0) writeJson(selDev(list), { list, requests: dev });
      writeJson(selHeld(list), { list, requests: held });
      process.stdout.write(`${list}: ${dev.length} dev, ${held.length} held-out\n`);
    }
  } else if (set === 'ask') {
    const all = readJson<AskFile>(file);
    const split = assign(all.utterances, SEEDS.ask);
    const part = (s: Split): AskFile => ({ ...all, utterances: all.utterances.filter((u) => split.get(u.id) === s) });
    writeJson(ASK_DEV, part('dev'));
    writeJson(ASK_HELD, part('heldout'));
    process.stdout.write(`ask: ${part('dev').utterances.length} dev, ${part('heldout').utterances.length} held-out\n`);
  } else if (set === 'paraphrases') {
    const all = readJson<PairFile>(file);
    const split = assign(all.pairs, SEEDS.paraphrases);
    const part = (s: Split): PairFile => ({ ...all, pairs: all.pairs.filter((p) => split.get(p.id) === s) });
    writeJson(PAR_DEV, part('dev'));
    writeJson(PAR_HELD, part('heldout'));
    process.stdout.write(`paraphrases: ${part('dev').pairs.length} dev, ${part('heldout').pairs.length} held-out\n`);
  } else throw new Error(`unknown set ${set}`);
}

function verify(): number {
  let bad = 0;
  const check = (name: string, items: { it: Item; in: Split }[], seed: number, force?: (it: Item) => boolean): void => {
    const split = assign(
      items.map((x) => x.it),
      seed,
      force,
    );
    const wrong = items.filter((x) => split.get(x.it.id) !== x.in);
    const dev = items.filter((x) => x.in === 'dev').length;
    process.stdout.write(`${name}: ${items.length} items, ${dev} dev, ${items.length - dev} held-out, ${wrong.length} misplaced\n`);
    bad += wrong.length;
  };
  if (!existsSync(join(bench, 'heldout'))) {
    process.stdout.write('no bench/heldout here: nothing to verify against\n');
    return 0;
  }
  const sel: { it: Item; in: Split }[] = [];
  for (const list of SELECTION_LISTS) {
    if (existsSync(selDev(list))) for (const q of readJson<{ requests: Req[] }>(selDev(list)).requests) sel.push({ it: q, in: 'dev' });
    if (existsSync(selHeld(list))) for (const q of readJson<{ requests: Req[] }>(selHeld(list)).requests) sel.push({ it: q, in: 'heldout' });
  }
  if (sel.some((x) => x.in === 'heldout')) check('selection', sel, SEEDS.selection, (it) => HELDOUT_LISTS.includes(listOf(it.id)));
  else process.stdout.write('selection: no held-out part here\n');
  if (existsSync(ASK_DEV) && existsSync(ASK_HELD)) {
    const ask = [...readJson<AskFile>(ASK_DEV).utterances.map((it) => ({ it, in: 'dev' as const })), ...readJson<AskFile>(ASK_HELD).utterances.map((it) => ({ it, in: 'heldout' as const }))];
    check('ask', ask, SEEDS.ask);
  } else process.stdout.write('ask: no held-out part here\n');
  if (existsSync(PAR_DEV) && existsSync(PAR_HELD)) {
    const par = [...readJson<PairFile>(PAR_DEV).pairs.map((it) => ({ it, in: 'dev' as const })), ...readJson<PairFile>(PAR_HELD).pairs.map((it) => ({ it, in: 'heldout' as const }))];
    check('paraphrases', par, SEEDS.paraphrases);
  } else process.stdout.write('paraphrases: no held-out part here\n');
  return bad;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const [cmd, set, file] = process.argv.slice(2);
  if (cmd === 'write' && set && file) write(set, file);
  else if (cmd === 'verify') process.exit(verify() > 0 ? 1 : 0);
  else {
    process.stderr.write('usage: split.ts write <selection|ask|paraphrases> <all.json> | split.ts verify\n');
    process.exit(2);
  }
}
