// The gateway's public discovery documents, served without credentials (they carry
// nothing per caller): the JWKS of negotiation's signatures and the agent cards'
// key (draft-zhou §7, RFC 7517), the OpenRPC document of POST /rpc (openrpc.ts),
// and the content-addressed shared schema documents (chang §3.1, schema-store.ts).
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Clock, Logger } from '@parley/runtime';
import type { CardSigner } from './a2a-card-versions';
import { gatewayBaseUrl, notAllowed, send } from './http-io';
import { OPENRPC_PATH, openRpcDocument } from './openrpc';
import type { Backends } from './rpc';
import type { SchemaStore } from './schema-store';

export const JWKS_PATH = '/.well-known/jwks.json';
/** How long the gateway keeps negotiation's JWKS (a rotated key shows within it). */
const JWKS_TTL_MS = 5000;

export interface DocumentRouteDeps {
  negotiation: Backends['negotiation'];
  cardSigner: CardSigner;
  schemas: SchemaStore;
  clock: Clock;
  log: Logger;
  version: string;
  publicUrl?: string;
}

/**
 * The JWKS body, kept JWKS_TTL_MS: negotiation's keys, then the agent cards' (a2a-card-versions.ts)
 * unless it is the same key. One lookup at a time; the last good set is served while negotiation
 * cannot be reached.
 */
function jwksCache(deps: DocumentRouteDeps): () => Promise<string> {
  let jwks: { at: number; body: string } | undefined;
  let loading: Promise<string> | undefined;
  return async () => {
    if (jwks && deps.clock.now().getTime() - jwks.at < JWKS_TTL_MS) return jwks.body;
    loading ??= deps.negotiation
      .getSigningKeys({})
      .then((r) => {
        const keys: Array<Record<string, string>> = r.keys.map((k) => ({ kty: k.kty, crv: k.crv, x: k.x, kid: k.kid, use: k.use, alg: k.alg }));
        for (const k of deps.cardSigner.jwks().keys) if (!keys.some((n) => n.kid === k.kid)) keys.push({ ...k });
        const body = JSON.stringify({ keys });
        jwks = { at: deps.clock.now().getTime(), body };
        return body;
      })
      .catch((e: unknown) => {
        if (!jwks) throw e;
        deps.log.warn('negotiation unreachable; serving the last JWKS', { error: e });
        return jwks.body;
      })
      .finally(() => {
        loading = undefined;
      });
    return loading;
  };
}

/** Answers `text` with `headers` (and its length); HEAD gets the headers alone when `head` is set. */
function sendText(res: ServerResponse, text: string, headers: Record<string, string>, head = false): void {
  res.writeHead(200, { ...headers, 'content-length': String(Buffer.byteLength(text)) });
  res.end(head ? undefined : text);
}

/** The route: answers the documents' paths; false for any other path. */
export function createDocumentRoute(deps: DocumentRouteDeps): (req: IncomingMessage, res: ServerResponse, path: string) => Promise<boolean> {
  const jwksBody = jwksCache(deps);
  return async (req, res, path) => {
    const read = req.method === 'GET' || req.method === 'HEAD';
    if (path === OPENRPC_PATH) {
      // The OpenRPC document of POST /rpc (the same as rpc.discover), public like the agent card.
      if (!read) notAllowed(res, 'GET', 'The OpenRPC document is read with GET');
      else sendText(res, openRpcDocument(deps.version, `${gatewayBaseUrl(req, deps.publicUrl)}/rpc`).text, { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'public, max-age=300' }, req.method === 'HEAD');
      return true;
    }
    if (path === JWKS_PATH) {
      if (!read) notAllowed(res, 'GET', 'The JWKS is read with GET');
      else sendText(res, await jwksBody(), { 'content-type': 'application/jwk-set+json', 'cache-control': `public, max-age=${JWKS_TTL_MS / 1000}` });
      return true;
    }
    if (req.method === 'GET' && (path.startsWith('/schemas/') || path.startsWith('/s/'))) {
      // chang §3.1: content-addressed, so immutable: cache for a year. `/s/<8 base64url>` is the
      // short address tools/list uses; `/schemas/sha256-<hex>.json` the full one.
      const doc = deps.schemas.get(path.slice(1));
      if (doc === undefined) send(res, 404, { error: 'unknown schema document; list the tools again with _meta.refs "shared"' });
      else sendText(res, doc.text, { 'content-type': 'application/schema+json', 'cache-control': 'public, max-age=31536000, immutable', etag: `"sha256-${doc.sha256}"` });
      return true;
    }
    return false;
  };
}
