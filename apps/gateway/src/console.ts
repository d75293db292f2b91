import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

/**
 * The operator console's static assets (apps/gateway/console: plain TypeScript,
 * no framework), built from the sources with esbuild when the gateway first
 * serves them (bundled, minified, ES2022) and kept in memory: no build step to
 * forget, no stale copy, and the image needs nothing more than it already has
 * (tsx runs on esbuild). Served at /console/ (index.html), /console/console.js
 * and /console/console.css with a strict Content-Security-Policy: scripts and
 * styles from the gateway itself only, calls to the gateway only. The page holds
 * no data: it asks /rpc with the operator's own credential.
 */
const SOURCES = join(dirname(fileURLToPath(import.meta.url)), '..', 'console');

interface Asset {
  body: Buffer;
  type: string;
  etag: string;
}

const CSP = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

function asset(body: string | Uint8Array, type: string): Asset {
  const b = Buffer.from(body);
  return { body: b, type, etag: `"${createHash('sha256').update(b).digest('base64url').slice(0, 22)}"` };
}

/** Builds the console's assets (index.html, console.js, console.css) from apps/gateway/console. */
export async function buildConsole(): Promise<Map<string, Asset>> {
  const js = await build({
    entryPoints: [join(SOURCES, 'main.ts')],
    bundle: true,
    format: 'esm',
    target: 'es2022',
    minify: true,
    write: false,
    legalComments: 'none',
    logLevel: 'silent',
  });
  const out = js.outputFiles[0];
  if (!out) throw new Error('console build produced no output');
  return new Map([
    ['index.html', asset(readFileSync(join(SOURCES, 'index.html')), 'text/html; charset=utf-8')],
    ['console.js', asset(out.contents, 'text/javascript; charset=utf-8')],
    ['console.css', asset(readFileSync(join(SOURCES, 'console.css')), 'text/css; charset=utf-8')],
  ]);
}

/** Serves /console/… (GET and HEAD); builds on first use and keeps the result. Returns false for other paths. */
export function consoleHandler(): (req: IncomingMessage, res: ServerResponse, path: string) => Promise<boolean> {
  let assets: Promise<Map<string, Asset>> | undefined;
  return async (req, res, path) => {
    if (path === '/console') {
      res.writeHead(308, { location: '/console/' }).end();
      return true;
    }
    if (!path.startsWith('/console/')) return false;
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { allow: 'GET, HEAD' }).end();
      return true;
    }
    assets ??= buildConsole().catch((e: unknown) => {
      assets = undefined;
      throw e;
    });
    const name = path.slice('/console/'.length) || 'index.html';
    const a = (await assets).get(name);
    if (!a) {
      res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end('not found\n');
      return true;
    }
    const headers = {
      'content-type': a.type,
      etag: a.etag,
      'cache-control': 'no-cache',
      'content-security-policy': CSP,
      'x-content-type-options': 'nosniff',
      'referrer-policy': 'no-referrer',
      'x-frame-options': 'DENY',
    };
    if (req.headers['if-none-match'] === a.etag) {
      res.writeHead(304, headers).end();
      return true;
    }
    res.writeHead(200, { ...headers, 'content-length': String(a.body.length) });
    res.end(req.method === 'HEAD' ? undefined : a.body);
    return true;
  };
}
