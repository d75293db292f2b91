/**
 * Tokenising for the offline embedder: identifiers and prose alike. Tool names
 * and schema keys (`list_pull_requests`, `pullNumber`, `per-page`) are split
 * into their words, so "pull number" and `pullNumber` meet.
 */

/**
 * UTF-16 units of a text that are read (tokenize, scriptWords, the offline
 * embedder); the rest is ignored, so time stays bounded on hostile input. A
 * sentence model reads 256-512 tokens; 16,384 units is more than that.
 */
export const MAX_TEXT_CHARS = 16_384;

/** The first `max` UTF-16 units of `s`, never ending inside a surrogate pair. */
export function headOf(s: string, max: number = MAX_TEXT_CHARS): string {
  if (s.length <= max) return s;
  const c = s.charCodeAt(max - 1);
  return s.slice(0, c >= 0xd800 && c <= 0xdbff ? max - 1 : max);
}

/**
 * Splits `text` into lowercase word tokens: camelCase, snake_case, kebab-case
 * and punctuation all separate words; English contractions lose their clitic
 * ("don't" → "do", "not"; "user's" → "user"); diacritics are removed. Reads
 * the first `MAX_TEXT_CHARS` units.
 */
export function tokenize(text: string): string[] {
  const s = headOf(text)
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/[\u2018\u2019\u02bc]/g, "'")
    // Plural acronyms stay one word: PRs, APIs, IDs (not "P Rs").
    .replace(/\b([A-Z]{2,})s\b/g, (_m, a: string) => `${a.toLowerCase()}s`)
    // camelCase and PascalCase boundaries: pullNumber → pull Number, HTTPServer → HTTP Server.
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .toLowerCase()
    .replace(/n't\b/g, ' not')
    .replace(/'(s|re|ve|ll|d|m)\b/g, ' ');
  return s.split(/[^a-z0-9]+/).filter((t) => t.length > 0);
}

/**
 * Words that carry no intent in a short request: function words (the usual
 * English list) and the politeness and wanting that wraps a request ("I would
 * like", "please", "could you"). Kept out: negations are dropped too because a
 * bag of words cannot scope them; words that name an action ("get", "make",
 * "list", "show") stay, since tool names are built from them.
 */
export const STOP_WORDS: ReadonlySet<string> = new Set(
  `a about above after again against all also am an and any are as at be because been before being below between both but by
  can could did do does doing down during each either few for from further had has have having he her here hers herself him
  himself his how however i if in into is it its itself just let me more most my myself neither no nor not of off on once only
  or other our ours ourselves out over own please same she should so some such than that the their theirs them themselves then
  there these they this those through to too under until up us very was we were what when where which while who whom why will
  with would you your yours yourself yourselves want wants wanted like d ll m re s t ve o y ain shall may might must etc ok okay
  kindly thanks thank`.split(/\s+/).filter((w) => w.length > 0),
);

/**
 * Abbreviations common in software and operations text that WordNet lacks or
 * reads otherwise ("pr" is Puerto Rico there, "repo" is absent). Each expands
 * to the words it stands for before lemmatisation.
 */
export const ABBREVIATIONS: Readonly<Record<string, string>> = {
  pr: 'pull request',
  prs: 'pull requests',
  repo: 'repository',
  repos: 'repositories',
  org: 'organization',
  orgs: 'organizations',
  dir: 'directory',
  dirs: 'directories',
  config: 'configuration',
  configs: 'configurations',
  auth: 'authentication',
  info: 'information',
  docs: 'documentation',
  doc: 'document',
  msg: 'message',
  env: 'environment',
  db: 'database',
  ci: 'continuous integration',
  cd: 'continuous delivery',
  id: 'identifier',
  ids: 'identifiers',
  img: 'image',
  pic: 'picture',
  pics: 'pictures',
  app: 'application',
  apps: 'applications',
  param: 'parameter',
  params: 'parameters',
  arg: 'argument',
  args: 'arguments',
  sha: 'commit hash',
  deps: 'dependencies',
  dep: 'dependency',
  vuln: 'vulnerability',
  vulns: 'vulnerabilities',
  cve: 'vulnerability',
  cves: 'vulnerabilities',
  ghsa: 'security advisory',
  bw: 'bandwidth',
  sw: 'software',
  hw: 'hardware',
};

/**
 * Groups of words that software and operations text uses interchangeably and
 * WordNet does not link: there a bug is an insect or a defect but never an
 * issue, to fork is to divide and not to copy, and "readme" is absent. The
 * members of a group share one concept feature. Kept general (version control,
 * issue tracking, CI, accounts), not the names of any one server's tools; it was
 * drafted while looking at tool-selection misses, so BENCHMARKS.md reports the
 * figures with and without it.
 */
export const SOFTWARE_THESAURUS: readonly (readonly string[])[] = [
  ['issue', 'bug', 'ticket', 'defect'],
  ['repository', 'codebase'],
  ['release', 'version'],
  ['collaborator', 'contributor', 'maintainer', 'member'],
  ['access', 'permission'],
  ['fork', 'copy', 'clone'],
  ['star', 'bookmark', 'favorite', 'favourite'],
  ['edit', 'modify', 'change', 'update'],
  ['delete', 'remove', 'erase'],
  ['authenticated', 'logged', 'login', 'signed'],
  ['readme', 'documentation'],
  ['workflow', 'pipeline', 'build'],
  ['log', 'output'],
  ['vulnerability', 'vulnerable', 'advisory', 'cve', 'exploit'],
  ['alert', 'warning', 'finding'],
  ['comment', 'reply', 'remark'],
  ['search', 'find', 'look', 'locate'],
  ['list', 'show', 'display', 'enumerate'],
  ['notification', 'inbox', 'mention'],
  ['secret', 'credential', 'token', 'key', 'password'],
  ['user', 'account', 'profile'],
  ['organization', 'company'],
  ['directory', 'folder'],
  ['latest', 'newest', 'recent', 'last'],
];

/**
 * Scripts written without spaces between words: a run of their characters is
 * segmented into character unigrams and bigrams rather than read as one word.
 */
const SPACELESS = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Thai}\p{Script=Lao}\p{Script=Khmer}\p{Script=Myanmar}\p{Script=Tibetan}]/u;
/** A letter, mark or digit, of any script. */
const WORD_CHAR = /[\p{L}\p{M}\p{N}]/u;
/** Letters `tokenize` keeps (it folds accents away, so any Latin letter ends up a-z). */
const LATIN_OR_DIGIT = /[\p{Script=Latin}\p{N}]/u;

/**
 * Function words of the non-Latin languages Parley's examples use (draft-zhou
 * §4.2 templates carry several; Latin-script ones go through `tokenize`): like `STOP_WORDS`, the politeness and wanting that
 * wrap a request and carry no need. Whole words for spaced scripts; for the
 * spaceless ones, strings removed from a run before it is segmented.
 */
export const OTHER_STOP_WORDS: ReadonlySet<string> = new Set(
  `я мне меня мы нам нас ты вы вам у в во на и а но не с со к ко по для о об от до из за что это как бы же ли
  пожалуйста хочу хотел хотела хотим хотелось нужно нужен нужна нужны надо можно прошу дайте дай будьте
  في من على إلى الى عن مع أن ان أو او و لا ما هذا هذه هل أريد اريد نريد لو سمحت فضلك أحتاج احتاج يرجى الرجاء
  나는 저는 제가 내가 좀 주세요 해주세요 부탁합니다 부탁해요 싶어요 싶습니다 원합니다 원해요 있나요 하고 그리고`.split(/\s+/).filter((w) => w.length > 0),
);
/** Strings dropped from a spaceless run (longest first): "I want", "please", particles. */
const SPACELESS_STOP: readonly string[] = [
  'お願いします', 'お願い', 'ください', 'したい', 'します', 'です', 'ます', 'がいい', 'にして', 'たい',
  '我想要', '我想', '我要', '请给我', '请', '给我', '麻烦', '一个', '可以', '谢谢', '需要', '希望',
  'の', 'を', 'に', 'は', 'が', 'で', 'と', 'も', 'へ', 'な', 'ね', 'よ',
  '我', '的', '了', '是', '在', '吗', '呢', '吧', '和', '要', '想', '你',
].sort((a, b) => b.length - a.length);
/** Korean particles left on the end of a word ("좌석을" → 좌석). */
const HANGUL_PARTICLES: readonly string[] = ['으로', '에서', '에게', '을', '를', '이', '가', '은', '는', '에', '로', '와', '과', '도', '의'];

/** A run of letters outside what `tokenize` reads, for the character n-gram features. */
export interface ScriptWord {
  /** `spaceless`: a segment of Han, Kana, Thai, …; `spaced`: a word of Cyrillic, Arabic, Hangul, Greek, … */
  readonly kind: 'spaceless' | 'spaced';
  readonly text: string;
}

/**
 * The words of `text` in scripts `tokenize` does not read (everything but Latin
 * letters and digits), NFKC-normalised and lowercased, function words dropped:
 * spaced-script words whole (Korean particles cut), spaceless runs split at their
 * function strings. Linear in the text: one pass over its code points.
 */
export function scriptWords(text: string): ScriptWord[] {
  const out: ScriptWord[] = [];
  const s = headOf(text).normalize('NFKC').toLowerCase();
  let run = '';
  const flush = (): void => {
    if (run !== '') splitRun(run, out);
    run = '';
  };
  for (const ch of s) {
    if (WORD_CHAR.test(ch) && !LATIN_OR_DIGIT.test(ch)) run += ch;
    else flush();
  }
  flush();
  return out;
}

/** One run of non-Latin word characters: spaceless segments and spaced words. */
function splitRun(run: string, out: ScriptWord[]): void {
  let spaced = '';
  let spaceless = '';
  const endSpaced = (): void => {
    if (spaced !== '' && !OTHER_STOP_WORDS.has(spaced)) {
      let w = spaced;
      if (/\p{Script=Hangul}/u.test(w)) {
        const p = HANGUL_PARTICLES.find((x) => w.length > x.length + 1 && w.endsWith(x));
        if (p) w = w.slice(0, -p.length);
      }
      out.push({ kind: 'spaced', text: w });
    }
    spaced = '';
  };
  const endSpaceless = (): void => {
    for (const seg of splitOnStops(spaceless)) out.push({ kind: 'spaceless', text: seg });
    spaceless = '';
  };
  for (const ch of run) {
    if (SPACELESS.test(ch)) {
      endSpaced();
      spaceless += ch;
    } else {
      endSpaceless();
      spaced += ch;
    }
  }
  endSpaced();
  endSpaceless();
}

/** A spaceless run cut at its function strings (each position tries the stop strings, longest first). */
function splitOnStops(run: string): string[] {
  const segs: string[] = [];
  let cur = '';
  for (let i = 0; i < run.length; ) {
    const stop = SPACELESS_STOP.find((w) => run.startsWith(w, i));
    if (stop) {
      if (cur !== '') segs.push(cur);
      cur = '';
      i += stop.length;
    } else {
      const cp = run.codePointAt(i) as number;
      const ch = String.fromCodePoint(cp);
      cur += ch;
      i += ch.length;
    }
  }
  if (cur !== '') segs.push(cur);
  return segs;
}
