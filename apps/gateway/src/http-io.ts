// The gateway's HTTP plumbing shared by every route: JSON answers, 405s, the
// base URL agent cards and the OpenRPC document advertise, and bounded body
// reading (MAX_BODY_BYTES, refused with HTTP 413 before the body is parsed).
import type { IncomingMessage, ServerResponse } from 'node:http';
import { ParleyError } from '@parley/protocol';
import { errorResponse } from './rpc';

/** Answers `body` as JSON with `status`. */
export function send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': String(Buffer.byteLength(text)), ...headers });
  res.end(text);
}

/** HTTP 405 with `Allow` and a typed `invalid_request` naming the method the path takes. */
export function notAllowed(res: ServerResponse, allow: string, why: string): void {
  send(res, 405, errorResponse(null, new ParleyError('invalid_request', why, { path: 'method', rule: `http_${allow.toLowerCase()}` })), { allow });
}

/**
 * The gateway's own base URL for agent cards: PUBLIC_URL, else the address this connection
 * reached (the configured bind address and port), never the request's Host header, which
 * a caller chooses (a card must not advertise an endpoint an attacker named).
 */
export function gatewayBaseUrl(req: IncomingMessage, publicUrl: string | undefined): string {
  if (publicUrl) return publicUrl.replace(/\/+$/, '');
  const scheme = 'encrypted' in req.socket && req.socket.encrypted ? 'https' : 'http';
  const addr = (req.socket.localAddress ?? '127.0.0.1').replace(/^::ffff:/, '');
  const host = addr.includes(':') ? `[${addr}]` : addr;
  return `${scheme}://${host}:${req.socket.localPort ?? 80}`;
}

/**
 * Reads the body up to `limit` bytes. A declared Content-Length over the limit is refused before
 * a byte is read; a body that passes it while streaming is refused at that moment: reading stops,
 * what was read is dropped, and the caller answers 413 and closes the connection (the rest of the
 * upload is never read). A known length is read into one buffer of that size (no second copy).
 */
export function readBody(req: IncomingMessage, limit: number): Promise<Buffer | 'too_large'> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) return Promise.resolve('too_large');
  return new Promise((resolve, reject) => {
    const fixed = Number.isInteger(declared) && declared >= 0 ? Buffer.allocUnsafe(declared) : undefined;
    const chunks: Buffer[] = [];
    let size = 0;
    let done = false;
    const finish = (v: Buffer | 'too_large') => {
      done = true;
      req.off('data', onData);
      resolve(v);
    };
    const onData = (c: Buffer) => {
      if (done) return;
      if (size + c.length > limit || (fixed && size + c.length > fixed.length)) {
        req.pause();
        finish('too_large');
        return;
      }
      if (fixed) c.copy(fixed, size);
      else chunks.push(c);
      size += c.length;
    };
    req.on('data', onData);
    req.on('end', () => {
      if (!done) finish(fixed ? fixed.subarray(0, size) : Buffer.concat(chunks, size));
    });
    req.on('error', (e) => {
      if (!done) {
        done = true;
        reject(e);
      }
    });
  });
}
