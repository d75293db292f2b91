/**
 * The few closed word classes of other languages the offline mapper reads, for
 * the languages chrono reads dates in (dates.ts): the route prepositions and
 * postpositions that say "from" and "to", spelled-out numbers up to ten, and
 * the words and counters that count people. Grammar, not vocabulary: no
 * content word of any scenario is here (a template's own words stay English).
 *
 * CJK text has no spaces, so a run of CJK characters is one token (text.ts);
 * `splitCjk` cuts a run at its route particles ("从北京到上海" → 从 北京 到
 * 上海, "東京から大阪まで" → 東京 から 大阪 まで, "서울에서" → 서울 에서), the
 * particle tokens reading as `from` / `to` (prepositions) or `<from` / `<to`
 * (postpositions, after their name).
 */
import type { Token } from './text';

/** "from" before a name, in the Latin- and Cyrillic-script languages chrono reads. */
export const FROM_WORDS: ReadonlySet<string> = new Set(['from', 'de', 'desde', 'depuis', 'von', 'aus', 'ab', 'da', 'dal', 'dalla', 'vanuit', 'van', 'из', 'от', 'з', 'від']);
/** "to" before a name. */
export const TO_WORDS: ReadonlySet<string> = new Set(['to', 'a', 'à', 'nach', 'para', 'hacia', 'vers', 'naar', 'в', 'во', 'до']);
/** Words inside a place name between its capitalised words ("Ciudad de México", "Rio de Janeiro"). */
export const NAME_PARTICLES: ReadonlySet<string> = new Set(['de', 'del', 'da', 'di', 'do', 'dos', 'la', 'los', 'las']);

/** Spelled-out numbers one to ten in French, German, Spanish, Italian, Portuguese, Russian. */
export const FOREIGN_NUMBERS: ReadonlyMap<string, number> = new Map([
  ['un', 1], ['une', 1], ['deux', 2], ['trois', 3], ['quatre', 4], ['cinq', 5], ['six', 6], ['sept', 7], ['huit', 8], ['neuf', 9], ['dix', 10],
  ['ein', 1], ['eine', 1], ['einer', 1], ['zwei', 2], ['drei', 3], ['vier', 4], ['fünf', 5], ['sechs', 6], ['sieben', 7], ['acht', 8], ['neun', 9], ['zehn', 10],
  ['uno', 1], ['una', 1], ['dos', 2], ['tres', 3], ['cuatro', 4], ['cinco', 5], ['seis', 6], ['siete', 7], ['ocho', 8], ['nueve', 9], ['diez', 10],
  ['due', 2], ['tre', 3], ['quattro', 4], ['cinque', 5], ['sei', 6], ['sette', 7], ['otto', 8], ['nove', 9], ['dieci', 10],
  ['um', 1], ['uma', 1], ['dois', 2], ['duas', 2], ['três', 3], ['quatro', 4],
  ['один', 1], ['одна', 1], ['два', 2], ['две', 2], ['три', 3], ['четыре', 4], ['пять', 5], ['шесть', 6], ['семь', 7], ['восемь', 8], ['девять', 9], ['десять', 10],
]);
/**
 * Number words past ten in French, German and Spanish, by their grammar: teens, tens, hundreds and thousands, German
 * compounds ("dreiundzwanzig", "zweihundertfünfzig"), Spanish "veinti-" forms ("veintitrés"), French counts made of
 * several words ("quatre vingt dix", "cent cinquante"), and the approximate collectives ("une vingtaine", "ein Dutzend").
 */
const NUMBER_WORDS: ReadonlyMap<string, number> = new Map([
  ['onze', 11], ['douze', 12], ['treize', 13], ['quatorze', 14], ['quinze', 15], ['seize', 16],
  ['vingt', 20], ['vingts', 20], ['trente', 30], ['quarante', 40], ['cinquante', 50], ['soixante', 60], ['cent', 100], ['cents', 100], ['mille', 1000],
  ['dizaine', 10], ['douzaine', 12], ['quinzaine', 15], ['vingtaine', 20], ['trentaine', 30], ['quarantaine', 40], ['cinquantaine', 50], ['soixantaine', 60], ['centaine', 100],
  ['eins', 1], ['elf', 11], ['zwölf', 12], ['dreizehn', 13], ['vierzehn', 14], ['fünfzehn', 15], ['sechzehn', 16], ['siebzehn', 17], ['achtzehn', 18], ['neunzehn', 19],
  ['zwanzig', 20], ['dreißig', 30], ['dreissig', 30], ['vierzig', 40], ['fünfzig', 50], ['sechzig', 60], ['siebzig', 70], ['achtzig', 80], ['neunzig', 90], ['hundert', 100], ['tausend', 1000], ['dutzend', 12],
  ['once', 11], ['doce', 12], ['trece', 13], ['catorce', 14], ['quince', 15], ['dieciséis', 16], ['diecisiete', 17], ['dieciocho', 18], ['diecinueve', 19],
  ['veinte', 20], ['treinta', 30], ['cuarenta', 40], ['cincuenta', 50], ['sesenta', 60], ['setenta', 70], ['ochenta', 80], ['noventa', 90], ['cien', 100], ['ciento', 100], ['mil', 1000], ['docena', 12],
  ['doscientos', 200], ['doscientas', 200], ['trescientos', 300], ['trescientas', 300], ['cuatrocientos', 400], ['cuatrocientas', 400], ['quinientos', 500], ['quinientas', 500],
  ['seiscientos', 600], ['seiscientas', 600], ['setecientos', 700], ['setecientas', 700], ['ochocientos', 800], ['ochocientas', 800], ['novecientos', 900], ['novecientas', 900],
]);
/** Words that join the parts of a number ("treinta y dos", "soixante et onze"). */
const NUMBER_JOINERS: ReadonlySet<string> = new Set(['y', 'et', 'und']);
/** Longest number word read (German compounds are long; nothing longer is a number). */
const MAX_NUMBER_WORD = 40;

/** The value of one number word of those languages (1-10 from FOREIGN_NUMBERS), or undefined. */
export function foreignNumberWord(word: string): number | undefined {
  if (word.length > MAX_NUMBER_WORD) return undefined;
  const w = word.toLowerCase();
  const direct = FOREIGN_NUMBERS.get(w) ?? NUMBER_WORDS.get(w);
  if (direct !== undefined) return direct;
  const veinti = /^veinti(\p{L}+)$/u.exec(w);
  if (veinti) {
    const unit = FOREIGN_NUMBERS.get((veinti[1] as string).normalize('NFD').replace(/\p{M}/gu, ''));
    return unit !== undefined && unit < 10 ? 20 + unit : undefined;
  }
  // German: "<units>tausend<rest>", "<units>hundert<rest>", "<unit>und<tens>".
  for (const [marker, place] of [['tausend', 1000], ['hundert', 100]] as const) {
    const at = w.indexOf(marker);
    if (at < 0) continue;
    const head = w.slice(0, at);
    const rest = w.slice(at + marker.length);
    const times = head === '' || head === 'ein' ? 1 : foreignNumberWord(head);
    const tail = rest === '' ? 0 : foreignNumberWord(rest);
    return times !== undefined && tail !== undefined && times < place && tail < place ? times * place + tail : undefined;
  }
  const und = /^(\p{L}+?)und(\p{L}+)$/u.exec(w);
  if (und) {
    const unit = und[1] === 'ein' ? 1 : FOREIGN_NUMBERS.get(und[1] as string);
    const tens = NUMBER_WORDS.get(und[2] as string);
    return unit !== undefined && unit < 10 && tens !== undefined && tens >= 20 && tens < 100 && tens % 10 === 0 ? tens + unit : undefined;
  }
  return undefined;
}

/** Whether `value` (the number read so far, below its thousands) leaves a round tens open for a unit: 20, 30, …, 90. */
const openTens = (value: number): boolean => value % 100 >= 20 && value % 10 === 0;

/**
 * Whether number word `v` (`w`) may follow `current` (below the thousands, `total` the thousands) by place value:
 * a unit after a round tens ("treinta y dos", "vingt et un"), a teen or a tens after hundreds or thousands, the
 * French teens after soixante and quatre-vingt ("soixante dix", "quatre vingt douze"), hundreds after thousands.
 * Not a unit after a unit ("cinq six", "deux un peu"), nor a tens after a unit.
 */
function followsByPlace(current: number, total: number, v: number): boolean {
  const below = current % 100;
  if (v >= 1 && v <= 9) return openTens(current) || (below === 0 && (current > 0 || total > 0));
  if (v >= 10 && v < 100) return (below === 0 && (current > 0 || total > 0)) || ((below === 60 || below === 80) && v < 20);
  return v >= 100 && v < 1000 && current === 0 && total > 0;
}

/**
 * A number said in words of those languages at token `i`, over up to six tokens, combined by place value only:
 * tens and units ("treinta y dos", "vingt et un"), hundreds and the rest ("doscientas tres"), "cent"/"hundert"/
 * "mil"/"mille" multiply what comes before them, French "quatre vingt" is 80; "y"/"et"/"und" join a round tens and
 * a unit only. Two numbers side by side that place value does not combine end the number at the first ("cinq six
 * plaintes" is five, "nivel dos y tres" two, "niveau deux un peu plus" two: the article is no second number).
 */
export function foreignNumberAt(wordAt: (j: number) => string | undefined, i: number): { value: number; to: number } | undefined {
  let total = 0;
  let current = 0;
  let to = i;
  for (let j = i; j - i < 6; j++) {
    const w = wordAt(j)?.toLowerCase();
    if (w === undefined) break;
    if (NUMBER_JOINERS.has(w) && j > i) {
      const next = wordAt(j + 1);
      const after = next === undefined ? undefined : foreignNumberWord(next.toLowerCase());
      if (after !== undefined && openTens(current) && (after <= 9 || (current % 100 === 60 && after === 11))) continue;
      break;
    }
    const v = foreignNumberWord(w);
    if (v === undefined) break;
    if (j === i) [total, current] = v === 1000 ? [1000, 0] : [0, v];
    else if (v === 1000 && current < 1000 && total === 0) [total, current] = [(current || 1) * 1000, 0];
    else if (v === 100 && (w === 'cent' || w === 'cents' || w === 'hundert') && current > 0 && current < 10) current *= 100;
    else if (w.startsWith('vingt') && current % 100 === 4) current += 76;
    else if (followsByPlace(current, total, v)) current += v;
    else break;
    to = j + 1;
  }
  return to > i ? { value: total + current, to } : undefined;
}

/** "We are" in those languages (the first person plural of "be"): before a number it says how many we are ("somos cinco", "nous sommes quatre"). */
export const WE_ARE: ReadonlySet<string> = new Set(['somos', 'sommes', 'siamo']);
/** "We" before those forms ("nous sommes"): part of the count, not content for `other`. */
export const WE: ReadonlySet<string> = new Set(['nous', 'noi', 'nosotros', 'nosotras', 'nós']);
/** Words for a person or people in those languages. */
export const PERSON_WORDS: ReadonlySet<string> = new Set([
  'personne', 'personnes', 'adulte', 'adultes', 'person', 'personen', 'erwachsene', 'erwachsener', 'persona', 'personas', 'adulto', 'adultos', 'persone', 'adulti',
  'pessoa', 'pessoas', 'человек', 'человека', 'пассажир', 'пассажира', 'пассажиров',
]);

/** CJK numerals one to ten (Chinese and Japanese) and Korean native numerals before a counter. */
const CJK_DIGITS: ReadonlyMap<string, number> = new Map([
  ['一', 1], ['二', 2], ['两', 2], ['兩', 2], ['三', 3], ['四', 4], ['五', 5], ['六', 6], ['七', 7], ['八', 8], ['九', 9], ['十', 10],
  ['한', 1], ['두', 2], ['세', 3], ['네', 4], ['다섯', 5], ['여섯', 6], ['일곱', 7], ['여덟', 8], ['아홉', 9], ['열', 10],
]);
/** Counters of people after a number: 人, 名, 位, 个人 (Chinese, Japanese), 명, 사람 (Korean). */
const PERSON_COUNTERS: readonly string[] = ['个人', '個人', '人', '名', '位', '명', '사람'];

/** The CJK count of people at the start of `text` ("两个人", "三名") or the number a counter follows. */
export function cjkPersonCount(text: string): number | undefined {
  for (const [numeral, n] of CJK_DIGITS) {
    if (!text.startsWith(numeral)) continue;
    const rest = text.slice(numeral.length);
    if (PERSON_COUNTERS.some((c) => rest.startsWith(c))) return n;
  }
  return undefined;
}
/** A Korean native numeral or CJK numeral said alone ("한" of "한 명"). */
export function cjkNumeral(text: string): number | undefined {
  return CJK_DIGITS.get(text);
}
/** Whether a token's text starts with a counter of people ("名でお願いします", "명"). */
export function startsWithPersonCounter(text: string): boolean {
  return PERSON_COUNTERS.some((c) => text.startsWith(c));
}

/** Route particles inside CJK runs: [particle, reading]. Longest first where one holds another. */
const PARTICLES: readonly (readonly [string, string])[] = [
  ['飞往', 'to'], ['飛往', 'to'], ['前往', 'to'], ['从', 'from'], ['從', 'from'], ['到', 'to'], ['至', 'to'], ['去', 'to'],
  ['から', '<from'], ['まで', '<to'], ['へ', '<to'],
  ['에서', '<from'], ['부터', '<from'], ['까지', '<to'], ['으로', '<to'], ['로', '<to'],
];
/** Korean particles only count at the end of a space-separated word ("서울에서"), not inside one. */
const HANGUL = /[\uac00-\ud7af]/u;

/** `tokens` with CJK runs cut at their route particles (offsets kept, so words are still sliced from the text). */
export function splitCjk(tokens: readonly Token[]): Token[] {
  const out: Token[] = [];
  for (const t of tokens) {
    if (t.kind !== 'cjk' || t.text.length < 2) {
      out.push(t);
      continue;
    }
    const parts: [number, number, string | undefined][] = [];
    let at = 0;
    let from = 0;
    const text = t.text;
    while (at < text.length) {
      const hit = PARTICLES.find(([p]) => text.startsWith(p, at) && (!HANGUL.test(p) || at + p.length === text.length));
      if (hit) {
        if (at > from) parts.push([from, at, undefined]);
        parts.push([at, at + hit[0].length, hit[1]]);
        at += hit[0].length;
        from = at;
      } else at += (text.codePointAt(at) ?? 0) > 0xffff ? 2 : 1;
    }
    if (parts.length === 0) {
      out.push(t);
      continue;
    }
    if (from < text.length) parts.push([from, text.length, undefined]);
    for (let n = 1; n < parts.length; n++) {
      // "到北京的机票": the attributive particle 的 closes the name a route particle opened (Chinese grammar).
      const [a, b, reading] = parts[n] as [number, number, string | undefined];
      const cut = reading === undefined && (parts[n - 1] as [number, number, string | undefined])[2] !== undefined ? text.indexOf('\u7684', a) : -1;
      // It reads as "of", a function word, so no name or `other` phrase runs through it.
      if (cut > a && cut < b) parts.splice(n, 1, [a, cut, undefined], [cut, cut + 1, 'of'], ...(cut + 1 < b ? [[cut + 1, b, undefined] as [number, number, undefined]] : []));
    }
    for (const [a, b, reading] of parts) {
      const piece = text.slice(a, b);
      out.push({ ...t, text: piece, lower: reading ?? piece, start: t.start + a, end: t.start + b, kind: reading ? 'word' : 'cjk', glued: a > 0 || t.glued });
    }
  }
  return out;
}

/**
 * Function words of French, Spanish, Italian, Portuguese and German, by their grammar (complete closed classes, not
 * words of any request): articles and their contractions with prepositions, personal and possessive pronouns and
 * determiners, demonstratives, the common prepositions, coordinating conjunctions, the complementisers and the
 * negation particles. As English's function words (text.ts `FUNCTION_WORDS`), they carry no content of a request:
 * "je voudrais un billet … pour lundi" asks as "a ticket … for Monday" does. Many are English words too ("son",
 * "pour", "die", "con", "man"), so they count as function words only in a request said in those languages
 * (`foreignFunctionWords`).
 */
export const OTHER_FUNCTION_WORDS: ReadonlySet<string> = new Set(
  `
  le la les l un une des du de d au aux ce cet cette ces je j tu il elle on nous vous ils elles me m te t se s lui leur leurs
  mon ma mes ton ta tes son sa ses notre nos votre vos qui que qu dans sur sous avec sans pour par chez entre vers et ou mais
  donc car ni ne pas y en
  el los las lo una unos unas del al este esta estos estas ese esa esos esas aquel aquella yo él ella nosotros nosotras
  vosotros ellos ellas mi mis tus su sus nuestro nuestra nuestros nuestras le les con sin para por sobre hasta desde hacia
  pero o u e ni no
  il lo gli i uno dei degli delle della dello dell al allo alla ai agli alle dal dallo dalla dall nel nello nella nell nei
  negli nelle sul sullo sulla sull questo questa questi queste quello quella quest io lei noi voi loro mio mia miei mie tuo
  tua suo sua nostro nostra vostro vostra con senza per tra fra su che ma non
  o os as um uma uns umas do da dos das no na nos nas ao aos à às pelo pela pelos pelas em eu ele ela nós eles elas meu
  minha meus minhas seu sua seus suas com sem
  der die das den dem des ein eine einen einem einer eines ich du er sie es wir ihr mein meine meinen meinem meiner dein
  deine sein seine seinen unser unsere euer mit ohne für auf aus bei nach von vom zu zum zur im am ins und oder aber dass
  nicht kein keine
  `
    .split(/\s+/)
    .filter((w) => w.length > 0),
);

/** Distinct forms of `OTHER_FUNCTION_WORDS` that mark a request said in those languages (`saidInOtherLanguage`). */
export const FOREIGN_FUNCTION_FORMS = 3;
/** As many forms English does not have at all mark it too. */
export const FOREIGN_ONLY_FORMS = 2;

/**
 * Whether `words` (lowercase, as said) are a request in one of those languages: at least `FOREIGN_FUNCTION_FORMS`
 * distinct forms of `OTHER_FUNCTION_WORDS` that are none of English's function words (`isEnglishFunction`: "a", "me",
 * "in" are), or `FOREIGN_ONLY_FORMS` that are no English word at all (`isEnglish`: WordNet knows "la", "de", "con", not
 * "je", "une", "cette", "una"). One or two such forms are a name's parts ("Notre Dame", "from Los Angeles to Las
 * Vegas"). Bounded by the words given (a request's tokens).
 */
export function saidInOtherLanguage(words: readonly string[], isEnglishFunction: (word: string) => boolean, isEnglish: (word: string) => boolean): boolean {
  const forms = new Set<string>();
  const only = new Set<string>();
  for (const w of words) {
    if (!OTHER_FUNCTION_WORDS.has(w) || isEnglishFunction(w)) continue;
    forms.add(w);
    if (!only.has(w) && !isEnglish(w)) only.add(w);
    if (forms.size >= FOREIGN_FUNCTION_FORMS || only.size >= FOREIGN_ONLY_FORMS) return true;
  }
  return false;
}

/**
 * The prepositions of French, Spanish, Italian, Portuguese and German that say what kind of thing a noun is ("billet
 * d'avion", "billete de tren", "biglietto del treno", "passagem de ônibus", "Karte von …"), with their contractions
 * with the article: a closed class of the grammar, as `OTHER_FUNCTION_WORDS`.
 */
export const KIND_PREPOSITIONS: ReadonlySet<string> = new Set(
  'de d du des del di dell dello della dei degli delle do da dos das von vom'.split(' '),
);

/** At most this many words of a request are asked whether they say an unread kind (`unreadKinds`). */
export const MAX_KIND_PROBES = 64;

/** How a request's word is read, for `unreadKinds`. */
export interface WordReading {
  /** The word as said (lowercase), before the glossary. */
  readonly said: string;
  /** The word as read (the glossary's English, or as said). */
  readonly read: string;
  /** Whether it starts with a capital letter as said (a name's word: "Madrid", "Nochebuena"). */
  readonly capital: boolean;
  /** Whether a value of the template took it. */
  readonly taken: boolean;
}

/**
 * Words of a request said in another language that say the kind of the thing asked for and are read by nothing
 * (draft-zhou §6.1, identification): the complement of a noun the request reads (glossed, or an English word) through
 * `KIND_PREPOSITIONS` (an article may stand between), itself no function word, no glossary word, no English word, no
 * name and no value a key took ("un billete de tren": the ticket is read, what kind of ticket is not). The claim that
 * the request is the scenario's is then unproven, as a sister said in English leaves it ("a train ticket"). A noun a
 * value took is a key's, not the thing asked for ("clase de negocios"). At most `MAX_KIND_PROBES` words are asked.
 */
export function unreadKinds(words: readonly (WordReading | undefined)[], isEnglish: (word: string) => boolean, isFunction: (word: string) => boolean): string[] {
  const out: string[] = [];
  const n = Math.min(words.length, MAX_KIND_PROBES);
  const readNoun = (w: WordReading) => !w.taken && !w.capital && !isFunction(w.read) && (w.read !== w.said || isEnglish(w.said));
  const unread = (w: WordReading) => !w.taken && !w.capital && w.read === w.said && !isFunction(w.said) && !KIND_PREPOSITIONS.has(w.said) && !isEnglish(w.said);
  for (let i = 0; i + 2 < n; i++) {
    const head = words[i];
    const prep = words[i + 1];
    if (!head || !prep || !readNoun(head) || !KIND_PREPOSITIONS.has(prep.said)) continue;
    let j = i + 2;
    const article = words[j];
    if (article && isFunction(article.said) && !KIND_PREPOSITIONS.has(article.said)) j++;
    const kind = words[j];
    if (kind && unread(kind) && !out.includes(kind.said)) out.push(kind.said);
  }
  return out;
}
