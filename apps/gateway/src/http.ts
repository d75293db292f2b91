import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { ParleyError } from '@parley/protocol';
import { handleHealth, type HealthState, type Logger } from '@parley/runtime';
import { errorResponse, handleOne, type Backends, type JsonRpcResponse } from './rpc';

/**
 * The gateway's HTTP server: `POST /rpc` (JSON-RPC 2.0, single or batch),
 * `GET /healthz`, `GET /readyz`. Bodies over `maxBodyBytes` are refused with
 * HTTP 413 and a JSON-RPC `body_too_large` error before they are parsed.
 */
export interface GatewayHttpOptions {
  backends: Backends;
  health: HealthState;
  log: Logger;
  maxBodyBytes: number;
  /** Largest batch accepted (JSON-RPC 2.0 §6). */
  maxBatch?: number;
}

export function createGatewayServer(opts: GatewayHttpOptions): Server {
  const maxBatch = opts.maxBatch ?? 100;
  const onInternal = (e: unknown, method: string) => opts.log.error('internal error', { method, error: e });

  const send = (res: ServerResponse, status: number, body: unknown) => {
    const text = JSON.stringify(body);
    res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text) });
    res.end(text);
  };

  const handleRpc = async (req: IncomingMessage, res: ServerResponse) => {
    const body = await readBody(req, opts.maxBodyBytes);
    if (body === 'too_large') {
      res.setHeader('connection', 'close');
      send(res, 413, errorResponse(null, new ParleyError('body_too_large', `Request body exceeds ${opts.maxBodyBytes} bytes`, {
        path: 'body',
        rule: 'max_bytes',
        details: { max_bytes: opts.maxBodyBytes },
      })));
      return;
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(body.toString('utf8'));
    } catch {
      send(res, 200, errorResponse(null, new ParleyError('parse_error', 'The request body is not valid JSON', { path: 'body', rule: 'json' })));
      return;
    }
    if (Array.isArray(parsed)) {
      if (parsed.length === 0 || parsed.length > maxBatch) {
        send(res, 200, errorResponse(null, new ParleyError('invalid_request', `A batch must hold 1 to ${maxBatch} requests`, { path: 'body', rule: 'batch_size' })));
        return;
      }
      const out = (await Promise.all(parsed.map((r) => handleOne(r, opts.backends, onInternal)))).filter((r): r is JsonRpcResponse => r !== undefined);
      if (out.length === 0) {
        res.writeHead(204).end();
        return;
      }
      send(res, 200, out);
      return;
    }
    const one = await handleOne(parsed, opts.backends, onInternal);
    if (!one) {
      res.writeHead(204).end();
      return;
    }
    send(res, 200, one);
  };

  return createServer((req, res) => {
    const path = (req.url ?? '').split('?')[0] ?? '';
    const run = async () => {
      if (path === '/rpc') {
        if (req.method !== 'POST') {
          res.setHeader('allow', 'POST');
          send(res, 405, errorResponse(null, new ParleyError('invalid_request', 'Use POST for JSON-RPC', { path: 'method', rule: 'http_post' })));
          return;
        }
        await handleRpc(req, res);
        return;
      }
      if (req.method === 'GET' && (await handleHealth(opts.health, path, res))) return;
      send(res, 404, { error: 'not found', endpoints: ['POST /rpc', 'GET /healthz', 'GET /readyz'] });
    };
    run().catch((e: unknown) => {
      opts.log.error('request failed', { error: e });
      if (!res.headersSent) send(res, 500, errorResponse(null, e));
      else res.destroy();
    });
  });
}

/** Reads the body up to `limit` bytes; stops reading and reports 'too_large' past it. */
function readBody(req: IncomingMessage, limit: number): Promise<Buffer | 'too_large'> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) {
    req.resume();
    return Promise.resolve('too_large');
  }
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let done = false;
    req.on('data', (c: Buffer) => {
      if (done) return;
      size += c.length;
      if (size > limit) {
        done = true;
        req.resume();
        resolve('too_large');
        return;
      }
      chunks.push(c);
    });
    req.on('end', () => {
      if (!done) resolve(Buffer.concat(chunks));
    });
    req.on('error', (e) => {
      if (!done) reject(e);
    });
  });
}
