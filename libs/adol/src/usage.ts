/**
 * Selection that learns from use (draft-chang §3.4, retrieval-based tool selection): a request that led a client to
 * call a tool becomes a learned example request of that tool, read by selection's existing `examples` ranker (and the
 * tool text BM25 reads) through `SelectOptions.learnedExamples`, not by a ranker of its own. Domain jargon ("stage",
 * "open an MR") that no general resource relates to a tool is what this learns: the words of the client's own past
 * requests.
 *
 * Scope (one client must not be able to steer everyone's selection):
 *  - a client's learned examples serve that client;
 *  - an example counts for every client only once at least `sharedClients` (default 2) distinct clients recorded the
 *    same tool for the same request, the same meaning the same normalized text (`requestKey`: case, whitespace and
 *    trailing sentence punctuation aside). No looser equivalence: two requests that merely look alike may not mean
 *    the same tool.
 *
 * Bounded: at most `perTool` examples per tool, `perList` per list, `total` overall (each the least recently recorded
 * goes first; for a tool, one no other client shares before a shared one), `maxClientsPerExample` clients remembered
 * per example, request text cut to `maxTextChars`. Time is an input (`now`): an example older than `maxAgeMs` stops
 * counting and is dropped when next met. Outside strings (list ids, tool names, clients, requests) key Maps only.
 */

export interface UsageOptions {
  /** The clock (ms since the epoch); default Date.now. */
  now?: () => number;
  /** Most examples kept per tool (default 16). */
  perTool?: number;
  /** Most examples kept per list (default 1024). */
  perList?: number;
  /** Most examples kept overall (default 20000). */
  total?: number;
  /** Longest request text kept, in UTF-16 units (default 512); longer ones are cut. */
  maxTextChars?: number;
  /** An example recorded longer ago than this stops counting (default 30 days). */
  maxAgeMs?: number;
  /** Distinct clients that must record the same tool for the same request before it serves every client (default 2). */
  sharedClients?: number;
  /** Most clients remembered per example, the most recent (default 16). */
  maxClientsPerExample?: number;
  /** `attributeCall`: how long after a selection with a query the next call is taken to serve it (default 60 s). */
  attributionWindowMs?: number;
}

/** Longest list id, tool name or client id recorded; a longer one is not recorded (these are identifiers, not text). */
export const MAX_USAGE_ID_LENGTH = 256;
/** Most clients with a pending selection (`noteSelection`) remembered at once. */
const MAX_PENDING = 4096;
/** Most (list, client) answers of `examples` memoized per list. */
const MAX_MEMOS = 256;

interface Example {
  /** The request as first recorded (normalized whitespace, cut). */
  text: string;
  /** Client → when it last recorded this tool for this request. */
  clients: Map<string, number>;
  /** The latest of `clients`. */
  last: number;
}

interface ListState {
  /** Tool name → request key → example. */
  tools: Map<string, Map<string, Example>>;
  size: number;
  /** Bumped on every change: a memoized `examples` answer of an older version is recomputed. */
  version: number;
  /** Per client: its last `examples` answer, kept as the same Map while its content is the same. */
  memos: Map<string, { version: number; until: number; map: ReadonlyMap<string, readonly string[]> }>;
}

const DAY = 86_400_000;

function positiveInt(v: number | undefined, fallback: number, name: string): number {
  if (v === undefined) return fallback;
  if (!Number.isInteger(v) || v < 1) throw new TypeError(`UsageStore: ${name} must be an integer >= 1`);
  return v;
}

/** A usable identifier: a non-empty string of at most MAX_USAGE_ID_LENGTH units. */
function isId(v: unknown): v is string {
  return typeof v === 'string' && v.length > 0 && v.length <= MAX_USAGE_ID_LENGTH;
}

function isSpace(c: number): boolean {
  return c <= 0x20 || c === 0x7f || c === 0x85 || c === 0xa0 || c === 0x1680 || (c >= 0x2000 && c <= 0x200a) || c === 0x2028 || c === 0x2029 || c === 0x202f || c === 0x205f || c === 0x3000 || c === 0xfeff;
}

/**
 * The request as kept: control characters and runs of white space as one space, trimmed, lone surrogates dropped,
 * cut to `max` units (never inside a surrogate pair). One pass over at most 4·max units: bounded whatever the input.
 */
export function normalizeRequest(text: string, max = 512): string {
  const src = text.length > max * 4 ? text.slice(0, max * 4) : text;
  let out = '';
  let space = false;
  for (let i = 0; i < src.length && out.length < max; i++) {
    const c = src.charCodeAt(i);
    if (isSpace(c)) {
      space = out.length > 0;
      continue;
    }
    let ch: string;
    if (c >= 0xd800 && c <= 0xdbff) {
      const d = src.charCodeAt(i + 1);
      if (!(d >= 0xdc00 && d <= 0xdfff)) continue;
      ch = src.slice(i, i + 2);
      i++;
    } else if (c >= 0xdc00 && c <= 0xdfff) continue;
    else ch = src[i] as string;
    const add = (space ? ' ' : '') + ch;
    if (out.length + add.length > max) break;
    out += add;
    space = false;
  }
  return out;
}

/** The equivalence of two requests (§3.4 shared examples): the normalized text, lower-cased, without trailing . ! ? */
export function requestKey(normalized: string): string {
  let end = normalized.length;
  while (end > 0) {
    const ch = normalized[end - 1];
    if (ch !== '.' && ch !== '!' && ch !== '?' && ch !== ' ') break;
    end--;
  }
  return normalized.slice(0, end).toLowerCase();
}

export class UsageStore {
  private readonly now: () => number;
  private readonly perTool: number;
  private readonly perList: number;
  private readonly total: number;
  private readonly maxTextChars: number;
  private readonly maxAgeMs: number;
  private readonly sharedClients: number;
  private readonly maxClients: number;
  private readonly windowMs: number;
  private readonly lists = new Map<string, ListState>();
  private readonly pending = new Map<string, { listId: string; request: string; at: number }>();
  private size = 0;

  constructor(opts: UsageOptions = {}) {
    this.now = opts.now ?? Date.now;
    this.perTool = positiveInt(opts.perTool, 16, 'perTool');
    this.perList = positiveInt(opts.perList, 1024, 'perList');
    this.total = positiveInt(opts.total, 20_000, 'total');
    this.maxTextChars = positiveInt(opts.maxTextChars, 512, 'maxTextChars');
    this.maxAgeMs = positiveInt(opts.maxAgeMs, 30 * DAY, 'maxAgeMs');
    this.sharedClients = positiveInt(opts.sharedClients, 2, 'sharedClients');
    this.maxClients = Math.max(positiveInt(opts.maxClientsPerExample, 16, 'maxClientsPerExample'), this.sharedClients);
    this.windowMs = positiveInt(opts.attributionWindowMs, 60_000, 'attributionWindowMs');
  }

  /** Examples kept overall. */
  get examplesKept(): number {
    return this.size;
  }

  /**
   * Records that `client`'s `request` led to a call of `tool` in list `listId` (at `at`, default now). Returns false,
   * recording nothing, for an id that is not a non-empty string of at most MAX_USAGE_ID_LENGTH units or a request
   * with no text. The caller checks that the tool is in the list: a name selection does not hold is never read.
   */
  record(listId: unknown, tool: unknown, request: unknown, client: unknown, at: number = this.now()): boolean {
    if (!isId(listId) || !isId(tool) || !isId(client) || typeof request !== 'string' || !Number.isFinite(at)) return false;
    const text = normalizeRequest(request, this.maxTextChars);
    if (text === '') return false;
    const key = requestKey(text);
    let list = this.lists.get(listId);
    if (!list) {
      list = { tools: new Map(), size: 0, version: 0, memos: new Map() };
      this.lists.set(listId, list);
    }
    let byKey = list.tools.get(tool);
    if (!byKey) {
      byKey = new Map();
      list.tools.set(tool, byKey);
    }
    let ex = byKey.get(key);
    if (!ex) {
      ex = { text, clients: new Map(), last: at };
      byKey.set(key, ex);
      list.size++;
      this.size++;
    }
    // Re-inserted so the Map's order is the clients' recency; the oldest go past maxClients.
    ex.clients.delete(client);
    ex.clients.set(client, at);
    ex.last = Math.max(ex.last, at);
    for (const c of ex.clients.keys()) {
      if (ex.clients.size <= this.maxClients) break;
      ex.clients.delete(c);
    }
    list.version++;
    this.bound(list, byKey);
    return true;
  }

  /**
   * The learned examples serving `client` in list `listId`, by tool name (most recent first): its own, and those
   * `sharedClients` distinct clients recorded, younger than `maxAgeMs`. The same Map object while nothing changed
   * (selection's per-list caches are keyed by it).
   */
  examples(listId: unknown, client: unknown): ReadonlyMap<string, readonly string[]> {
    const list = isId(listId) ? this.lists.get(listId) : undefined;
    if (!list) return EMPTY;
    const who = isId(client) ? client : undefined;
    const now = this.now();
    const memoKey = who ?? '';
    const memo = list.memos.get(memoKey);
    if (memo && memo.version === list.version && now < memo.until) return memo.map;
    const cutoff = now - this.maxAgeMs;
    let until = Number.POSITIVE_INFINITY;
    const out = new Map<string, string[]>();
    for (const [tool, byKey] of list.tools) {
      const chosen: Example[] = [];
      for (const ex of byKey.values()) {
        let fresh = 0;
        let own = false;
        for (const [c, at] of ex.clients) {
          if (at <= cutoff) continue;
          fresh++;
          if (c === who) own = true;
          until = Math.min(until, at + this.maxAgeMs);
        }
        if (own || fresh >= this.sharedClients) chosen.push(ex);
      }
      if (chosen.length > 0) out.set(tool, chosen.sort((a, b) => b.last - a.last).map((e) => e.text));
    }
    // Unchanged for this client (another client's call, say): the same Map, so selection's caches for it live on.
    const map = memo && sameExamples(memo.map, out) ? memo.map : out;
    if (!memo && list.memos.size >= MAX_MEMOS) list.memos.clear();
    list.memos.set(memoKey, { version: list.version, until, map });
    return map;
  }

  /** Implicit attribution, part 1: `client` selected in `listId` with `request`; its next call within the window serves it. */
  noteSelection(listId: unknown, client: unknown, request: unknown): void {
    if (!isId(listId) || !isId(client) || typeof request !== 'string') return;
    const text = normalizeRequest(request, this.maxTextChars);
    if (text === '') return;
    this.pending.delete(client);
    this.pending.set(client, { listId, request: text, at: this.now() });
    for (const c of this.pending.keys()) {
      if (this.pending.size <= MAX_PENDING) break;
      this.pending.delete(c);
    }
  }

  /**
   * Implicit attribution, part 2: `client` called `tool` (a tool of the list: the caller checks). The request of its
   * selection within `attributionWindowMs` before, in the same list, is recorded for the tool; the selection is used
   * once (only the first call after it). Returns whether anything was recorded.
   */
  attributeCall(listId: unknown, client: unknown, tool: unknown): boolean {
    if (!isId(client)) return false;
    const p = this.pending.get(client);
    if (!p) return false;
    this.pending.delete(client);
    const now = this.now();
    if (p.listId !== listId || now - p.at > this.windowMs || now < p.at) return false;
    return this.record(listId, tool, p.request, client, now);
  }

  /** Drops examples past their age, then the least recent while a bound is exceeded. */
  private bound(list: ListState, byKey: Map<string, Example>): void {
    while (byKey.size > this.perTool) this.evictFrom(list, byKey, true);
    while (list.size > this.perList) this.evictOldest([list]);
    while (this.size > this.total) this.evictOldest([...this.lists.values()]);
  }

  /** Evicts one example of a tool: expired first, then (`preferUnshared`) the least recent one fewer than sharedClients share. */
  private evictFrom(list: ListState, byKey: Map<string, Example>, preferUnshared: boolean): void {
    const cutoff = this.now() - this.maxAgeMs;
    let victim: string | undefined;
    let victimRank: [number, number] | undefined;
    for (const [k, ex] of byKey) {
      const shared = ex.clients.size >= this.sharedClients ? 1 : 0;
      const rank: [number, number] = [ex.last <= cutoff ? 0 : preferUnshared ? 1 + shared : 1, ex.last];
      if (!victimRank || rank[0] < victimRank[0] || (rank[0] === victimRank[0] && rank[1] < victimRank[1])) {
        victim = k;
        victimRank = rank;
      }
    }
    if (victim === undefined) return;
    byKey.delete(victim);
    list.size--;
    this.size--;
  }

  /** Evicts the least recent example of these lists (whole scan: bounded by `total`). */
  private evictOldest(lists: ListState[]): void {
    let best: { list: ListState; tool: string; byKey: Map<string, Example>; key: string; last: number } | undefined;
    for (const list of lists) {
      for (const [tool, byKey] of list.tools) {
        for (const [key, ex] of byKey) if (!best || ex.last < best.last) best = { list, tool, byKey, key, last: ex.last };
      }
    }
    if (!best) return;
    best.byKey.delete(best.key);
    if (best.byKey.size === 0) best.list.tools.delete(best.tool);
    best.list.size--;
    best.list.version++;
    this.size--;
    if (best.list.size === 0) for (const [id, l] of this.lists) if (l === best.list) this.lists.delete(id);
  }
}

const EMPTY: ReadonlyMap<string, readonly string[]> = new Map();

function sameExamples(a: ReadonlyMap<string, readonly string[]>, b: ReadonlyMap<string, readonly string[]>): boolean {
  if (a.size !== b.size) return false;
  for (const [tool, xs] of a) {
    const ys = b.get(tool);
    if (!ys || ys.length !== xs.length || xs.some((x, i) => x !== ys[i])) return false;
  }
  return true;
}
