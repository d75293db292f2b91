/**
 * A real HTTP server on 127.0.0.1 (a random port) that emulates an
 * OpenAI-compatible `POST /v1/chat/completions` endpoint: no mock of fetch.
 * Each test sets a handler (the "model"); the server records every request
 * (path, authorization header, raw and parsed body) so tests can check what
 * reached the model.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ChatBody {
  model: string;
  messages: { role: string; content: string }[];
  temperature?: number;
  stream?: boolean;
  response_format: { type: string; json_schema: { name: string; strict: boolean; schema: unknown } };
}

export interface Received {
  path: string;
  authorization: string | undefined;
  raw: string;
  body: ChatBody;
}

/** What the handler answers: a JSON body (default status 200) or a raw body, optionally late. */
export interface Reply {
  status?: number;
  json?: unknown;
  raw?: string;
  delayMs?: number;
}

export type Handler = (body: ChatBody, received: Received) => Reply;

/** An OpenAI chat.completion envelope around the assistant's content. */
export function completion(content: string, finishReason = 'stop'): Reply {
  return {
    json: {
      id: 'chatcmpl-test',
      object: 'chat.completion',
      created: 1_700_000_000,
      model: 'test',
      choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: finishReason }],
      usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
    },
  };
}

/** The assistant's content as JSON (the structured answer). */
export function answer(value: unknown): Reply {
  return completion(JSON.stringify(value));
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

export interface ChatServer {
  readonly base: string;
  readonly received: Received[];
  setHandler(h: Handler): void;
  close(): Promise<void>;
}

export async function startChatServer(): Promise<ChatServer> {
  const received: Received[] = [];
  let handler: Handler = () => ({ status: 500, json: { error: { message: 'no handler set' } } });
  const server: Server = createServer((req, res) => {
    void (async () => {
      const raw = await readBody(req);
      if (req.method !== 'POST' || req.url !== '/v1/chat/completions') {
        res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":{"message":"not found"}}');
        return;
      }
      const rec: Received = { path: req.url, authorization: req.headers.authorization, raw, body: JSON.parse(raw) as ChatBody };
      received.push(rec);
      const reply = handler(rec.body, rec);
      if (reply.delayMs) await new Promise((r) => setTimeout(r, reply.delayMs));
      if (res.destroyed) return;
      if (reply.raw !== undefined) res.writeHead(reply.status ?? 200, { 'content-type': 'text/plain' }).end(reply.raw);
      else res.writeHead(reply.status ?? 200, { 'content-type': 'application/json' }).end(JSON.stringify(reply.json));
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    base,
    received,
    setHandler(h) {
      handler = h;
    },
    async close() {
      // fetch keeps connections alive; close them rather than wait for their idle timeout.
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** The JSON array of fragments quoted on the last line of the intent-induction user message. */
export function promptFragments(body: ChatBody): { text: string; count: number }[] {
  const user = body.messages.find((m) => m.role === 'user');
  if (!user) throw new Error('no user message');
  const lines = user.content.split('\n');
  return JSON.parse(lines[lines.length - 1] as string) as { text: string; count: number }[];
}

/** A port that was free a moment ago (listen, note it, close). */
export async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r));
  const port = (probe.address() as AddressInfo).port;
  await new Promise<void>((r) => probe.close(() => r()));
  return port;
}

/** The ParleyError a promise or function throws (fails the test when nothing is thrown). */
export async function catchError<E extends Error>(p: Promise<unknown> | (() => unknown), cls: new (...a: never[]) => E): Promise<E> {
  try {
    await (typeof p === 'function' ? p() : p);
  } catch (e) {
    if (e instanceof cls) return e;
    throw e;
  }
  throw new Error(`expected a ${cls.name}, nothing was thrown`);
}
