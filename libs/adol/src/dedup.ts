/**
 * ADOL A, schema deduplication with JSON references (chang §2.1, §3.1).
 *
 * chang §3.1 offers an internal reference (`#/definitions/user`, same document) and
 * an external one (`schema/common/user.json`, cached by the host). MCP
 * (2026-07-28, SEP-2106) allows `$ref`/`$defs` inside each tool's `inputSchema`
 * and `outputSchema` but forbids clients from dereferencing network references on
 * their own, so the modes are:
 *
 * - `local` (default, MCP-conformant): each schema stays self-contained; repeated
 *   sub-schemas inside ONE schema move to its own `$defs` and are referenced as
 *   `#/$defs/<name>`. This pays only for repetition within a schema.
 * - `shared` (opt-in, Parley-aware clients): sub-schemas repeated ACROSS schemas
 *   become content-addressed immutable documents
 *   `<base>/schemas/sha256-<hex>.json` (chang §3.1 external reference; §6 asks
 *   that such references come from a trusted source, which is why the address is
 *   the SHA-256 of the served bytes: a client can verify what it caches). `local`
 *   refs are still used where a fragment repeats inside one schema and that is cheaper.
 * - `list`: one `$defs` for the whole list with short names, the layout of the
 *   naive baseline in BASELINES.md. Not valid MCP (a tool's `#/$defs/x` resolves
 *   in its own schema): for comparing with the baseline, and for a client that
 *   shows the model the shared documents once under short aliases.
 *
 * The naive baseline factors every repeated property sub-schema and saves 2.6% on
 * GitHub because a `$ref` object costs ~9 tokens, as much as a small fragment. Here a
 * fragment is factored only when its measured saving is positive: tokens of its
 * occurrences minus tokens of the definition and of the references that replace
 * them, with the reference name chosen for the fewest tokens. Candidates are every
 * sub-schema at a schema position (properties, items, anyOf branches, whole nested
 * object schemas with their `properties`), and, in 2019-09/2020-12 documents, the
 * validating "core" of a sub-schema without its annotations, so that
 * `{"description": <varies>, <same enum/items/range>}` shares the core as
 * `{"description": ..., "$ref": ...}` (siblings of `$ref` apply from 2019-09 on).
 * Greedy: the best candidate is applied, the rest re-measured, until nothing
 * pays; a schema (or, in `shared`/`list`, the whole list) whose measured total does
 * not shrink is left as it was.
 *
 * Invertibility: `deref` inlines the references dedup made and removes the
 * definitions it added, giving back a value deep-equal to the input (member order
 * aside). Schemas may already use `$ref`/`$defs` (Parley's payload schemas do):
 * new definitions get names that do not collide, fragments that hold a reference
 * stay in their document, and nothing that an existing JSON Pointer passes through is
 * replaced. A fragment containing `$id`, `$anchor`, `$dynamicRef` or `$schema` is
 * never moved (it would change a base URI or dialect).
 */
import { createHash } from 'node:crypto';
import { ParleyError } from '@parley/protocol';
import { canonical, clone, hasOwn, isObject, setMember, sortedCopy, type JsonObject, type JsonValue } from './json';
import {
  ANNOTATION_KEYWORDS,
  childSlots,
  dialectOf,
  pointerToken,
  setSlot,
  slotValue,
  walkSchema,
  type Dialect,
  type Slot,
} from './schema';
import { TokenCache } from './tokens';
import { toolsFromList, type McpTool } from './tool';

export type DedupMode = 'local' | 'shared' | 'list';

/** How a shared document is addressed (chang §3.1 external reference). */
export type SharedUrlForm = 'short' | 'full';

export interface DedupOptions {
  /** Default `local` (see the module comment). */
  mode?: DedupMode;
  /**
   * `shared` mode: prefix of the documents' URLs (the gateway's public URL). Default: none, so
   * short URLs are relative (`/s/<hash>`), resolved by a Parley-aware client against the server
   * it listed the tools from. Required for the `full` form.
   */
  baseUrl?: string;
  /**
   * `shared` mode: `short` (default) addresses a document as `<baseUrl>/s/<8 base64url characters
   * of its SHA-256>` (~13 tokens as a `$ref` object); `full` as
   * `<baseUrl>/schemas/sha256-<64 hex>.json` (~55 tokens). Either way the client can check the
   * bytes it fetched against the name.
   */
  urlForm?: SharedUrlForm;
}

/** One content-addressed schema document of `shared` mode. `schema` is in canonical member order: `JSON.stringify(schema)` is the byte string whose SHA-256 names it. */
export interface SharedSchema {
  url: string;
  schema: JsonObject;
}

/**
 * What dedup changed in one schema: needed to invert exactly when the schema had
 * definitions of its own (`deref` with it gives the input back).
 */
export interface AddedDefs {
  /** Names added to the schema's `$defs`. */
  names: string[];
  /** True when dedup created the `$defs` member. */
  created: boolean;
  /** Definitions of the input that nothing in the schema referenced, removed (by name; the values as they were). */
  pruned?: JsonObject;
  /**
   * Definitions of the input moved out of the schema (`shared`: to a shared document, `list`: to
   * the list's `$defs`), by name: the `$ref` that now stands where `#/$defs/<name>` stood.
   */
  hoisted?: Record<string, string>;
  /** The member the input's definitions were under (`$defs`, or draft-07's `definitions`), when pruning or hoisting touched them. */
  defsKeyword?: '$defs' | 'definitions';
  /** Pruning and hoisting emptied the input's definitions member, so it was removed. */
  defsRemoved?: boolean;
}

export interface DedupSchemasResult {
  schemas: JsonObject[];
  /** `shared` mode: the documents referenced by URL. Empty otherwise. */
  shared: SharedSchema[];
  /** `list` mode: the list-level `$defs`. Empty otherwise. */
  listDefs: JsonObject;
  /** Per input schema, what was added to its `$defs`. */
  added: AddedDefs[];
  stats: DedupStats;
}

export interface DedupStats {
  mode: DedupMode;
  /** False when dedup did not pay and the input came back unchanged. */
  applied: boolean;
  /** Definitions emitted: local (summed over schemas), shared documents, list-level. */
  defs_local: number;
  defs_shared: number;
  defs_list: number;
  /** `$ref`s emitted. */
  refs: number;
  /** Tokens of the schemas before, and after including the shared documents / list defs. */
  tokens_before: number;
  tokens_after: number;
}

/** JSON Schema draft-07 URI, used for shared documents cut from draft-07 schemas. */
const LEGACY_DIALECT_URI = 'http://json-schema.org/draft-07/schema#';
/** Keywords that change a base URI, a dialect or a dynamic scope: a fragment holding one is never moved. */
const BLOCKING_KEYWORDS = ['$id', '$anchor', '$dynamicAnchor', '$dynamicRef', '$recursiveRef', '$recursiveAnchor', '$schema'];
const ANNOTATIONS = new Set<string>(ANNOTATION_KEYWORDS);
const DEF_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,31}$/;

export function sha256Hex(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

/** Characters of base64url SHA-256 in a short shared-document URL: 48 bits, ~13 tokens as a `$ref` object (64 hex digits: ~55). */
export const SHORT_HASH_LENGTH = 8;

/** The short name of a text: the first 8 characters of the base64url SHA-256 of its UTF-8 bytes. */
export function shortHash(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('base64url').slice(0, SHORT_HASH_LENGTH);
}

/** Where a document's bytes are addressed: `<base>/s/<short hash>` or `<base>/schemas/sha256-<hex>.json`. */
function urlOfBytes(baseUrl: string, bytes: string, form: SharedUrlForm): string {
  const base = baseUrl.replace(/\/+$/, '');
  return form === 'full' ? `${base}/schemas/sha256-${sha256Hex(bytes)}.json` : `${base}/s/${shortHash(bytes)}`;
}

/**
 * The URL of a shared document: the hash of its canonical JSON, in the short form
 * `<base>/s/<8 base64url>` (default) or the full `<base>/schemas/sha256-<hex>.json`.
 */
export function sharedSchemaUrl(baseUrl: string, schema: JsonObject, form: SharedUrlForm = 'short'): string {
  return urlOfBytes(baseUrl, canonical(schema), form);
}

// ---------------------------------------------------------------------------
// The optimiser
// ---------------------------------------------------------------------------

interface Doc {
  root: JsonObject;
  dialect: Dialect;
  /** JSON Pointers that existing `$ref`s of the input point at (nothing on their way may be replaced). */
  refTargets: string[];
  /** The schema has definitions or same-document refs of its own (after pruning and hoisting). */
  hasOwnRefs: boolean;
  /** Left untouched (a `$ref` of the input is malformed). */
  frozen: boolean;
  added: AddedDefs;
}

interface SharedDef {
  id: number;
  content: JsonObject;
  dialect: Dialect;
  /** Provisional URL used in refs until finalisation (same form as the final one, so token estimates hold). */
  url: string;
  /** A definition of the input moved here (never inlined again: deref puts it back where it was). */
  hoisted: boolean;
}

/** How the definitions of one input schema are referenced, when that is simple enough to prune and hoist. */
interface DefsUse {
  kw: '$defs' | 'definitions';
  defs: JsonObject;
  /** Names referenced from the schema outside its definitions. */
  fromBody: Set<string>;
  /** Per definition, the names its content references. */
  edges: Map<string, Set<string>>;
  /** Every local ref is `#/<kw>/<name>` of an existing definition, and no definition holds a blocking keyword: definitions may move. */
  movable: boolean;
}

/** The name a `#/<kw>/<name>` ref points at, if it has exactly that form. */
function defNameOf(ref: string, kw: string): string | undefined {
  const f = fragmentOf(ref);
  if (f === undefined || !f.startsWith(`/${kw}/`)) return undefined;
  const rest = f.slice(kw.length + 2);
  return rest.includes('/') ? undefined : decodePointer(rest);
}

/**
 * How one schema uses its own root definitions, or undefined when it has none
 * or uses them in a way pruning cannot follow (an anchor, a `$dynamicRef`, an
 * `$id` that changes the base URI, a ref to the definitions map itself, or both
 * `$defs` and `definitions`).
 */
function defsUse(root: JsonObject): DefsUse | undefined {
  const hasDefs = isObject(root.$defs);
  const hasDefinitions = isObject(root.definitions);
  if (hasDefs === hasDefinitions) return undefined;
  const kw = hasDefs ? '$defs' : 'definitions';
  const defs = root[kw] as JsonObject;
  let ok = true;
  let movable = true;
  const fromBody = new Set<string>();
  const edges = new Map<string, Set<string>>();
  const scan = (node: JsonObject, into: Set<string>, isRoot: boolean): void =>
    walkSchema(node, (n, slot) => {
      if (isRoot && slot && slot.container === defs) return false;
      for (const k of BLOCKING_KEYWORDS) if (hasOwn(n, k) && !(k === '$schema' && n === root)) ok = false;
      if (typeof n.$ref !== 'string' || !n.$ref.startsWith('#')) return;
      const f = fragmentOf(n.$ref);
      if (f === undefined || (f !== '' && !f.startsWith('/'))) {
        ok = false;
        return;
      }
      const name = defNameOf(n.$ref, kw);
      if (name !== undefined && hasOwn(defs, name)) {
        into.add(name);
        return;
      }
      // A pointer into a definition (`#/$defs/a/properties/b`) keeps that definition, and pins it.
      const parts = f.split('/').slice(1).map(decodePointer);
      if (parts[0] === kw) {
        if (parts.length < 2) ok = false;
        else into.add(parts[1]!);
      }
      movable = false;
    });
  scan(root, fromBody, true);
  for (const name of Object.keys(defs)) {
    const out = new Set<string>();
    const d = defs[name];
    if (isObject(d)) scan(d, out, false);
    edges.set(name, out);
  }
  return ok ? { kw, defs, fromBody, edges, movable } : undefined;
}

/** The definitions reachable from the schema's body. */
function reachable(use: DefsUse): Set<string> {
  const seen = new Set<string>();
  const todo = [...use.fromBody];
  while (todo.length) {
    const n = todo.pop()!;
    if (seen.has(n)) continue;
    seen.add(n);
    for (const m of use.edges.get(n) ?? []) todo.push(m);
  }
  return seen;
}

/** Replaces every `$ref` (at schema positions) found in `map` by its value. */
function rewriteRefs(root: JsonObject, map: ReadonlyMap<string, string>): void {
  walkSchema(root, (n) => {
    if (typeof n.$ref === 'string') {
      const to = map.get(n.$ref);
      if (to !== undefined) n.$ref = to;
    }
  });
}

type Scope = number | 'g';

interface Occ {
  slot: Slot;
  node: JsonObject;
  /** Annotation members kept beside the `$ref` (core candidates); undefined: the node is replaced by a bare `$ref`. */
  siblings?: JsonObject;
  tokens: number;
}

interface Group {
  scope: Scope;
  key: string;
  def: JsonObject;
  dialect: Dialect;
  occs: Occ[];
  /** Names of the slots the occurrences sit in (property names), for readable def names. */
  names: Map<string, number>;
}

interface NodeInfo {
  /** Holds a blocking keyword somewhere inside. */
  blocked: boolean;
  /** Holds a same-document reference (`#...`) somewhere inside. */
  localRef: boolean;
}

function refObject(ref: string, siblings?: JsonObject): JsonObject {
  const out: JsonObject = {};
  if (siblings) for (const k of Object.keys(siblings)) setMember(out, k, siblings[k]);
  out.$ref = ref;
  return out;
}

function splitAnnotations(node: JsonObject): { core: JsonObject; ann: JsonObject } {
  const core: JsonObject = {};
  const ann: JsonObject = {};
  for (const k of Object.keys(node)) setMember(ANNOTATIONS.has(k) ? ann : core, k, node[k]);
  return { core, ann };
}

function letterName(i: number): string {
  const a = 'abcdefghijklmnopqrstuvwxyz';
  return i < 26 ? a[i]! : `${a[Math.floor(i / 26) - 1] ?? 'z'}${a[i % 26]}`;
}

function decodePointer(p: string): string {
  return p.replace(/~1/g, '/').replace(/~0/g, '~');
}

/** The fragment of a `$ref` as a JSON Pointer string (still RFC 6901-escaped), or undefined when it is malformed. */
function fragmentOf(ref: string): string | undefined {
  try {
    return decodeURIComponent(ref.slice(1));
  } catch {
    return undefined;
  }
}

/** One schema's definition under a deep key (`Optimiser.hoist`). */
interface HoistOcc {
  doc: Doc;
  use: DefsUse;
  name: string;
}

/** What hoisting knows of the list's definitions: keys per schema, who carries each key, what each key references. */
interface HoistIndex {
  keyOf: Map<Doc, Map<string, string>>;
  cyclic: Set<string>;
  byKey: Map<string, HoistOcc[]>;
  depsOf: Map<string, Set<string>>;
  bareOf: Map<string, string>;
  uses: Map<Doc, DefsUse>;
}

interface HoistTargets {
  refOf: Map<string, string>;
  listName: Map<string, string>;
  sharedOf: Map<string, SharedDef>;
}

/**
 * The deep key of a definition: its name and content, with every ref replaced by the referenced
 * definition's deep key, or by its distance up the stack when it refers back (a cycle).
 */
function deepKey(index: HoistIndex, d: Doc, use: DefsUse, keys: Map<string, string>, name: string, stack: string[]): { key: string; cycle: boolean } {
  const known = keys.get(name);
  if (known !== undefined) return { key: known, cycle: false };
  const content = clone(use.defs[name]) as JsonObject;
  let cycle = false;
  const deps = new Set<string>();
  walkSchema(content, (n) => {
    if (typeof n.$ref !== 'string') return;
    const target = defNameOf(n.$ref, use.kw);
    if (target === undefined) return;
    const up = stack.lastIndexOf(target);
    if (up >= 0 || target === name) {
      cycle = true;
      n.$ref = `\u0000up:${target === name ? 0 : stack.length - up}`;
      return;
    }
    const t = deepKey(index, d, use, keys, target, [...stack, name]);
    cycle ||= t.cycle;
    deps.add(t.key);
    n.$ref = `\u0000def:${sha256Hex(t.key)}`;
  });
  // The name is part of the key: two definitions of one schema never share a reference
  // (deref could not tell which was which), and generated servers name them alike anyway.
  const bare = `${d.dialect}|${use.kw}|${canonical(content)}`;
  const key = `${name}|${bare}`;
  index.bareOf.set(key, bare);
  if (cycle) index.cyclic.add(key);
  // A key computed inside a cycle depends on the stack: only closed ones are kept.
  else keys.set(name, key);
  index.depsOf.set(key, deps);
  return { key, cycle };
}

/** Closure: what a chosen definition references must move too, or it is not moved. */
function closeOverDeps(index: HoistIndex, chosen: Set<string>, eligible: (key: string) => boolean): Set<string> {
  for (let changed = true; changed; ) {
    changed = false;
    for (const k of [...chosen]) {
      for (const dep of index.depsOf.get(k) ?? []) {
        if (chosen.has(dep)) continue;
        if (eligible(dep)) chosen.add(dep);
        else chosen.delete(k);
        changed = true;
      }
    }
  }
  return chosen;
}

/** Bans all but the first (sorted) of chosen keys with the same content; true when it banned any. */
function banSameContent(index: HoistIndex, chosen: Set<string>, banned: Set<string>): boolean {
  const first = new Map<string, string>();
  let any = false;
  for (const k of [...chosen].sort()) {
    const b = index.bareOf.get(k)!;
    if (!first.has(b)) first.set(b, k);
    else {
      banned.add(k);
      any = true;
    }
  }
  return any;
}

class Optimiser {
  readonly tok = new TokenCache();
  readonly docs: Doc[];
  readonly shared = new Map<number, SharedDef>();
  readonly sharedByUrl = new Map<string, SharedDef>();
  readonly listDefs: JsonObject = {};
  /** `list` mode: refs to the list's `$defs` (they look like same-document refs). */
  private readonly listRefs = new Set<string>();
  /** `list` mode: list-level names a schema's own remaining definitions use (a list name must not shadow them). */
  private readonly reserved = new Set<string>();
  /** List names and shared documents that hold a hoisted definition of the input. */
  private readonly hoistedList = new Set<string>();
  /** Canonical contents of hoisted definitions: new global definitions must differ from them, so that deref can tell them apart. */
  private readonly hoistedCanon = new Set<string>();
  private nextShared = 0;
  private readonly wrapCost: number;

  constructor(
    roots: JsonObject[],
    readonly mode: DedupMode,
    readonly baseUrl: string,
    readonly urlForm: SharedUrlForm,
  ) {
    this.docs = roots.map((r) => ({ root: r, dialect: dialectOf(r), refTargets: [], hasOwnRefs: false, frozen: false, added: { names: [], created: false } }));
    this.wrapCost = this.tok.text(',"$defs":{}');
  }

  run(): void {
    for (const d of this.docs) this.scan(d);
    for (const d of this.docs) if (!d.frozen) this.prune(d);
    if (this.mode !== 'local') this.hoist();
    for (const d of this.docs) this.scan(d);
    for (let round = 0; round < 10_000; round++) {
      const best = this.bestGroup();
      if (!best) break;
      this.apply(best.group, best.name);
    }
    this.inlineSingleUse();
  }

  /** What the optimiser must respect in a schema: the pointers its refs follow, whether it has refs of its own. */
  private scan(d: Doc): void {
    const r = d.root;
    d.refTargets = [];
    d.hasOwnRefs = isObject(r.$defs) || isObject(r.definitions);
    walkSchema(r, (n) => {
      if (typeof n.$ref === 'string' && n.$ref.startsWith('#') && !this.listRefs.has(n.$ref)) {
        d.hasOwnRefs = true;
        const f = fragmentOf(n.$ref);
        // A malformed pointer could point anywhere: such a document is left as it is.
        if (f === undefined) d.frozen = true;
        else d.refTargets.push(f);
      }
    });
  }

  /**
   * Removes the definitions nothing in the schema references (an OpenAPI-generated
   * server puts every component schema into every tool). They cannot change what
   * validates; the manifest keeps them for deref.
   */
  private prune(d: Doc): void {
    const use = defsUse(d.root);
    if (!use) return;
    const keep = reachable(use);
    for (const name of Object.keys(use.defs)) {
      if (keep.has(name)) continue;
      d.added.pruned ??= {};
      setMember(d.added.pruned, name, use.defs[name]);
      delete use.defs[name];
    }
    if (d.added.pruned) {
      d.added.defsKeyword = use.kw;
      if (Object.keys(use.defs).length === 0) {
        delete d.root[use.kw];
        d.added.defsRemoved = true;
      }
    }
  }

  /**
   * `shared` and `list`: a definition that several schemas carry (the same
   * content, its references to other definitions included, whatever the names)
   * moves out once, to a shared document or the list's `$defs`, and every
   * `#/$defs/<name>` that pointed at it is rewritten to the new reference; the
   * definitions it references move with it, so its own refs are rewritten
   * consistently. Per candidate, only where the measured saving is positive.
   */
  private hoist(): void {
    const index = this.hoistIndex();
    const chosen = this.hoistChoice(index);
    if (chosen.size === 0) return;
    const targets = this.hoistTargets(index, chosen);
    this.writeHoisted(index, chosen, targets);
    this.rewriteHoisted(index, chosen, targets.refOf);
  }

  /** The deep key of every movable definition of every schema, and who carries each key. */
  private hoistIndex(): HoistIndex {
    const index: HoistIndex = { keyOf: new Map(), cyclic: new Set(), byKey: new Map(), depsOf: new Map(), bareOf: new Map(), uses: new Map() };
    for (const d of this.docs) {
      if (d.frozen) continue;
      const use = defsUse(d.root);
      if (!use || !use.movable) continue;
      const keys = new Map<string, string>();
      const names = Object.keys(use.defs).filter((n) => isObject(use.defs[n]));
      const mine = new Map<string, string>();
      for (const n of names) mine.set(n, deepKey(index, d, use, keys, n, []).key);
      // Two definitions of one schema with the same key would share one reference: deref could not tell them apart.
      if (new Set(mine.values()).size !== mine.size) continue;
      index.keyOf.set(d, mine);
      index.uses.set(d, use);
      for (const [name, key] of mine) {
        let occ = index.byKey.get(key);
        if (!occ) index.byKey.set(key, (occ = []));
        occ.push({ doc: d, use, name });
      }
    }
    return index;
  }

  /** Whether moving the definitions of `key` out saves tokens, all its references counted. */
  private hoistPays(index: HoistIndex, key: string): boolean {
    const sampleRef = this.mode === 'shared' ? urlOfBytes(this.baseUrl, 'x', this.urlForm) : '#/$defs/ab';
    const refCount = (o: HoistOcc): number => {
      let n = 0;
      const ref = `#/${o.use.kw}/${pointerToken(o.name)}`;
      walkSchema(o.doc.root, (x) => void (x.$ref === ref && n++));
      return n;
    };
    const occ = index.byKey.get(key)!;
    const entry = (o: HoistOcc): number => this.tok.text(`${JSON.stringify(o.name)}:${JSON.stringify(o.use.defs[o.name])},`);
    const before = occ.reduce((s, o) => s + entry(o), 0);
    const def = this.mode === 'shared' ? this.tok.json({ url: sampleRef, schema: occ[0]!.use.defs[occ[0]!.name] }) + 1 : entry(occ[0]!);
    const extraPerRef = (o: HoistOcc): number => this.tok.json({ $ref: sampleRef }) - this.tok.json({ $ref: `#/${o.use.kw}/${pointerToken(o.name)}` });
    const refs = occ.reduce((s, o) => s + refCount(o) * extraPerRef(o), 0);
    return before - def - refs > 0;
  }

  /** The keys that move: carried twice or more, paying, with everything they reference moving too. */
  private hoistChoice(index: HoistIndex): Set<string> {
    const banned = new Set<string>();
    // Shared documents are named by the hash of their bytes, refs included: a cycle has no such name.
    const eligible = (key: string): boolean => (index.byKey.get(key)?.length ?? 0) >= 2 && !banned.has(key) && !(this.mode === 'shared' && index.cyclic.has(key));
    const paying = [...index.byKey.keys()].filter((k) => eligible(k) && this.hoistPays(index, k));
    let chosen = new Set<string>();
    for (let again = true; again; ) {
      chosen = closeOverDeps(index, new Set(paying.filter((k) => !banned.has(k))), eligible);
      // Shared documents are named by content: two moved definitions with the same content (under
      // different names) would get one URL, and deref could not tell them apart. One of them moves.
      again = this.mode === 'shared' && banSameContent(index, chosen, banned);
    }
    return chosen;
  }

  /** Names (list mode) or shared documents (shared mode) and references of the moved definitions. */
  private hoistTargets(index: HoistIndex, chosen: Set<string>): HoistTargets {
    const t: HoistTargets = { refOf: new Map(), listName: new Map(), sharedOf: new Map() };
    if (this.mode === 'list') this.reserveListNames(index, chosen);
    for (const key of chosen) {
      const first = index.byKey.get(key)![0]!;
      if (this.mode === 'shared') {
        const s: SharedDef = { id: this.nextShared++, content: {}, dialect: first.doc.dialect, url: '', hoisted: true };
        s.url = this.provisionalUrl(s.id);
        t.sharedOf.set(key, s);
        t.refOf.set(key, s.url);
      } else {
        let name = DEF_NAME.test(first.name) && !hasOwn(this.listDefs, first.name) && !this.reserved.has(first.name) ? first.name : undefined;
        for (let i = 0; name === undefined; i++) {
          const n = letterName(i);
          if (!hasOwn(this.listDefs, n) && !this.reserved.has(n)) name = n;
        }
        setMember(this.listDefs, name, {});
        this.hoistedList.add(name);
        t.listName.set(key, name);
        t.refOf.set(key, `#/$defs/${pointerToken(name)}`);
        this.listRefs.add(t.refOf.get(key)!);
      }
    }
    return t;
  }

  /** `list` mode: the names the schemas' remaining definitions use, which a list name must not shadow. */
  private reserveListNames(index: HoistIndex, chosen: Set<string>): void {
    for (const [, mine] of index.keyOf) for (const [name, key] of mine) if (!chosen.has(key)) this.reserved.add(name);
    for (const d of this.docs) {
      if (index.keyOf.has(d)) continue;
      for (const kw of ['$defs', 'definitions']) if (isObject(d.root[kw])) for (const n of Object.keys(d.root[kw] as JsonObject)) this.reserved.add(n);
    }
  }

  /** Contents of the moved definitions, with their refs rewritten to the moved definitions' references. */
  private writeHoisted(index: HoistIndex, chosen: Set<string>, t: HoistTargets): void {
    for (const key of chosen) {
      const first = index.byKey.get(key)![0]!;
      const local = new Map<string, string>();
      for (const [name, k] of index.keyOf.get(first.doc)!) if (chosen.has(k)) local.set(`#/${first.use.kw}/${pointerToken(name)}`, t.refOf.get(k)!);
      const content = clone(first.use.defs[first.name]) as JsonObject;
      rewriteRefs(content, local);
      this.hoistedCanon.add(canonical(content));
      if (this.mode === 'shared') {
        const s = t.sharedOf.get(key)!;
        s.content = content;
        this.shared.set(s.id, s);
        this.sharedByUrl.set(s.url, s);
      } else setMember(this.listDefs, t.listName.get(key)!, content);
    }
  }

  /** Each schema: the moved definitions go, their refs are rewritten. */
  private rewriteHoisted(index: HoistIndex, chosen: Set<string>, refOf: Map<string, string>): void {
    for (const [d, mine] of index.keyOf) {
      const use = index.uses.get(d)!;
      const local = new Map<string, string>();
      for (const [name, key] of mine) {
        if (!chosen.has(key)) continue;
        const ref = refOf.get(key)!;
        local.set(`#/${use.kw}/${pointerToken(name)}`, ref);
        d.added.hoisted ??= Object.create(null) as Record<string, string>;
        d.added.hoisted[name] = ref;
        delete use.defs[name];
      }
      if (local.size === 0) continue;
      rewriteRefs(d.root, local);
      d.added.defsKeyword = use.kw;
      if (Object.keys(use.defs).length === 0) {
        delete d.root[use.kw];
        d.added.defsRemoved = true;
      }
    }
  }

  /** Every candidate group of the current trees, keyed by scope and content. */
  private groups(): Group[] {
    const memo = new WeakMap<object, string>();
    const info = new WeakMap<object, NodeInfo>();
    const infoOf = (n: JsonObject): NodeInfo => {
      let i = info.get(n);
      if (i) return i;
      i = { blocked: BLOCKING_KEYWORDS.some((k) => hasOwn(n, k)), localRef: typeof n.$ref === 'string' && n.$ref.startsWith('#') && !this.listRefs.has(n.$ref) };
      for (const s of childSlots(n)) {
        const c = infoOf(slotValue(s));
        i.blocked ||= c.blocked;
        i.localRef ||= c.localRef;
      }
      info.set(n, i);
      return i;
    };
    const groups = new Map<string, Group>();
    const add = (scope: Scope, key: string, def: JsonObject, dialect: Dialect, occ: Occ, name: string | undefined): void => {
      const k = `${scope}\u0000${key}`;
      let g = groups.get(k);
      if (!g) groups.set(k, (g = { scope, key, def, dialect, occs: [], names: new Map() }));
      g.occs.push(occ);
      if (name !== undefined && DEF_NAME.test(name)) g.names.set(name, (g.names.get(name) ?? 0) + 1);
    };
    const visitTree = (root: JsonObject, dialect: Dialect, localScope: number | null, globalOk: boolean, refTargets: string[], skipDefsOf: JsonObject | null): void => {
      walkSchema(root, (node, slot, pointer) => {
        if (!slot) return;
        // The entries of a `$defs` map are definitions already; factor inside them, not them.
        if ((slot.keyword === '$defs' || slot.keyword === 'definitions') && (slot.container === skipDefsOf || slot.container === root[slot.keyword])) return;
        const nInfo = infoOf(node);
        if (nInfo.blocked) return false;
        // Both sides are RFC 6901-escaped pointers.
        if (refTargets.some((t) => t.length > pointer.length && t.startsWith(`${pointer}/`))) return;
        const whole = canonical(node, memo);
        const nodeTokens = this.tok.json(node);
        if (nodeTokens <= 6) return; // nothing smaller than a `$ref` object can pay
        const hasRef = hasOwn(node, '$ref');
        const annotated = Object.keys(node).some((k) => ANNOTATIONS.has(k));
        const scopes: Scope[] = [];
        if (localScope !== null) scopes.push(localScope);
        if (globalOk && (this.mode === 'shared' || this.mode === 'list') && !nInfo.localRef) scopes.push('g');
        const name = slot.name ?? (typeof slot.key === 'string' ? slot.key : undefined);
        for (const scope of scopes) {
          if (!annotated) {
            add(scope, `C|${dialect}|${whole}`, node, dialect, { slot, node, tokens: nodeTokens }, name);
            continue;
          }
          add(scope, `A|${dialect}|${whole}`, node, dialect, { slot, node, tokens: nodeTokens }, name);
          if (dialect === 'modern' && !hasRef) {
            const { core, ann } = splitAnnotations(node);
            const ck = Object.keys(core);
            if (ck.length > 0 && !ck.some((k) => k.startsWith('unevaluated'))) {
              add(scope, `C|${dialect}|${canonical(core, memo)}`, core, dialect, { slot, node, siblings: ann, tokens: nodeTokens }, name);
            }
          }
        }
      });
    };
    this.docs.forEach((d, i) => {
      if (d.frozen) return;
      const local = this.mode === 'list' ? null : i;
      const globalOk = this.mode === 'shared' || (this.mode === 'list' && !d.hasOwnRefs);
      visitTree(d.root, d.dialect, local, globalOk, d.refTargets, null);
    });
    if (this.mode === 'shared') for (const s of this.shared.values()) visitTree(s.content, s.dialect, null, true, [], null);
    if (this.mode === 'list') visitTree({ $defs: this.listDefs }, 'modern', null, true, [], this.listDefs);
    // A new global definition equal to a hoisted one would share its reference, and deref could not tell them apart.
    return [...groups.values()].filter((g) => g.occs.length >= 2 && !(g.scope === 'g' && this.hoistedCanon.size > 0 && this.hoistedCanon.has(canonical(g.def))));
  }

  private localDefs(scope: Scope): JsonObject | undefined {
    if (scope === 'g') return this.mode === 'list' ? this.listDefs : undefined;
    const d = this.docs[scope]!.root.$defs;
    return isObject(d) ? d : undefined;
  }

  private refFor(scope: Scope, name: string): string {
    return scope === 'g' && this.mode === 'shared' ? name : `#/$defs/${pointerToken(name)}`;
  }

  private replacementTokens(g: Group, ref: string): number {
    let t = 0;
    for (const o of g.occs) t += this.tok.json(refObject(ref, o.siblings));
    return t;
  }

  /** Cost in tokens of emitting the definition once, under `name` (or the shared document for a URL). */
  private defCost(g: Group, name: string): number {
    if (g.scope === 'g' && this.mode === 'shared') {
      return this.tok.json({ url: name, schema: this.sharedDoc(g.def, g.dialect) }) + 1;
    }
    const existing = this.localDefs(g.scope);
    const wrap = existing && Object.keys(existing).length > 0 ? 1 : this.wrapCost;
    return this.tok.text(`${JSON.stringify(name)}:${JSON.stringify(g.def)}`) + wrap;
  }

  private sharedDoc(content: JsonObject, dialect: Dialect): JsonObject {
    return dialect === 'legacy' ? { $schema: LEGACY_DIALECT_URI, ...content } : content;
  }

  /** A stand-in URL of the final form (so token estimates hold), unique per document until finalisation. */
  private provisionalUrl(id: number): string {
    return urlOfBytes(this.baseUrl, `\u0000provisional:${id}`, this.urlForm);
  }

  /** The cheapest free name for a group's definition; readable names (the property's) win ties. */
  private chooseName(g: Group): { name: string; cost: number } {
    if (g.scope === 'g' && this.mode === 'shared') {
      const url = this.provisionalUrl(this.nextShared);
      return { name: url, cost: this.replacementTokens(g, url) + this.defCost(g, url) };
    }
    const defs = this.localDefs(g.scope) ?? {};
    const taken = (n: string): boolean => hasOwn(defs, n) || (g.scope === 'g' && this.reserved.has(n));
    const options: string[] = [...g.names.entries()]
      .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
      .map(([n]) => n)
      .filter((n) => !taken(n))
      .slice(0, 3);
    for (let i = 0; ; i++) {
      const n = letterName(i);
      if (!taken(n)) {
        options.push(n);
        break;
      }
    }
    let best: { name: string; cost: number } | undefined;
    for (const name of options) {
      const cost = this.replacementTokens(g, this.refFor(g.scope, name)) + this.defCost(g, name);
      if (!best || cost < best.cost) best = { name, cost };
    }
    return best!;
  }

  private bestGroup(): { group: Group; name: string; saving: number } | undefined {
    let best: { group: Group; name: string; saving: number } | undefined;
    for (const g of this.groups()) {
      const before = g.occs.reduce((s, o) => s + o.tokens, 0);
      // Cheap bound first: even free references cannot beat this.
      if (before - g.occs.length * 6 <= 0) continue;
      const { name, cost } = this.chooseName(g);
      const saving = before - cost;
      if (saving <= 0) continue;
      if (!best || saving > best.saving || (saving === best.saving && g.key < best.group.key)) best = { group: g, name, saving };
    }
    return best;
  }

  private apply(g: Group, name: string): void {
    const def = clone(g.def);
    let ref: string;
    if (g.scope === 'g' && this.mode === 'shared') {
      const s: SharedDef = { id: this.nextShared++, content: def, dialect: g.dialect, url: name, hoisted: false };
      this.shared.set(s.id, s);
      this.sharedByUrl.set(s.url, s);
      ref = s.url;
    } else if (g.scope === 'g') {
      setMember(this.listDefs, name, def);
      ref = this.refFor('g', name);
      this.listRefs.add(ref);
    } else {
      const d = this.docs[g.scope]!;
      if (!isObject(d.root.$defs)) {
        d.root.$defs = {};
        d.added.created = true;
      }
      setMember(d.root.$defs as JsonObject, name, def);
      d.added.names.push(name);
      ref = this.refFor(g.scope, name);
    }
    for (const o of g.occs) setSlot(o.slot, refObject(ref, o.siblings ? clone(o.siblings) : undefined));
  }

  /** Definitions referenced once (a later, larger fragment swallowed the others) never pay: inline them. */
  private inlineSingleUse(): void {
    for (let changed = true; changed; ) {
      changed = false;
      const counts = new Map<string, number>();
      const count = (root: JsonObject): void =>
        walkSchema(root, (n) => {
          if (typeof n.$ref === 'string') counts.set(n.$ref, (counts.get(n.$ref) ?? 0) + 1);
        });
      this.docs.forEach((d) => count(d.root));
      for (const s of this.shared.values()) count(s.content);
      count({ $defs: this.listDefs });
      const inline = (root: JsonObject, ref: string, content: JsonObject): void => {
        walkSchema(root, (n, slot) => {
          if (slot && n.$ref === ref) {
            const { $ref: _r, ...siblings } = n;
            setSlot(slot, { ...siblings, ...clone(content) });
            return false;
          }
        });
      };
      const everywhere = (ref: string, content: JsonObject): void => {
        this.docs.forEach((d) => inline(d.root, ref, content));
        for (const s of this.shared.values()) inline(s.content, ref, content);
        inline({ $defs: this.listDefs }, ref, content);
      };
      for (const d of this.docs) {
        const defs = d.root.$defs;
        if (!isObject(defs)) continue;
        for (const name of [...d.added.names]) {
          const ref = this.refFor(this.docs.indexOf(d), name);
          if ((counts.get(ref) ?? 0) > 1) continue;
          const content = defs[name] as JsonObject;
          delete defs[name];
          d.added.names = d.added.names.filter((x) => x !== name);
          inline(d.root, ref, content);
          changed = true;
        }
        if (d.added.created && Object.keys(defs).length === 0) {
          delete d.root.$defs;
          d.added.created = false;
        }
      }
      for (const s of [...this.shared.values()]) {
        if (s.hoisted || (counts.get(s.url) ?? 0) > 1) continue;
        this.shared.delete(s.id);
        this.sharedByUrl.delete(s.url);
        everywhere(s.url, s.content);
        changed = true;
      }
      for (const name of Object.keys(this.listDefs)) {
        const ref = this.refFor('g', name);
        if (this.hoistedList.has(name) || (counts.get(ref) ?? 0) > 1) continue;
        const content = this.listDefs[name] as JsonObject;
        delete this.listDefs[name];
        everywhere(ref, content);
        changed = true;
      }
    }
  }

  /** Final content-addressed URLs (leaves first: a document's hash covers the URLs it references), and the refs rewritten. */
  finaliseShared(): { docs: SharedSchema[]; finalUrl: Map<string, string> } {
    const final = new Map<number, SharedSchema>();
    const resolving = new Set<number>();
    const rewrite = (root: JsonObject): void =>
      walkSchema(root, (n) => {
        if (typeof n.$ref !== 'string') return;
        const s = this.sharedByUrl.get(n.$ref);
        if (s) n.$ref = finalOf(s).url;
      });
    const finalOf = (s: SharedDef): SharedSchema => {
      const done = final.get(s.id);
      if (done) return done;
      if (resolving.has(s.id)) throw new ParleyError('internal', 'shared schema documents reference each other in a cycle');
      resolving.add(s.id);
      const content = clone(s.content);
      rewrite(content);
      const schema = sortedCopy(this.sharedDoc(content, s.dialect));
      const out = { url: urlOfBytes(this.baseUrl, JSON.stringify(schema), this.urlForm), schema };
      final.set(s.id, out);
      return out;
    };
    for (const s of this.shared.values()) finalOf(s);
    for (const d of this.docs) rewrite(d.root);
    const byUrl = new Map<string, SharedSchema>();
    for (const s of final.values()) byUrl.set(s.url, s);
    const finalUrl = new Map<string, string>();
    for (const s of this.shared.values()) finalUrl.set(s.url, final.get(s.id)!.url);
    return { docs: [...byUrl.values()], finalUrl };
  }
}

function countRefs(roots: JsonObject[]): number {
  let n = 0;
  for (const r of roots) walkSchema(r, (x) => void (typeof x.$ref === 'string' && n++));
  return n;
}

function checkSchemas(schemas: readonly unknown[]): void {
  schemas.forEach((s, i) => {
    if (!isObject(s)) throw new ParleyError('invalid_params', `schemas[${i}] must be a JSON Schema object`, { path: `schemas[${i}]`, rule: 'type' });
  });
}

/**
 * Deduplicates a set of schema documents (the inputSchemas and outputSchemas of a
 * tool list, or the payload schemas of one agent's templates).
 */
export function dedupSchemas(schemas: readonly JsonObject[], opts: DedupOptions = {}): DedupSchemasResult {
  checkSchemas(schemas);
  const mode = opts.mode ?? 'local';
  const urlForm = opts.urlForm ?? 'short';
  if (urlForm !== 'short' && urlForm !== 'full') throw new ParleyError('invalid_params', 'urlForm must be "short" or "full"', { path: 'urlForm', rule: 'enum' });
  if (mode === 'shared' && urlForm === 'full' && !opts.baseUrl) {
    throw new ParleyError('invalid_params', 'the full URL form needs baseUrl (the gateway URL that serves /schemas/sha256-<hex>.json)', { path: 'baseUrl', rule: 'required' });
  }
  const tok = new TokenCache();
  const before = schemas.map((s) => tok.json(s));
  const tokensBefore = tok.json(schemas);
  const opt = new Optimiser(schemas.map((s) => clone(s)), mode, opts.baseUrl ?? '', urlForm);
  opt.run();
  let shared: SharedSchema[] = [];
  if (mode === 'shared') {
    const f = opt.finaliseShared();
    shared = f.docs;
    for (const d of opt.docs) {
      const h = d.added.hoisted;
      if (h) for (const name of Object.keys(h)) h[name] = f.finalUrl.get(h[name]!) ?? h[name]!;
    }
  }

  let out = opt.docs.map((d) => d.root);
  let added = opt.docs.map((d) => d.added);
  // A schema of `local` mode that did not shrink goes back as it was (refs have a price).
  if (mode === 'local') {
    out = out.map((s, i) => (tok.json(s) < before[i]! ? s : clone(schemas[i]!)));
    added = added.map((a, i) => (out[i] === opt.docs[i]!.root ? a : { names: [], created: false }));
  }
  const listDefs = mode === 'list' ? opt.listDefs : {};
  const extra = mode === 'shared' ? (shared.length ? tok.json(shared) : 0) : mode === 'list' && Object.keys(listDefs).length ? tok.json({ $defs: listDefs }) : 0;
  const tokensAfter = tok.json(out) + extra;
  if (tokensAfter >= tokensBefore) {
    return {
      schemas: schemas.map((s) => clone(s)),
      shared: [],
      listDefs: {},
      added: schemas.map(() => ({ names: [], created: false })),
      stats: { mode, applied: false, defs_local: 0, defs_shared: 0, defs_list: 0, refs: 0, tokens_before: tokensBefore, tokens_after: tokensBefore },
    };
  }
  return {
    schemas: out,
    shared,
    listDefs,
    added,
    stats: {
      mode,
      applied: true,
      defs_local: added.reduce((n, a) => n + a.names.length, 0),
      defs_shared: shared.length,
      defs_list: Object.keys(listDefs).length,
      refs: countRefs(out) + countRefs(shared.map((s) => s.schema)) + countRefs([{ $defs: listDefs }]),
      tokens_before: tokensBefore,
      tokens_after: tokensAfter,
    },
  };
}

/** `local` dedup of one schema document: repetition inside it moves to its `$defs`. */
export function dedupSchema(schema: JsonObject, opts: Omit<DedupOptions, 'mode'> = {}): { schema: JsonObject; added: AddedDefs; stats: DedupStats } {
  const r = dedupSchemas([schema], { ...opts, mode: 'local' });
  return { schema: r.schemas[0]!, added: r.added[0]!, stats: r.stats };
}

// ---------------------------------------------------------------------------
// Dereferencing
// ---------------------------------------------------------------------------

export interface DerefOptions {
  /** Shared documents by URL (`shared` mode). */
  shared?: readonly SharedSchema[];
  /** List-level definitions (`list` mode). */
  listDefs?: JsonObject;
  /**
   * What dedup added to this schema's `$defs` (from its result). With it, exactly
   * those definitions are inlined and removed, and definitions the schema had
   * before stay. Without it (a client holding only the wire form), every
   * non-recursive same-document `#/$defs/<name>` reference is inlined.
   */
  added?: AddedDefs;
}

/**
 * Inlines the references dedup made. Returns a new value; with `added` from
 * dedup's result it is deep-equal to dedup's input.
 */
export function deref(schema: JsonObject, opts: DerefOptions = {}): JsonObject {
  const root = clone(schema);
  const defs = isObject(root.$defs) ? root.$defs : undefined;
  const a = opts.added;
  const ours = new Set(a ? a.names : defs ? Object.keys(defs) : []);
  // Refs that stand for a definition of the input moved out: put back, not inlined.
  const hoisted = new Map<string, string>();
  if (a?.hoisted) for (const name of Object.keys(a.hoisted)) hoisted.set(a.hoisted[name]!, name);
  const shared = new Map<string, JsonObject>();
  for (const s of opts.shared ?? []) {
    const { $schema: _dialect, ...content } = s.schema;
    shared.set(s.url, content);
  }
  const listDef = (ref: string): JsonObject | undefined => {
    const m = /^#\/\$defs\/([^/]+)$/.exec(ref);
    const fragment = m ? fragmentOf(`#${m[1]!}`) : undefined;
    if (fragment === undefined || !opts.listDefs) return undefined;
    const name = decodePointer(fragment);
    return hasOwn(opts.listDefs, name) && isObject(opts.listDefs[name]) ? opts.listDefs[name] : undefined;
  };
  const target = (ref: string): JsonObject | undefined => {
    if (hoisted.has(ref)) return undefined;
    const sh = shared.get(ref);
    if (sh) return sh;
    const m = /^#\/\$defs\/([^/]+)$/.exec(ref);
    const fragment = m ? fragmentOf(`#${m[1]!}`) : undefined;
    if (fragment === undefined) return undefined;
    const name = decodePointer(fragment);
    if (defs && ours.has(name) && isObject(defs[name])) return defs[name];
    return listDef(ref);
  };
  const unresolved = new Set<string>();
  const expand = (node: JsonObject, stack: string[]): JsonObject => {
    let out = node;
    const ref = node.$ref;
    if (typeof ref === 'string') {
      const t = target(ref);
      if (t && !stack.includes(ref)) {
        const { $ref: _r, ...siblings } = node;
        if (Object.keys(siblings).some((k) => hasOwn(t, k))) unresolved.add(ref);
        else {
          out = { ...siblings, ...expand(clone(t), [...stack, ref]) };
          return out;
        }
      } else if (t) unresolved.add(ref);
    }
    for (const s of childSlots(out)) setSlot(s, expand(slotValue(s), stack));
    return out;
  };
  // Expand everything but our own definitions (they go away), including definitions the schema had.
  const body: JsonObject = {};
  for (const k of Object.keys(root)) if (k !== '$defs') setMember(body, k, root[k]);
  const expandedBody = expand(body, []);
  const keptDefs: JsonObject = {};
  if (defs) {
    for (const k of Object.keys(defs)) {
      const v = defs[k];
      if (ours.has(k) && !unresolved.has(`#/$defs/${pointerToken(k)}`)) continue;
      setMember(keptDefs, k, isObject(v) ? expand(v, []) : v);
    }
  }
  const out: JsonObject = {};
  for (const k of Object.keys(root)) {
    if (k === '$defs') {
      const createdByDedup = a ? a.created : true;
      if (Object.keys(keptDefs).length > 0 || !createdByDedup) out.$defs = keptDefs;
    } else setMember(out, k, expandedBody[k]);
  }
  if (a && (hoisted.size > 0 || a.pruned)) {
    // The input's own definitions come back: moved ones from where they went, with their refs
    // made local again, and pruned ones as they were.
    const kw = a.defsKeyword ?? '$defs';
    const back = new Map<string, string>();
    for (const [ref, name] of hoisted) back.set(ref, `#/${kw}/${pointerToken(name)}`);
    rewriteRefs(out, back);
    if (!isObject(out[kw])) setMember(out, kw, {});
    const own = out[kw] as JsonObject;
    for (const [ref, name] of hoisted) {
      const content = shared.get(ref) ?? listDef(ref);
      if (!content) continue;
      const restored = expand(clone(content), []);
      rewriteRefs(restored, back);
      setMember(own, name, restored);
    }
    if (a.pruned) for (const name of Object.keys(a.pruned)) setMember(own, name, clone(a.pruned[name]));
  }
  return out;
}

/** Inverts `dedupSchemas` (its result as returned, or just `{ schemas, shared }` from the wire). */
export function derefSchemas(r: { schemas: readonly JsonObject[]; shared?: readonly SharedSchema[]; listDefs?: JsonObject; added?: readonly AddedDefs[] }): JsonObject[] {
  return r.schemas.map((s, i) => {
    const o: DerefOptions = {};
    if (r.shared) o.shared = r.shared;
    if (r.listDefs) o.listDefs = r.listDefs;
    const a = r.added?.[i];
    if (a) o.added = a;
    return deref(s, o);
  });
}

// ---------------------------------------------------------------------------
// Tool lists
// ---------------------------------------------------------------------------

/** What dedup added to one tool's schemas. */
export interface ToolAddedDefs {
  inputSchema: AddedDefs;
  outputSchema?: AddedDefs;
}

export interface DedupToolsResult<T extends McpTool = McpTool> {
  tools: T[];
  shared: SharedSchema[];
  listDefs: JsonObject;
  added: ToolAddedDefs[];
  /** Token figures are of the whole tool list (plus shared documents or list defs). */
  stats: DedupStats;
}

/**
 * ADOL A over a tool list (chang §2.1: "tools hosted on the same MCP server often
 * share similar or identical schema components, such as parameters or output
 * schemas"): the inputSchema and outputSchema of every tool, in the chosen mode.
 */
export function dedupTools<T extends McpTool>(tools: readonly T[], opts: DedupOptions = {}): DedupToolsResult<T> {
  toolsFromList(tools); // typed error naming the first malformed tool
  const docs: JsonObject[] = [];
  const where: { tool: number; member: 'inputSchema' | 'outputSchema' }[] = [];
  tools.forEach((t, i) => {
    docs.push(t.inputSchema);
    where.push({ tool: i, member: 'inputSchema' });
    if (isObject(t.outputSchema)) {
      docs.push(t.outputSchema);
      where.push({ tool: i, member: 'outputSchema' });
    }
  });
  const r = dedupSchemas(docs, opts);
  const out = tools.map((t) => ({ ...t }));
  const added: ToolAddedDefs[] = tools.map(() => ({ inputSchema: { names: [], created: false } }));
  where.forEach((w, j) => {
    (out[w.tool] as McpTool)[w.member] = r.schemas[j]!;
    added[w.tool]![w.member] = r.added[j]!;
  });
  const tok = new TokenCache();
  const before = tok.json(tools);
  const after = tok.json(out) + (r.shared.length ? tok.json(r.shared) : 0);
  const listed = Object.keys(r.listDefs).length ? tok.json({ $defs: r.listDefs, tools: out }) : after;
  return { tools: out, shared: r.shared, listDefs: r.listDefs, added, stats: { ...r.stats, tokens_before: before, tokens_after: opts.mode === 'list' ? listed : after } };
}

/**
 * Inverts `dedupTools`: pass its result (exact: deep-equal to the input), or only
 * `{ tools, shared }` as a client received them (every reference dedup could have
 * made is inlined).
 */
export function derefTools<T extends McpTool>(r: { tools: readonly T[]; shared?: readonly SharedSchema[]; listDefs?: JsonObject; added?: readonly ToolAddedDefs[] }): T[] {
  return r.tools.map((t, i) => {
    const out = { ...t };
    for (const member of ['inputSchema', 'outputSchema'] as const) {
      const s = t[member];
      if (!isObject(s)) continue;
      const o: DerefOptions = {};
      if (r.shared) o.shared = r.shared;
      if (r.listDefs) o.listDefs = r.listDefs;
      const a = r.added?.[i]?.[member];
      if (a) o.added = a;
      (out as McpTool)[member] = deref(s, o);
    }
    return out;
  });
}

export type { JsonValue };
