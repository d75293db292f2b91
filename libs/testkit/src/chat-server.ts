/**
 * A real HTTP server on 127.0.0.1 (a random port) that emulates an
 * OpenAI-compatible `POST /v1/chat/completions` endpoint: no mock of fetch.
 * Used by the tests of every LLM adapter (libs/llm's inducer and judge, the
 * client's LLM mapper).
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
