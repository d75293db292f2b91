import type { Queryable } from './db';

/**
 * Work that must wait for a transaction's COMMIT: a writer that appended outbox rows nudges its relay, but a nudge
 * sent before the commit finds nothing to claim (the rows are not visible yet), and the rows then wait for the
 * relay's poll. The Db adapters open a list for each transaction's handle, run it after COMMIT and drop it after
 * ROLLBACK.
 */
const pending = new WeakMap<Queryable, Array<() => void>>();

/** A transaction's handle begins (called by the Db adapters). */
export function openAfterCommit(tx: Queryable): void {
  pending.set(tx, []);
}

/** A handle wrapping another (a counting wrapper) shares its list. */
export function shareAfterCommit(wrapper: Queryable, inner: Queryable): void {
  const list = pending.get(inner);
  if (list) pending.set(wrapper, list);
}

/** The transaction ended: its hooks run once if it committed, never if it rolled back. A hook that throws is logged by nobody: hooks are nudges. */
export function closeAfterCommit(tx: Queryable, committed: boolean): void {
  const list = pending.get(tx);
  pending.delete(tx);
  if (!committed || !list) return;
  for (const fn of list.splice(0)) {
    try {
      fn();
    } catch {
      // A nudge that fails changes nothing the transaction wrote; the relay's poll still finds the rows.
    }
  }
}

/** Runs `fn` after `tx` commits (never if it rolls back). On a handle no adapter opened (a plain Queryable), on the next turn. */
export function afterCommit(tx: Queryable, fn: () => void): void {
  const list = pending.get(tx);
  if (list) list.push(fn);
  else setImmediate(fn);
}
