import { createInbox, type MsgHdrs, type NatsConnection, type Subscription } from '@nats-io/transport-node';

/**
 * Request/reply over one reply subscription of the bus's own (`<inbox>.*`, made at the first request), for
 * nats-requests.ts. nats.js's `nc.request` muxes replies the same way but builds a RequestError (a stack
 * captured) for every request it settles, a successful one included (its resolver cancels the settled
 * request, and cancel makes one): a visible share of the execution service's CPU. Here a request settles
 * with an outcome, no Error made on any path: the reply, the server's no-responders status (503 without a
 * body, the same test nats.js applies), the timeout, or the mux closed / its subscription failed.
 */
export type ReplyOutcome =
  | { kind: 'reply'; data: Uint8Array }
  | { kind: 'no_responders' }
  | { kind: 'timeout' }
  | { kind: 'closed' }
  | { kind: 'failed'; error: unknown };

export interface ReplyMux {
  /** Publishes `body` on `subject` with a reply subject of this mux; throws only when the publish itself does. */
  request(subject: string, body: Uint8Array, o: { timeoutMs: number; headers?: MsgHdrs }): Promise<ReplyOutcome>;
  /** Settles every request in flight as `closed` and drops the subscription; later requests settle `closed`. */
  close(): void;
}

interface Pending {
  settle: (o: ReplyOutcome) => void;
  timer: ReturnType<typeof setTimeout>;
}

export function createReplyMux(nc: NatsConnection): ReplyMux {
  const prefix = `${createInbox()}.`;
  const pending = new Map<string, Pending>();
  let sub: Subscription | undefined;
  let next = 0;
  let closed = false;

  const settle = (token: string, o: ReplyOutcome) => {
    const p = pending.get(token);
    if (!p) return;
    pending.delete(token);
    clearTimeout(p.timer);
    p.settle(o);
  };
  const settleAll = (o: ReplyOutcome) => {
    for (const token of [...pending.keys()]) settle(token, o);
  };

  // A connection closed under the mux (its owner closed a shared one) answers nothing more: say so now.
  void nc.closed().then(() => settleAll({ kind: 'failed', error: new Error('connection closed') }));

  const subscription = (): Subscription => {
    sub ??= nc.subscribe(`${prefix}*`, {
      callback: (err, msg) => {
        if (err) {
          // The subscription is gone (a permission refused, the connection closed): nothing in flight can be answered.
          sub = undefined;
          settleAll({ kind: 'failed', error: err });
          return;
        }
        const token = msg.subject.slice(prefix.length);
        if (msg.data.length === 0 && msg.headers?.code === 503) settle(token, { kind: 'no_responders' });
        else settle(token, { kind: 'reply', data: msg.data });
      },
    });
    return sub;
  };

  return {
    request(subject, body, o) {
      if (closed) return Promise.resolve({ kind: 'closed' });
      subscription();
      const token = (next++).toString(36);
      return new Promise<ReplyOutcome>((resolve) => {
        const timer = setTimeout(() => settle(token, { kind: 'timeout' }), o.timeoutMs);
        pending.set(token, { settle: resolve, timer });
        try {
          nc.publish(subject, body, { reply: prefix + token, ...(o.headers ? { headers: o.headers } : {}) });
        } catch (e) {
          pending.delete(token);
          clearTimeout(timer);
          throw e;
        }
      });
    },
    close() {
      closed = true;
      settleAll({ kind: 'closed' });
      if (sub && !sub.isClosed()) sub.unsubscribe();
      sub = undefined;
    },
  };
}
