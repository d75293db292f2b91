/**
 * Content-addressed schema documents (draft-chang §3.1, external references):
 * when a Parley-aware MCP client asks for `_meta.refs: "shared"`, sub-schemas
 * repeated across tools are emitted once as documents at
 * `<gateway>/schemas/sha256-<hex>.json`, and this store serves them. The name is
 * the hash of the content, so a document never changes and is served as
 * immutable (a client caches it for good and can check it). MCP clients do not
 * dereference network `$ref`s on their own (MCP 2026-07-28, SEP-2106), which is
 * why this is opt-in; the default tools/list stays self-contained.
 *
 * The store is per gateway process and bounded: a replica that did not build a
 * document answers 404, and listing tools again through it rebuilds it.
 */
import type { JsonObject } from '@parley/protocol';

const NAME = /^sha256-([0-9a-f]{64})\.json$/;

export class SchemaStore {
  private readonly docs = new Map<string, string>();

  constructor(private readonly maxDocs = 10_000) {}

  /** Keeps the document a URL ending in /schemas/sha256-<hex>.json names. */
  put(url: string, schema: JsonObject): void {
    const name = url.slice(url.lastIndexOf('/') + 1);
    if (!NAME.test(name) || this.docs.has(name)) return;
    if (this.docs.size >= this.maxDocs) this.docs.delete(this.docs.keys().next().value as string);
    this.docs.set(name, JSON.stringify(schema));
  }

  /** The JSON text for a file name like `sha256-<hex>.json`, if held. */
  get(name: string): string | undefined {
    return NAME.test(name) ? this.docs.get(name) : undefined;
  }
}
