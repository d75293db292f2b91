/**
 * Content-addressed schema documents (draft-chang §3.1, external references):
 * when a Parley-aware MCP client asks for `_meta.refs: "shared"`, sub-schemas
 * and definitions repeated across tools are emitted once as documents referenced
 * as `/s/<hash>` (8 base64url characters of the SHA-256 of the bytes; relative,
 * so the client resolves it against the gateway it listed from), and this store
 * serves them there and at `/schemas/sha256-<hex>.json`. The name is the hash of
 * the content, so a document never changes and is served as immutable (a client
 * caches it for good and can check it). MCP clients do not dereference network
 * `$ref`s on their own (MCP 2026-07-28, SEP-2106), which is why this is opt-in.
 *
 * The store is per gateway process and bounded: a replica that did not build a
 * document answers 404, and listing tools again through it rebuilds it.
 */
import { createHash } from 'node:crypto';
import { shortHash } from '@parley/adol';
import { ParleyError, type JsonObject } from '@parley/protocol';

const FULL = /^schemas\/sha256-([0-9a-f]{64})\.json$/;
const SHORT = /^s\/([A-Za-z0-9_-]{8})$/;

export interface StoredSchema {
  text: string;
  sha256: string;
}

export class SchemaStore {
  /** By full hex digest; `short` maps the short names to it. */
  private readonly docs = new Map<string, StoredSchema>();
  private readonly short = new Map<string, string>();

  constructor(private readonly maxDocs = 10_000) {}

  /** Keeps a document (its canonical JSON, as dedup made it) under both of its names. */
  put(url: string, schema: JsonObject): void {
    const text = JSON.stringify(schema);
    const sha256 = createHash('sha256').update(text, 'utf8').digest('hex');
    const s = shortHash(text);
    if (!url.endsWith(`/s/${s}`) && !url.endsWith(`/schemas/sha256-${sha256}.json`)) {
      throw new ParleyError('internal', `schema document ${url} does not match its content`);
    }
    const holder = this.short.get(s);
    if (holder !== undefined && holder !== sha256) throw new ParleyError('internal', `two schema documents share the short name ${s}`);
    if (this.docs.has(sha256)) return;
    if (this.docs.size >= this.maxDocs) {
      const [oldest, doc] = this.docs.entries().next().value as [string, StoredSchema];
      this.docs.delete(oldest);
      this.short.delete(shortHash(doc.text));
    }
    this.docs.set(sha256, { text, sha256 });
    this.short.set(s, sha256);
  }

  /** The document for a path below the root: `s/<8 base64url>` or `schemas/sha256-<hex>.json`. */
  get(path: string): StoredSchema | undefined {
    const full = FULL.exec(path);
    if (full) return this.docs.get(full[1]!);
    const s = SHORT.exec(path);
    const sha = s ? this.short.get(s[1]!) : undefined;
    return sha === undefined ? undefined : this.docs.get(sha);
  }
}
