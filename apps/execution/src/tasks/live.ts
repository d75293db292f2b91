import { randomUUID } from 'node:crypto';
import type { Bus, Stoppable, Subjects } from '@parley/events';
import type { Logger } from '@parley/runtime';

/**
 * Wake-ups for the live part of TaskResultSubscribe streams. The notification
 * table is the source of truth: a stream reads it after its cursor, so it
 * sends every seq once and in order whatever wakes it. What wakes it:
 * - a commit on this replica (`changed`, at once);
 * - a commit on another replica: each replica serves `subjects.taskChanges()`
 *   in a queue group of its own, so one request reaches one member of every
 *   group, i.e. every replica (core NATS, no persistence: a lost signal only
 *   delays a stream until the poll);
 * - the poll, every `pollMs` (default 1000), the safety net.
 */
export interface TaskFeed {
  /** After a commit that added notifications to `taskId`. */
  changed(taskId: string): void;
  /** Resolves when `taskId` may have new notifications, after `pollMs` at the latest, or when `signal` aborts. */
  wait(taskId: string, signal?: AbortSignal): Promise<void>;
  start(): Promise<void>;
  stop(): Promise<void>;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

export function createTaskFeed(opts: { bus: Bus; subjects: Subjects; log: Logger; pollMs?: number }): TaskFeed {
  const pollMs = opts.pollMs ?? 1000;
  const waiters = new Map<string, Set<() => void>>();
  let served: Stoppable | undefined;
  let stopped = false;

  function wake(taskId: string): void {
    const set = waiters.get(taskId);
    if (!set) return;
    waiters.delete(taskId);
    for (const w of set) w();
  }

  return {
    changed(taskId) {
      wake(taskId);
      if (stopped) return;
      // Fire and forget: nobody else listening (agent_unavailable) is the single-replica case.
      opts.bus.request(opts.subjects.taskChanges(), encoder.encode(JSON.stringify({ task_id: taskId })), { timeoutMs: 1000 }).catch(() => {});
    },
    wait(taskId, signal) {
      return new Promise<void>((resolve) => {
        if (signal?.aborted || stopped) return resolve();
        const done = () => {
          clearTimeout(timer);
          signal?.removeEventListener('abort', done);
          const set = waiters.get(taskId);
          if (set?.delete(done) && set.size === 0) waiters.delete(taskId);
          resolve();
        };
        const timer = setTimeout(done, pollMs);
        signal?.addEventListener('abort', done, { once: true });
        let set = waiters.get(taskId);
        if (!set) waiters.set(taskId, (set = new Set()));
        set.add(done);
      });
    },
    async start() {
      served = await opts.bus.serve(opts.subjects.taskChanges(), `execution-live-${randomUUID()}`, async (body) => {
        try {
          const { task_id } = JSON.parse(decoder.decode(body)) as { task_id?: unknown };
          if (typeof task_id === 'string') wake(task_id);
        } catch (e) {
          opts.log.debug('malformed task change signal ignored', { error: e });
        }
        return new Uint8Array();
      });
    },
    async stop() {
      stopped = true;
      for (const id of [...waiters.keys()]) wake(id);
      await served?.stop();
    },
  };
}
