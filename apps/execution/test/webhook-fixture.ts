import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { TaskApi } from '@parley/contracts';
import type { Bus, Stoppable, Subjects } from '@parley/events';
import { ParleyError } from '@parley/protocol';
import type { Clock, Logger } from '@parley/runtime';
import type { Db } from '@parley/storage';
import { createTaskService } from '../src/tasks/service';
import { webhookUrlPolicy } from '../src/tasks/webhook-allow';
import { baseTemplate, fakeNegotiation } from './helpers';

// Shared by the webhook trust tests (unit on PGlite, integration on PostgreSQL):
// a TaskService without a background deliverer (each test drives its own
// deliverer with deliverDue on its clock), an async executing agent on the
// bus, and an HTTP receiver that keeps every request as it arrived.

export const AGENT = 'async-agent';
export const SENDER = 'ops-agent';
const PROMPT = [
  '<content namespace="prompt">',
  '##target object',
  '<object>base station cluster 17</object>',
  '##task description',
  '<description>diagnose the batch outage of the cluster</description>',
  '##environmental information',
  '<environmentInput>IP link 3 interrupted at 10:02</environmentInput>',
].join('\n');

/** TaskService with the given URL policy (a PARLEY_WEBHOOK_ALLOW value; undefined: the default policy). */
export function taskApi(deps: { db: Db; bus: Bus; subjects: Subjects; clock: Clock; log: Logger }, allow?: string): TaskApi {
  return createTaskService({
    ...deps,
    negotiation: fakeNegotiation({ agent: 'skyways-air', base: baseTemplate(), now: () => deps.clock.now().getTime() }),
    timeoutMs: 2000,
    onChange: () => {},
    feed: { wait: () => new Promise(() => {}) },
    webhookPolicy: webhookUrlPolicy(allow),
  }).api;
}

/** An executing agent that accepts every task with `processing`; remembers what it was sent. */
export async function serveAsyncAgent(bus: Bus, subjects: Subjects): Promise<{ kinds: string[] } & Stoppable> {
  const kinds: string[] = [];
  const enc = new TextEncoder();
  const s = await bus.serve(subjects.task(AGENT), AGENT, async (body) => {
    const m = JSON.parse(new TextDecoder().decode(body)) as { kind: string };
    kinds.push(m.kind);
    return enc.encode(JSON.stringify(m.kind === 'assign' ? { ok: true, accepted: true, status: 'processing' } : { ok: true }));
  });
  return { kinds, stop: () => s.stop() };
}

/** An async task (seq 1 created, 2 processing); its id. */
export async function newTask(api: TaskApi, subscription?: { protocol: string; url?: string; method?: string }): Promise<{ id: string; subscription_id?: string; webhook_secret?: string }> {
  const r = await api.taskAssign({
    send_from: SENDER,
    send_to: AGENT,
    content: PROMPT,
    task_async: true,
    term_explains: [],
    msg_data: [],
    data_params: [],
    ...(subscription ? { subscription } : {}),
  });
  return { id: r.task!.task_id, ...(r.subscription_id ? { subscription_id: r.subscription_id } : {}), ...(r.webhook_secret ? { webhook_secret: r.webhook_secret } : {}) };
}

export function notify(api: TaskApi, taskId: string, status: string): Promise<unknown> {
  return api.taskResultNotify({ task_id: taskId, send_from: AGENT, status });
}

export async function failure(p: Promise<unknown>): Promise<ParleyError> {
  const e = await p.then(
    () => undefined,
    (x: unknown) => x,
  );
  if (!(e instanceof ParleyError)) throw new Error(`expected a ParleyError, got ${String(e)}`);
  return e;
}

export interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  /** The body exactly as it arrived. */
  raw: Buffer;
}

/** An HTTP receiver on 127.0.0.1 answering `status` (204 by default). */
export async function startReceiver(status: () => number = () => 204): Promise<{ url: string; received: Received[]; close(): Promise<void> }> {
  const received: Received[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({ path: req.url ?? '', headers: req.headers, raw: Buffer.concat(chunks) });
      res.writeHead(status()).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    received,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

export interface SubscriptionRow {
  state: string;
  disabled_reason: string | null;
  disabled_at: string | null;
  attempts: number;
  cursor: number;
  last_error: string | null;
  next_attempt_at: string;
  secret: string | null;
}

export async function subscriptionRow(db: Db, id: string): Promise<SubscriptionRow> {
  const r = await db.query<SubscriptionRow & { disabled_at: unknown; next_attempt_at: unknown }>(
    'SELECT state, disabled_reason, disabled_at, attempts, cursor, last_error, next_attempt_at, secret FROM execution.subscriptions WHERE id = $1',
    [id],
  );
  const row = r.rows[0];
  if (!row) throw new Error(`no subscription ${id}`);
  const iso = (v: unknown) => (v === null ? null : new Date(v as string | Date).toISOString());
  return { ...row, attempts: Number(row.attempts), cursor: Number(row.cursor), disabled_at: iso(row.disabled_at), next_attempt_at: iso(row.next_attempt_at)! };
}
