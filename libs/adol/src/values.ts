/**
 * Values in a request as evidence for a tool's parameters (draft-chang §3.4,
 * retrieval-based selection). A request often names no word of the tool that
 * serves it but carries the value one of its parameters takes: "Open
 * https://example.com" holds a URL and the tool that navigates has a parameter
 * of format `uri`; "show a.txt, b.txt and c.txt" holds several paths and the
 * tool that reads many files takes an array of paths; "Hit Enter" names a key
 * and the tool that presses one has a `key` parameter. The shapes are read from
 * the request by its whitespace-separated tokens (each against short anchored
 * patterns: linear, no backtracking across tokens) and from the input schema
 * (type, format, the words of the parameter name and of its description).
 *
 * A file name's extension also says what kind of content it is (`.jpg` an
 * image, `.mp3` audio): `valueWords` gives those words, which the rankers read
 * alongside the request's own.
 *
 * Pure, no IO. Dictionaries keyed by outside text are Maps and Sets.
 */

/** A kind of value a request can hold and a parameter can take. */
export type ValueShape = 'url' | 'path' | 'paths' | 'email' | 'number' | 'time' | 'ref' | 'key' | 'quoted' | 'question';

/**
 * `question` is the request's form rather than a value: a question ("which files changed?") is answered by a tool
 * that only reads, which a tool says with MCP's `annotations.readOnlyHint` (or, without annotations, by a name that
 * begins with a reading verb: get, list, read, search...).
 */
export const VALUE_SHAPES: readonly ValueShape[] = ['url', 'path', 'paths', 'email', 'number', 'time', 'ref', 'key', 'quoted', 'question'];

/** Units of a request read for values (the rest is ignored: hostile text stays cheap). */
const MAX_VALUE_TEXT = 16_384;

/** File extensions and the kind of content they name (IANA top-level media types, and "document", "archive" and "code"). */
const EXTENSION_KIND: ReadonlyMap<string, string> = new Map([
  ...['jpg', 'jpeg', 'png', 'gif', 'webp', 'svg', 'bmp', 'tif', 'tiff', 'ico', 'heic', 'avif'].map((e) => [e, 'image'] as const),
  ...['mp3', 'wav', 'flac', 'ogg', 'm4a', 'aac', 'opus'].map((e) => [e, 'audio'] as const),
  ...['mp4', 'mov', 'avi', 'mkv', 'webm', 'm4v'].map((e) => [e, 'video'] as const),
  ...['pdf', 'doc', 'docx', 'odt', 'rtf', 'xls', 'xlsx', 'ods', 'ppt', 'pptx'].map((e) => [e, 'document'] as const),
  ...['zip', 'tar', 'gz', 'tgz', 'bz2', 'xz', '7z', 'rar'].map((e) => [e, 'archive'] as const),
  ...['txt', 'md', 'markdown', 'rst', 'csv', 'tsv', 'log', 'json', 'jsonl', 'yaml', 'yml', 'toml', 'xml', 'ini', 'cfg', 'conf', 'env', 'lock', 'html', 'htm', 'css', 'scss'].map(
    (e) => [e, 'text'] as const,
  ),
  ...['ts', 'tsx', 'js', 'jsx', 'mjs', 'cjs', 'py', 'rb', 'go', 'rs', 'java', 'kt', 'c', 'h', 'cc', 'cpp', 'hpp', 'cs', 'php', 'sh', 'bash', 'zsh', 'ps1', 'sql', 'swift', 'lua'].map(
    (e) => [e, 'code'] as const,
  ),
]);

/** Keys of a keyboard whose names are not also everyday words. */
const KEY_NAMES: ReadonlySet<string> = new Set([
  'esc',
  'backspace',
  'arrowup',
  'arrowdown',
  'arrowleft',
  'arrowright',
  'pageup',
  'pagedown',
  'capslock',
  'numlock',
  'printscreen',
]);
/**
 * Key names that are everyday words too: a key only when capitalised inside a sentence ("hit Enter", not "enter
 * the code"), or right after a verb of pressing ("hit enter").
 */
const KEY_WORDS: ReadonlySet<string> = new Set(['enter', 'return', 'escape', 'tab', 'space', 'home', 'end', 'delete', 'insert', 'shift', 'control', 'alt']);

/** Verbs of pressing a key: what follows them is a key name when it is one. */
const PRESS_VERBS: ReadonlySet<string> = new Set(['press', 'presses', 'pressed', 'pressing', 'hit', 'hits', 'hitting', 'tap', 'taps', 'tapping', 'strike']);

const URL_RE = /^(?:[a-z][a-z0-9+.-]{1,15}:\/\/[^\s/]|www\.[^\s.]+\.)/i;
const EMAIL_RE = /^[^@\s]{1,64}@[^@\s.]{1,63}(?:\.[^@\s.]{1,63}){1,8}$/;
const FILE_RE = /^[^\s/\\]{0,200}\.([a-z][a-z0-9]{0,7})$/i;
const PATH_START_RE = /^(?:~|\.{1,2})?[/\\]|^[a-z]:\\/i;
const TIME_RE = /^(?:[01]?\d|2[0-3])(?::[0-5]\d){1,2}$|^(?:1[0-2]|0?\d)(?::[0-5]\d)?(?:am|pm)$/i;
const NUMBER_RE = /^[#№]?\d{1,15}(?:[.,]\d{1,15})?$/;
const VERSION_RE = /^v\d{1,6}(?:\.\d{1,6}){1,3}$/i;
const SHA_RE = /^[0-9a-f]{7,40}$/;
const CHORD_RE = /^(?:ctrl|control|alt|shift|cmd|command|meta|option|super)\+\S/i;
const FUNCTION_KEY_RE = /^f(?:[1-9]|1[0-2])$/i;
/** Punctuation taken off a token's start and end (not inside: a URL keeps its colons and slashes). */
const LEADING: ReadonlySet<string> = new Set(['(', '"', "'", '“', '‘', '«', '[', '{', '<']);
const TRAILING: ReadonlySet<string> = new Set([')', '"', "'", '”', '’', '»', ']', '}', '>', '.', ',', ';', ':', '!', '?']);
const SENTENCE_END: ReadonlySet<string> = new Set(['.', ',', ';', ':', '!', '?', ')']);
const QUOTE_OPEN = new Set(['"', '“', '‘', '«', "'", '`']);
const QUOTE_CLOSE = new Set(['"', '”', '’', '»', "'", '`']);

/**
 * Words that open a question without a question mark. Not the auxiliaries: "have the server send it", "do a
 * backup" are requests; "is it up?" is a question by its mark.
 */
const QUESTION_WORDS: ReadonlySet<string> = new Set(['what', "what's", 'whats', 'which', 'who', "who's", 'whom', 'whose', 'where', "where's", 'when', 'why', 'how', "how's", 'any', 'anything', 'anyone', 'anybody']);
/** A request that opens with these and "you" asks for an action politely ("can you delete it?"), not a question. */
const POLITE_MODALS: ReadonlySet<string> = new Set(['can', 'could', 'would', 'will', 'please', 'pls']);
/** A tool name's first word that says it only reads (where the tool has no `readOnlyHint`). */
const READ_VERBS: ReadonlySet<string> = new Set(['get', 'list', 'read', 'search', 'find', 'show', 'view', 'describe', 'fetch', 'query', 'lookup', 'open', 'status', 'log', 'diff', 'info', 'count', 'check', 'inspect', 'browse', 'retrieve', 'download', 'export']);

/** Whether a request asks a question (rather than for an action): a question mark or a question word first, not a polite request. */
export function isQuestion(text: string): boolean {
  if (typeof text !== 'string') return false;
  const t = head(text).trim();
  const first = (t.split(/\s+/, 1)[0] ?? '').toLowerCase().replace(/^[¿¡"'(]+/, '');
  const second = (t.split(/\s+/, 2)[1] ?? '').toLowerCase();
  if (POLITE_MODALS.has(first) && (first === 'please' || first === 'pls' || second === 'you')) return false;
  const last = t[t.length - 1];
  return last === '?' || last === '？' || QUESTION_WORDS.has(first);
}

/** Whether a tool only reads: MCP's `annotations.readOnlyHint`, or without it a name beginning with a reading verb. */
export function readsOnly(tool: { name?: unknown; annotations?: unknown }): boolean {
  const a = tool.annotations;
  if (isRecord(a) && typeof a['readOnlyHint'] === 'boolean') return a['readOnlyHint'];
  if (typeof tool.name !== 'string') return false;
  const first = [...wordSet(tool.name.slice(0, 256))][0];
  return first !== undefined && READ_VERBS.has(first);
}

export interface RequestValues {
  /** The shapes of the values the request holds. */
  shapes: Set<ValueShape>;
  /** Words for what the values are (an image file's "image"), to read beside the request's words. */
  words: string[];
}

function head(s: string): string {
  return s.length <= MAX_VALUE_TEXT ? s : s.slice(0, MAX_VALUE_TEXT);
}

/** `t` without the characters of `lead` at its start and of `trail` at its end (a loop, not a pattern: linear on any input). */
function trim(t: string, lead: ReadonlySet<string>, trail: ReadonlySet<string>): string {
  let a = 0;
  let b = t.length;
  while (a < b && lead.has(t[a] as string)) a++;
  while (b > a && trail.has(t[b - 1] as string)) b--;
  return t.slice(a, b);
}

const NOTHING: ReadonlySet<string> = new Set();

/** Whether the request quotes a phrase: a token opening with a quote and a later (or the same) one closing it. */
function hasQuotedPhrase(tokens: readonly string[]): boolean {
  let open = false;
  for (const t of tokens) {
    if (t.length === 0) continue;
    const first = t[0] as string;
    if (!open && QUOTE_OPEN.has(first)) {
      open = true;
      // The same token may close it: 'v2' or "fix typo" in one piece.
      const inner = trim(t.slice(1), NOTHING, SENTENCE_END);
      if (inner.length > 0 && QUOTE_CLOSE.has(inner[inner.length - 1] as string)) return true;
      continue;
    }
    if (open) {
      const tail = trim(t, NOTHING, SENTENCE_END);
      if (tail.length > 0 && QUOTE_CLOSE.has(tail[tail.length - 1] as string)) return true;
    }
  }
  return false;
}

/** The shape of one token of a request (its edge punctuation taken off), or undefined. `first`: the token begins the request. */
function tokenShape(raw: string, first: boolean, afterPress: boolean): { shape: ValueShape; word?: string } | undefined {
  if (URL_RE.test(raw)) return { shape: 'url' };
  const t = trim(raw, LEADING, TRAILING);
  if (t.length === 0) return undefined;
  if (EMAIL_RE.test(t)) return { shape: 'email' };
  if (TIME_RE.test(t)) return { shape: 'time' };
  if (VERSION_RE.test(t)) return { shape: 'ref' };
  if (SHA_RE.test(t) && /\d/.test(t) && /[a-f]/.test(t)) return { shape: 'ref' };
  if (NUMBER_RE.test(t)) return { shape: 'number' };
  const lower = t.toLowerCase();
  if (KEY_NAMES.has(lower) || CHORD_RE.test(t) || (FUNCTION_KEY_RE.test(t) && t[0] === 'F')) return { shape: 'key' };
  if (KEY_WORDS.has(lower) && (afterPress || (!first && t[0] !== lower[0] && t.slice(1) === lower.slice(1)))) return { shape: 'key' };
  // A path's last segment names the file: src/app.ts.
  const cut = Math.max(t.lastIndexOf('/'), t.lastIndexOf('\\'));
  const file = FILE_RE.exec(cut >= 0 ? t.slice(cut + 1) : t);
  const kind = file ? EXTENSION_KIND.get((file[1] as string).toLowerCase()) : undefined;
  if (kind !== undefined) return { shape: 'path', word: kind };
  if (PATH_START_RE.test(t)) return { shape: 'path' };
  return undefined;
}

/** The values a request holds, by shape, and the words their kinds give. */
export function requestValues(text: string): RequestValues {
  const shapes = new Set<ValueShape>();
  const words: string[] = [];
  if (typeof text !== 'string') return { shapes, words };
  const tokens = head(text).split(/\s+/);
  let paths = 0;
  tokens.forEach((tok, i) => {
    const prev = tokens[i - 1] ?? '';
    const last = prev[prev.length - 1];
    const s = tokenShape(tok, i === 0 || last === '.' || last === '!' || last === '?', PRESS_VERBS.has(prev.toLowerCase()));
    if (!s) return;
    shapes.add(s.shape);
    if (s.shape === 'path') paths++;
    if (s.word !== undefined && !words.includes(s.word)) words.push(s.word);
  });
  if (paths >= 2) shapes.add('paths');
  if (hasQuotedPhrase(tokens)) shapes.add('quoted');
  if (isQuestion(text)) shapes.add('question');
  return { shapes, words };
}

// ---------------------------------------------------------------------------
// Parameters.
// ---------------------------------------------------------------------------

const URL_WORDS: ReadonlySet<string> = new Set(['url', 'uri', 'urls', 'uris', 'link', 'href', 'website', 'endpoint', 'webpage']);
const PATH_WORDS: ReadonlySet<string> = new Set(['path', 'paths', 'file', 'files', 'filename', 'filepath', 'dir', 'directory', 'folder']);
/** Endpoints of a move or copy: paths when the tool's own name is about files ("move_file": source, destination). */
const ENDPOINT_WORDS: ReadonlySet<string> = new Set(['source', 'destination', 'src', 'dest', 'target', 'from', 'to']);
const MANY_PATH_WORDS: ReadonlySet<string> = new Set(['paths', 'files', 'filenames']);
const TIME_WORDS: ReadonlySet<string> = new Set(['time', 'date', 'datetime', 'timestamp', 'since', 'until', 'deadline', 'hh']);
const REF_WORDS: ReadonlySet<string> = new Set(['ref', 'revision', 'rev', 'sha', 'tag', 'commit', 'version']);
const KEY_PARAM_WORDS: ReadonlySet<string> = new Set(['key', 'keys', 'keystroke', 'shortcut', 'hotkey']);
const TEXT_WORDS: ReadonlySet<string> = new Set(['message', 'content', 'contents', 'text', 'body', 'title', 'query', 'note', 'comment', 'prompt', 'pattern', 'search', 'observations', 'description']);
const URL_FORMATS: ReadonlySet<string> = new Set(['uri', 'url', 'iri', 'uri-reference', 'iri-reference']);
const TIME_FORMATS: ReadonlySet<string> = new Set(['time', 'date', 'date-time', 'duration']);

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Lowercase words of an identifier or a description (identifiers split: `filePath` → file, path). */
function wordSet(s: string): Set<string> {
  const split = s.slice(0, 2048).replace(/([a-z0-9])([A-Z])/g, '$1 $2');
  return new Set(split.toLowerCase().split(/[^\p{L}\p{N}]+/u).filter((w) => w.length > 0));
}

function some(ws: ReadonlySet<string>, of: ReadonlySet<string>): boolean {
  for (const w of ws) if (of.has(w)) return true;
  return false;
}

/** The shapes one parameter takes, from its name, type, format and description. */
function propertyShapes(name: string, sub: unknown, out: Set<ValueShape>, fileTool: boolean): void {
  const nameWords = wordSet(name);
  const p = isRecord(sub) ? sub : {};
  const type = typeof p['type'] === 'string' ? p['type'] : Array.isArray(p['type']) ? String(p['type'][0]) : '';
  const format = typeof p['format'] === 'string' ? p['format'].slice(0, 32).toLowerCase() : '';
  const desc = typeof p['description'] === 'string' ? p['description'].slice(0, 2048) : '';
  const descWords = wordSet(desc);
  const items = isRecord(p['items']) ? p['items'] : undefined;
  const itemFormat = items && typeof items['format'] === 'string' ? items['format'].slice(0, 32).toLowerCase() : '';
  if (URL_FORMATS.has(format) || URL_FORMATS.has(itemFormat) || some(nameWords, URL_WORDS) || descWords.has('url') || descWords.has('uri')) out.add('url');
  const pathy = format === 'path' || some(nameWords, PATH_WORDS) || descWords.has('path') || descWords.has('paths') || (fileTool && (type === 'string' || type === '') && some(nameWords, ENDPOINT_WORDS));
  if (pathy) out.add('path');
  if (type === 'array' && (some(nameWords, MANY_PATH_WORDS) || (pathy && items !== undefined))) out.add('paths');
  if (format === 'email' || nameWords.has('email')) out.add('email');
  if (type === 'number' || type === 'integer') out.add('number');
  if (TIME_FORMATS.has(format) || some(nameWords, TIME_WORDS) || desc.includes('HH:MM') || desc.includes('ISO 8601')) out.add('time');
  if (some(nameWords, REF_WORDS)) out.add('ref');
  if (some(nameWords, KEY_PARAM_WORDS) && (type === 'string' || type === 'array' || type === '')) out.add('key');
  if ((type === 'string' || type === '') && some(nameWords, TEXT_WORDS)) out.add('quoted');
}

function collect(schema: unknown, out: Set<ValueShape>, depth: number, budget: { n: number }, fileTool: boolean): void {
  if (!isRecord(schema) || depth > 4 || budget.n <= 0) return;
  const props = schema['properties'];
  if (isRecord(props)) {
    for (const name of Object.keys(props)) {
      if (--budget.n <= 0) return;
      propertyShapes(name, props[name], out, fileTool);
      collect(props[name], out, depth + 1, budget, fileTool);
    }
  }
  if (isRecord(schema['items'])) collect(schema['items'], out, depth + 1, budget, fileTool);
  for (const k of ['anyOf', 'oneOf', 'allOf']) {
    const branches = schema[k];
    if (Array.isArray(branches)) for (const b of branches.slice(0, 32)) collect(b, out, depth + 1, budget, fileTool);
  }
}

/**
 * The shapes of value a tool's input schema takes (its parameters at any depth up to 4, at most 200 of them).
 * `toolName`: where its words are about files, a `source` or `destination` string is a path.
 */
export function parameterShapes(inputSchema: unknown, toolName = ''): Set<ValueShape> {
  const out = new Set<ValueShape>();
  collect(inputSchema, out, 0, { n: 200 }, some(wordSet(typeof toolName === 'string' ? toolName : ''), PATH_WORDS));
  return out;
}

/**
 * The `values` ranker: per tool, Σ over the request's value shapes that the
 * tool's parameters take of that shape's IDF over the list (a shape every tool
 * takes says nothing; one only a few take says much). All zero when the request
 * holds no value, or none that any tool takes.
 */
export function valueScores(toolShapes: readonly ReadonlySet<ValueShape>[], request: ReadonlySet<ValueShape>): number[] {
  const n = toolShapes.length;
  const out = new Array<number>(n).fill(0);
  for (const shape of request) {
    let df = 0;
    for (const s of toolShapes) if (s.has(shape)) df++;
    if (df === 0 || df === n) continue;
    const idf = Math.log((n + 1) / (df + 0.5));
    toolShapes.forEach((s, i) => {
      if (s.has(shape)) out[i] = (out[i] as number) + idf;
    });
  }
  return out;
}
