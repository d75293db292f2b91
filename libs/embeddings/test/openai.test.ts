/**
 * The OpenAI-compatible adapter against a real HTTP server on 127.0.0.1 (a
 * random port) that implements `POST /v1/embeddings` deterministically: no mock
 * of fetch. The server records what it received so batching, headers and the
 * request body can be checked; some models make it misbehave on purpose.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ParleyError } from '@parley/protocol';
import { cosine, createEmbedderFromEnv, createOpenAIEmbedder, findWordVectors } from '../src/index';

interface Received {
  path: string;
  authorization: string | undefined;
  body: { model: string; input: string[]; dimensions?: number; encoding_format?: string };
}

const received: Received[] = [];
let server: Server;
let base: string;

/** A deterministic, unnormalised vector of `dims` numbers from the text's characters. */
function vectorOf(text: string, dims: number): number[] {
  const v = new Array<number>(dims).fill(0);
  for (let i = 0; i < text.length; i++) v[(text.charCodeAt(i) * 7 + i) % dims]! += 3;
  return v;
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let s = '';
    req.setEncoding('utf8');
    req.on('data', (c: string) => (s += c));
    req.on('end', () => resolve(s));
    req.on('error', reject);
  });
}

beforeAll(async () => {
  server = createServer((req, res) => {
    void (async () => {
      const raw = await readBody(req);
      if (req.method !== 'POST' || req.url !== '/v1/embeddings') {
        res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":{"message":"not found"}}');
        return;
      }
      const body = JSON.parse(raw) as Received['body'];
      received.push({ path: req.url, authorization: req.headers.authorization, body });
      const dims = body.dimensions ?? 8;
      const reply = (status: number, payload: unknown) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(payload));
      switch (body.model) {
        case 'needs-key':
          if (req.headers.authorization !== 'Bearer sk-test') return reply(401, { error: { message: 'Incorrect API key provided' } });
          break;
        case 'overloaded':
          return reply(503, { error: { message: 'The server is overloaded' } });
        case 'slow':
          await new Promise((r) => setTimeout(r, 400));
          break;
        case 'short':
          return reply(200, { object: 'list', data: [{ object: 'embedding', index: 0, embedding: [1, 0] }] });
        case 'not-json':
          res.writeHead(200, { 'content-type': 'text/html' }).end('<html>gateway</html>');
          return;
        case 'ragged':
          return reply(200, { data: body.input.map((t, i) => ({ index: i, embedding: vectorOf(t, i === 0 ? dims : dims + 1) })) });
      }
      // Answer in reverse order: clients must place vectors by `index`.
      const data = body.input.map((t, index) => ({ object: 'embedding', index, embedding: vectorOf(t, dims) })).reverse();
      reply(200, { object: 'list', data, model: body.model, usage: { prompt_tokens: 1, total_tokens: 1 } });
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  // fetch keeps connections alive; close them rather than wait for their idle timeout.
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

beforeEach(() => {
  received.length = 0;
});

async function catchParley(p: Promise<unknown> | (() => unknown)): Promise<ParleyError> {
  try {
    await (typeof p === 'function' ? p() : p);
  } catch (e) {
    if (e instanceof ParleyError) return e;
    throw e;
  }
  throw new Error('expected a ParleyError, nothing was thrown');
}

describe('OpenAI-compatible embedder over real HTTP', () => {
  it('posts batches to <baseUrl>/embeddings and returns normalised vectors in input order', async () => {
    const e = createOpenAIEmbedder({ baseUrl: `${base}/v1`, model: 'test-embed', batchSize: 2, apiKey: 'sk-test' });
    expect(e.id).toBe('openai:test-embed');
    expect(e.dimensions).toBe(0); // unknown model: learned from the first answer
    const texts = ['window seat', 'aisle seat', 'vegetarian meal', 'quiet cabin', 'extra legroom'];
    const vs = await e.embed(texts);
    expect(e.dimensions).toBe(8);
    expect(received.map((r) => r.body.input)).toEqual([texts.slice(0, 2), texts.slice(2, 4), texts.slice(4)]);
    expect(received.every((r) => r.authorization === 'Bearer sk-test' && r.body.model === 'test-embed' && r.body.encoding_format === 'float')).toBe(true);
    texts.forEach((t, i) => {
      const expected = vectorOf(t, 8);
      const n = Math.sqrt(expected.reduce((s, x) => s + x * x, 0));
      expect(Array.from(vs[i]!).map((x) => Number(x.toFixed(6)))).toEqual(expected.map((x) => Number((x / n).toFixed(6))));
    });
    expect(cosine(vs[0]!, vs[0]!)).toBeCloseTo(1, 6);
  });

  it('sends `dimensions`, knows OpenAI models, and accepts a bare origin or a full URL', async () => {
    const e = createOpenAIEmbedder({ baseUrl: base, model: 'text-embedding-3-small', dimensions: 16 });
    expect(e.id).toBe('openai:text-embedding-3-small@16');
    expect(e.dimensions).toBe(16);
    const [v] = await e.embed(['fiber cut']);
    expect(v!.length).toBe(16);
    expect(received[0]!.body.dimensions).toBe(16);
    expect(received[0]!.authorization).toBeUndefined();
    expect(createOpenAIEmbedder({ baseUrl: 'https://api.openai.com/v1', model: 'text-embedding-3-large' }).dimensions).toBe(3072);
    await createOpenAIEmbedder({ baseUrl: `${base}/v1/embeddings`, model: 'm' }).embed(['x']);
    expect(received.map((r) => r.path)).toEqual(['/v1/embeddings', '/v1/embeddings']);
  });

  it('gives empty texts the zero vector without sending them', async () => {
    const e = createOpenAIEmbedder({ baseUrl: base, model: 'm', dimensions: 8 });
    const vs = await e.embed(['', 'remove red eye', '  ']);
    expect(received.map((r) => r.body.input)).toEqual([['remove red eye']]);
    expect(Array.from(vs[0]!)).toEqual(new Array(8).fill(0));
    expect(Array.from(vs[2]!)).toEqual(new Array(8).fill(0));
    expect(await e.embed([])).toEqual([]);
    expect(received).toHaveLength(1);
  });

  it('reports HTTP failures as unavailable with the status, retryable or not', async () => {
    const denied = await catchParley(createOpenAIEmbedder({ baseUrl: base, model: 'needs-key', apiKey: 'wrong' }).embed(['a']));
    expect({ type: denied.type, rule: denied.rule, status: denied.details['status'], retryable: denied.details['retryable'] }).toEqual({
      type: 'unavailable',
      rule: 'http_status',
      status: 401,
      retryable: false,
    });
    expect(String(denied.details['body'])).toContain('Incorrect API key');
    expect(denied.message).toContain('401');
    const busy = await catchParley(createOpenAIEmbedder({ baseUrl: base, model: 'overloaded' }).embed(['a']));
    expect({ rule: busy.rule, status: busy.details['status'], retryable: busy.details['retryable'] }).toEqual({ rule: 'http_status', status: 503, retryable: true });
    const missing = await catchParley(createOpenAIEmbedder({ baseUrl: `${base}/nope`, model: 'm' }).embed(['a']));
    expect(missing.details['status']).toBe(404);
    expect(missing.details['url']).toBe(`${base}/nope/embeddings`);
  });

  it('reports malformed answers as unavailable (bad_response)', async () => {
    for (const model of ['short', 'not-json', 'ragged']) {
      const err = await catchParley(createOpenAIEmbedder({ baseUrl: base, model }).embed(['a', 'b']));
      expect({ model, type: err.type, rule: err.rule, retryable: err.details['retryable'] }).toEqual({ model, type: 'unavailable', rule: 'bad_response', retryable: false });
    }
  });

  it('times out and reports it', async () => {
    const err = await catchParley(createOpenAIEmbedder({ baseUrl: base, model: 'slow', timeoutMs: 50 }).embed(['a']));
    expect({ type: err.type, rule: err.rule, timeoutMs: err.details['timeoutMs'] }).toEqual({ type: 'unavailable', rule: 'timeout', timeoutMs: 50 });
  });

  it('reports an unreachable endpoint as unavailable (network)', async () => {
    // A port that was just free: listen, note it, close.
    const probe = createServer();
    await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r));
    const port = (probe.address() as AddressInfo).port;
    await new Promise<void>((r) => probe.close(() => r()));
    const err = await catchParley(createOpenAIEmbedder({ baseUrl: `http://127.0.0.1:${port}`, model: 'm' }).embed(['a']));
    expect({ type: err.type, rule: err.rule, retryable: err.retryable }).toEqual({ type: 'unavailable', rule: 'network', retryable: true });
  });

  it('refuses bad options with invalid_params naming the option', async () => {
    const cases: [unknown, string, string][] = [
      [{ baseUrl: base, model: 'm', batch: 2 }, 'opts.batch', 'unknown_option'],
      [{ baseUrl: 'not a url', model: 'm' }, 'opts.baseUrl', 'format'],
      [{ baseUrl: 'ftp://x', model: 'm' }, 'opts.baseUrl', 'format'],
      [{ baseUrl: base }, 'opts.model', 'required'],
      [{ baseUrl: base, model: 'm', batchSize: 0 }, 'opts.batchSize', 'minimum'],
      [{ baseUrl: base, model: 'm', dimensions: 1.5 }, 'opts.dimensions', 'minimum'],
    ];
    for (const [opts, path, rule] of cases) {
      const err = await catchParley(() => createOpenAIEmbedder(opts as never));
      expect({ type: err.type, path: err.path, rule: err.rule }).toEqual({ type: 'invalid_params', path, rule });
    }
  });
});

describe('createEmbedderFromEnv', () => {
  it('defaults to the offline embedder', () => {
    // With the word-vector cache built (npm ci) the offline space is WordNet + GloVe, else WordNet alone.
    const offline = findWordVectors().status === 'found' ? 'offline-wordnet-glove-v1' : 'offline-wordnet-v1';
    expect(createEmbedderFromEnv({}).id).toBe(offline);
    expect(createEmbedderFromEnv({ PARLEY_EMBEDDER: ' Offline ' }).id).toBe(offline);
  });

  it('builds the OpenAI-compatible embedder from PARLEY_EMBEDDINGS_*', async () => {
    const e = createEmbedderFromEnv({
      PARLEY_EMBEDDER: 'openai',
      PARLEY_EMBEDDINGS_URL: `${base}/v1`,
      PARLEY_EMBEDDINGS_MODEL: 'needs-key',
      PARLEY_EMBEDDINGS_API_KEY: 'sk-test',
      PARLEY_EMBEDDINGS_DIMENSIONS: '4',
    });
    expect(e.id).toBe('openai:needs-key@4');
    const [v] = await e.embed(['quiet cabin']);
    expect(v!.length).toBe(4);
    expect(received[0]!.authorization).toBe('Bearer sk-test');
  });

  it('names the variable that is wrong or missing', async () => {
    const cases: [Record<string, string>, string, string][] = [
      [{ PARLEY_EMBEDDER: 'bert' }, 'env.PARLEY_EMBEDDER', 'enum'],
      [{ PARLEY_EMBEDDER: 'openai', PARLEY_EMBEDDINGS_MODEL: 'm' }, 'env.PARLEY_EMBEDDINGS_URL', 'required'],
      [{ PARLEY_EMBEDDER: 'openai', PARLEY_EMBEDDINGS_URL: base }, 'env.PARLEY_EMBEDDINGS_MODEL', 'required'],
      [{ PARLEY_EMBEDDER: 'openai', PARLEY_EMBEDDINGS_URL: base, PARLEY_EMBEDDINGS_MODEL: 'm', PARLEY_EMBEDDINGS_DIMENSIONS: 'x' }, 'env.PARLEY_EMBEDDINGS_DIMENSIONS', 'minimum'],
    ];
    for (const [env, path, rule] of cases) {
      const err = await catchParley(() => createEmbedderFromEnv(env));
      expect({ type: err.type, path: err.path, rule: err.rule }).toEqual({ type: 'invalid_params', path, rule });
    }
  });
});
