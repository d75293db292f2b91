/**
 * Selection that learns from use (draft-chang §3.4, retrieval-based tool selection): a request that led a client to
 * call a tool (and the call succeeded) becomes a learned example request of that tool, read by selection through
 * `SelectOptions.learnedExamples` (select.ts `learnedBoost`). Domain jargon ("stage", "open an MR") that no general
 * resource relates to a tool is what this learns: the words of the client's own past requests.
 *
 * Scope (one client must not be able to steer anyone else's selection):
 *  - a client's learned examples serve that client only (the default);
 *  - only where the operator sets `sharedClients` does an example also serve every client, once at least that many
 *    distinct clients recorded the same tool for the same request, the same meaning the same normalized text
 *    (`requestKey`: case, whitespace and trailing sentence punctuation aside). Clients are principal ids: whoever
 *    holds that many credentials can still steer everyone's selection for requests near theirs (ARCHITECTURE.md).
 *
 * Bounded, per client: each client's examples are its own (a request several clients said is kept once per client):
 * at most `perTool` per (client, tool), `perClient` per client and list (each the client's least recently recorded
 * goes first), `perList` per list and `total` overall (the least recent example of the client holding the most goes
 * first: one client cannot evict another's examples while it holds more). Request text cut to `maxTextChars`. Time is
 * an input (`now`): an example older than `maxAgeMs` stops counting when read and is dropped when its client next
 * records in the list (or by a bound).
 *
 * Implicit attribution (`noteSelection` / `takeAttribution`): within one MCP session, the first call after a
 * selection with a query, of a tool that selection returned, within `attributionWindowMs`, serves that query. Any
 * call consumes the pending query. Outside strings (list ids, tool names, clients, sessions, requests) key Maps only.
 */

export interface UsageOptions {
  /** The clock (ms since the epoch); default Date.now. */
  now?: () => number;
  /** Most examples kept per client and tool (default 16). */
  perTool?: number;
  /** Most examples kept per client and list (default 256). */
  perClient?: number;
  /** Most examples kept per list (default 4096). */
  perList?: number;
  /** Most examples kept overall (default 20000). */
  total?: number;
  /** Longest request text kept, in UTF-16 units (default 512); longer ones are cut. */
  maxTextChars?: number;
  /** An example recorded longer ago than this stops counting (default 30 days). */
  maxAgeMs?: number;
  /**
   * Opt-in: distinct clients that must record the same tool for the same request before it serves every client
   * (at least 2). Unset (the default): a client's examples serve that client only.
   */
  sharedClients?: number;
  /** Implicit attribution: how long after a selection with a query the next call is taken to serve it (default 60 s). */
  attributionWindowMs?: number;
}

/** Longest list id, tool name, client or session id recorded; a longer one is not recorded (identifiers, not text). */
export const MAX_USAGE_ID_LENGTH = 256;
/** Most (client, session) pending selections (`noteSelection`) remembered at once. */
const MAX_PENDING = 4096;
/** Most tool names a pending selection remembers (what the selection returned). */
const MAX_PENDING_TOOLS = 256;
/** Most (list, client) answers of `examples` memoized per list. */
const MAX_MEMOS = 256;

interface Example {
  /** The request as first recorded (normalized whitespace, cut). */
  text: string;
  /** When this client last recorded this tool for this request. */
  at: number;
}

interface ClientState {
  /** Tool name → request key → example. */
  tools: Map<string, Map<string, Example>>;
  size: number;
}

interface ListState {
  clients: Map<string, ClientState>;
  size: number;
  /** Bumped on every change: a memoized `examples` answer of an older version is recomputed. */
  version: number;
  /** Per client: its last `examples` answer, kept as the same Map while its content is the same. */
  memos: Map<string, { version: number; until: number; map: ReadonlyMap<string, readonly string[]> }>;
}

interface Pending {
  listId: string;
  request: string;
  at: number;
  tools: ReadonlySet<string>;
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
  private readonly perClient: number;
  private readonly perList: number;
  private readonly total: number;
  private readonly maxTextChars: number;
  private readonly maxAgeMs: number;
  /** Undefined: nothing is shared (the default). */
  private readonly sharedClients: number | undefined;
  private readonly windowMs: number;
  private readonly lists = new Map<string, ListState>();
  /** (client, session) → the selection its next call may serve. */
  private readonly pending = new Map<string, Pending>();
  private size = 0;

  constructor(opts: UsageOptions = {}) {
    this.now = opts.now ?? Date.now;
    this.perTool = positiveInt(opts.perTool, 16, 'perTool');
    this.perClient = positiveInt(opts.perClient, 256, 'perClient');
    this.perList = positiveInt(opts.perList, 4096, 'perList');
    this.total = positiveInt(opts.total, 20_000, 'total');
    this.maxTextChars = positiveInt(opts.maxTextChars, 512, 'maxTextChars');
    this.maxAgeMs = positiveInt(opts.maxAgeMs, 30 * DAY, 'maxAgeMs');
    if (opts.sharedClients !== undefined && (!Number.isInteger(opts.sharedClients) || opts.sharedClients < 2)) throw new TypeError('UsageStore: sharedClients must be an integer >= 2');
    this.sharedClients = opts.sharedClients;
    this.windowMs = positiveInt(opts.attributionWindowMs, 60_000, 'attributionWindowMs');
  }

  /** Examples kept overall. */
  get examplesKept(): number {
    return this.size;
  }

  /**
   * Records that `client`'s `request` led to a successful call of `tool` in list `listId` (at `at`, default now).
   * Returns false, recording nothing, for an id that is not a non-empty string of at most MAX_USAGE_ID_LENGTH units or
   * a request with no text. The caller checks that the tool is in the list and that the call succeeded.
   */
  record(listId: unknown, tool: unknown, request: unknown, client: unknown, at: number = this.now()): boolean {
    if (!isId(listId) || !isId(tool) || !isId(client) || typeof request !== 'string' || !Number.isFinite(at)) return false;
    const text = normalizeRequest(request, this.maxTextChars);
    if (text === '') return false;
    const key = requestKey(text);
    let list = this.lists.get(listId);
    if (!list) {
      list = { clients: new Map(), size: 0, version: 0, memos: new Map() };
      this.lists.set(listId, list);
    }
    let mine = list.clients.get(client);
    if (!mine) {
      mine = { tools: new Map(), size: 0 };
      list.clients.set(client, mine);
    }
    let byKey = mine.tools.get(tool);
    if (!byKey) {
      byKey = new Map();
      mine.tools.set(tool, byKey);
    }
    const ex = byKey.get(key);
    // Re-inserted so each Map's order is recency: the first entry is the least recent.
    byKey.delete(key);
    byKey.set(key, { text: ex?.text ?? text, at: Math.max(ex?.at ?? at, at) });
    if (!ex) {
      mine.size++;
      list.size++;
      this.size++;
    }
    list.version++;
    this.dropExpired(list, mine);
    this.bound(list, mine, byKey);
    return true;
  }

  /**
   * The learned examples serving `client` in list `listId`, by tool name (most recent first): its own, and (only with
   * `sharedClients` set) those that many distinct clients recorded, younger than `maxAgeMs`. The same Map object while
   * nothing changed for this client.
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
    /** Tool → request key → [text, latest, distinct clients]. */
    const chosen = new Map<string, Map<string, { text: string; at: number; clients: number; own: boolean }>>();
    const sources = this.sharedClients !== undefined ? [...list.clients] : who !== undefined && list.clients.has(who) ? [[who, list.clients.get(who) as ClientState] as const] : [];
    for (const [c, state] of sources) {
      for (const [tool, byKey] of state.tools) {
        for (const [key, ex] of byKey) {
          if (ex.at <= cutoff) continue;
          until = Math.min(until, ex.at + this.maxAgeMs);
          let perKey = chosen.get(tool);
          if (!perKey) chosen.set(tool, (perKey = new Map()));
          const got = perKey.get(key);
          if (got) {
            got.clients++;
            got.own ||= c === who;
            got.at = Math.max(got.at, ex.at);
          } else perKey.set(key, { text: ex.text, at: ex.at, clients: 1, own: c === who });
        }
      }
    }
    const out = new Map<string, string[]>();
    for (const [tool, perKey] of chosen) {
      const xs = [...perKey.values()].filter((x) => x.own || (this.sharedClients !== undefined && x.clients >= this.sharedClients));
      if (xs.length > 0) out.set(tool, xs.sort((a, b) => b.at - a.at).map((x) => x.text));
    }
    // Unchanged for this client (another client's call, say): the same Map object.
    const map = memo && sameExamples(memo.map, out) ? memo.map : out;
    if (!memo && list.memos.size >= MAX_MEMOS) list.memos.clear();
    list.memos.set(memoKey, { version: list.version, until, map });
    return map;
  }

  /**
   * Implicit attribution, part 1: in MCP session `session`, `client` selected in `listId` with `request` and was
   * answered `returned` (tool names). Without a session nothing is noted (no attribution across sessions).
   */
  noteSelection(listId: unknown, client: unknown, session: unknown, request: unknown, returned: readonly unknown[]): void {
    if (!isId(listId) || !isId(client) || !isId(session) || typeof request !== 'string' || !Array.isArray(returned)) return;
    const text = normalizeRequest(request, this.maxTextChars);
    const slot = pendingKey(client, session);
    this.pending.delete(slot);
    if (text === '') return;
    const tools = new Set(returned.slice(0, MAX_PENDING_TOOLS).filter(isId));
    this.pending.set(slot, { listId, request: text, at: this.now(), tools });
    for (const c of this.pending.keys()) {
      if (this.pending.size <= MAX_PENDING) break;
      this.pending.delete(c);
    }
  }

  /**
   * Implicit attribution, part 2: `client` calls `tool` in `session`. Every call consumes the session's pending
   * selection; its request is returned (for the caller to `record` once the call succeeded) only when the selection
   * was in the same list, within `attributionWindowMs`, and returned `tool`.
   */
  takeAttribution(listId: unknown, client: unknown, session: unknown, tool: unknown): string | undefined {
    if (!isId(client) || !isId(session)) return undefined;
    const slot = pendingKey(client, session);
    const p = this.pending.get(slot);
    if (!p) return undefined;
    this.pending.delete(slot);
    const now = this.now();
    if (p.listId !== listId || now - p.at > this.windowMs || now < p.at || !isId(tool) || !p.tools.has(tool)) return undefined;
    return p.request;
  }

  /** Drops the client's examples in this list past their age. */
  private dropExpired(list: ListState, mine: ClientState): void {
    const cutoff = this.now() - this.maxAgeMs;
    for (const [tool, byKey] of mine.tools) {
      for (const [key, ex] of byKey) {
        if (ex.at > cutoff) continue;
        byKey.delete(key);
        mine.size--;
        list.size--;
        this.size--;
      }
      if (byKey.size === 0) mine.tools.delete(tool);
    }
  }

  /** The bounds: the client's own per tool and per list first, then the list's and the total from the largest holder. */
  private bound(list: ListState, mine: ClientState, byKey: Map<string, Example>): void {
    while (byKey.size > this.perTool) this.evict(list, mine);
    while (mine.size > this.perClient) this.evict(list, mine);
    while (list.size > this.perList) this.evictFromLargest([list]);
    while (this.size > this.total) this.evictFromLargest([...this.lists.values()]);
  }

  /** Evicts the client's least recent example in the list; with `tool`-restricted scans when its tool is too full. */
  private evict(list: ListState, state: ClientState): void {
    let best: { tool: string; byKey: Map<string, Example>; key: string; at: number } | undefined;
    for (const [tool, byKey] of state.tools) {
      // Each tool's Map is in recency order: its first entry is its least recent.
      const first = byKey.entries().next();
      if (first.done) continue;
      const [key, ex] = first.value;
      const overTool = byKey.size > this.perTool;
      if (overTool) {
        best = { tool, byKey, key, at: Number.NEGATIVE_INFINITY };
        break;
      }
      if (!best || ex.at < best.at) best = { tool, byKey, key, at: ex.at };
    }
    if (!best) return;
    best.byKey.delete(best.key);
    if (best.byKey.size === 0) state.tools.delete(best.tool);
    state.size--;
    list.size--;
    this.size--;
    list.version++;
  }

  /** Evicts one example of the client holding the most in these lists. */
  private evictFromLargest(lists: readonly ListState[]): void {
    let best: { list: ListState; client: string; state: ClientState } | undefined;
    for (const list of lists) for (const [client, state] of list.clients) if (!best || state.size > best.state.size) best = { list, client, state };
    if (!best) return;
    this.evict(best.list, best.state);
    if (best.state.size === 0) best.list.clients.delete(best.client);
    if (best.list.size === 0) for (const [id, l] of this.lists) if (l === best.list) this.lists.delete(id);
  }
}

const EMPTY: ReadonlyMap<string, readonly string[]> = new Map();

/** The pending-selection slot of a (client, session): NUL cannot occur in an id a caller passes unnoticed as a separator. */
function pendingKey(client: string, session: string): string {
  return `${client.length}:${client}\u0000${session}`;
}

function sameExamples(a: ReadonlyMap<string, readonly string[]>, b: ReadonlyMap<string, readonly string[]>): boolean {
  if (a.size !== b.size) return false;
  for (const [tool, xs] of a) {
    const ys = b.get(tool);
    if (!ys || ys.length !== xs.length || xs.some((x, i) => x !== ys[i])) return false;
  }
  return true;
}
