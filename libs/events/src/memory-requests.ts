import { context as otelContext } from '@opentelemetry/api';
import { ParleyError } from '@parley/protocol';
import type { Bus, Stoppable } from './bus';
import { errorText, settleWithin } from './log';
import { subjectMatches } from './match';
import type { MemoryCore } from './memory-core';
import { endSpan, startProcess, startSend } from './tracing';

// Request/reply of the in-process bus (memory-bus.ts): queue groups answer
// round-robin; every group whose subject matches gets one copy, the first reply wins.

interface Server {
  subject: string;
  queue: string;
  handler: (body: Uint8Array) => Promise<Uint8Array>;
  inFlight: Set<Promise<unknown>>;
}

interface Group {
  members: Server[];
  next: number;
}

export interface MemoryRequests extends Pick<Bus, 'request' | 'serve'> {
  /** Fails the requests waiting for an answer (the bus is closing). */
  abortPending(): void;
  /** Waits, no longer than drainTimeoutMs, for the handlers still running. */
  drain(): Promise<void>;
}

export function createMemoryRequests(core: MemoryCore): MemoryRequests {
  const { log, later, assertOpen, drainTimeoutMs } = core;
  const groups = new Map<string, Group>();
  const pendingRequests = new Set<(e: Error) => void>();

  async function request(subject: string, body: Uint8Array, o: { timeoutMs: number }): Promise<Uint8Array> {
    assertOpen();
    const details = { subject, timeout_ms: o.timeoutMs };
    // Like NATS: every queue group whose subject matches gets one copy, the first reply wins.
    const chosen: Server[] = [];
    for (const g of groups.values()) {
      if (g.members.length === 0 || !subjectMatches(g.members[0]!.subject, subject)) continue;
      chosen.push(g.members[g.next++ % g.members.length]!);
    }
    // Trace context crosses as headers, as over NATS (see tracing.ts).
    const { span, carrier } = startSend({ subject });
    if (chosen.length === 0) {
      const e = new ParleyError('agent_unavailable', `No agent is serving ${subject}.`, { details });
      endSpan(span, e, e.type);
      throw e;
    }
    return new Promise<Uint8Array>((resolve, reject) => {
      let settled = false;
      const settle = (fn: () => void) => {
        if (settled) return;
        settled = true;
        cancelTimer();
        pendingRequests.delete(abort);
        fn();
      };
      const abort = (e: Error) =>
        settle(() => {
          endSpan(span, e);
          reject(e);
        });
      const cancelTimer = later(
        () =>
          settle(() => {
            const e = new ParleyError('agent_timeout', `No answer on ${subject} within ${o.timeoutMs} ms.`, { details });
            endSpan(span, e, e.type);
            reject(e);
          }),
        o.timeoutMs,
      );
      pendingRequests.add(abort);
      for (const s of chosen) {
        const served = startProcess({ subject, group: s.queue }, carrier);
        const run = otelContext
          .with(served.ctx, () => Promise.resolve().then(() => s.handler(body.slice())))
          .then(
            (reply) => {
              endSpan(served.span);
              settle(() => {
                endSpan(span);
                resolve(reply.slice());
              });
            },
            // No reply on a throw, as over NATS: the requester sees a timeout, the log says why.
            (err: unknown) => {
              endSpan(served.span, err);
              log.error('request handler threw; no reply sent', { subject, queue: s.queue, error: errorText(err) });
            },
          );
        s.inFlight.add(run);
        void run.finally(() => s.inFlight.delete(run));
      }
    });
  }

  async function serve(subject: string, queue: string, handler: (body: Uint8Array) => Promise<Uint8Array>): Promise<Stoppable> {
    assertOpen();
    const key = `${subject}\u0000${queue}`;
    const g = groups.get(key) ?? { members: [], next: 0 };
    groups.set(key, g);
    const me: Server = { subject, queue, handler, inFlight: new Set() };
    g.members.push(me);
    let stopped = false;
    return {
      async stop() {
        if (stopped) return;
        stopped = true;
        const i = g.members.indexOf(me);
        if (i >= 0) g.members.splice(i, 1);
        if (g.members.length === 0) groups.delete(key);
        await settleWithin(me.inFlight, drainTimeoutMs);
      },
    };
  }

  return {
    request,
    serve,
    abortPending() {
      for (const abort of [...pendingRequests]) abort(core.closedError());
    },
    async drain() {
      const serving: Promise<unknown>[] = [];
      for (const g of groups.values()) for (const s of g.members) serving.push(...s.inFlight);
      await settleWithin(serving, drainTimeoutMs);
    },
  };
}
