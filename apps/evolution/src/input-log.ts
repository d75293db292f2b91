// The evolver's state as a deterministic fold of `evolution.inputs` in seq order
// (draft-zhou §6.2.2, §6.2.3): every input is applied and logged under one mutex,
// with the events it caused in the outbox, in one transaction; a failed
// transaction (commit included) folds the log again, so memory never holds what
// the database does not.
import { afterCommit } from '@parley/storage';
import type { InductionResult, KeyEdit, Lexicon } from '@parley/evolution';
import { appendToOutbox, type Subjects } from '@parley/events';
import { createEvolver, type Evolver, type EvolverConfig, type InduceFn, type MaturedCluster, type PatchChange } from '@parley/pool';
import type { SchemaTemplate } from '@parley/protocol';
import { createMutex, type Clock, type Logger } from '@parley/runtime';
import type { Db, Queryable } from '@parley/storage';
import { changeEvent } from './wire';

export type InputKind = 'base' | 'matured' | 'grown' | 'execution' | 'audit' | 'tick' | 'approve' | 'reject' | 'pin' | 'edit';

/** One input as logged: what it was, when, its body, and the patch changes it caused. */
export interface Applied {
  kind: InputKind;
  at: number;
  body: unknown;
  changes: readonly PatchChange[];
}

export interface InputLogDeps {
  db: Db;
  subjects: Subjects;
  clock: Clock;
  log: Logger;
  config?: EvolverConfig;
  induce?: InduceFn;
  lexicon?: Lexicon;
  onOutboxWrite: () => void;
}

export interface InputLog {
  /** The evolver folded so far (replaced by a rebuild: ask again rather than keep it). */
  current(): Evolver;
  /** Logs an input already applied, with the events its changes cause (outbox). */
  record(tx: Queryable, a: Applied, eventId: string | null): Promise<void>;
  /** Applies and logs live. Call inside `transact` (or `serialize` and a transaction). */
  step(tx: Queryable, kind: InputKind, at: number, body: Record<string, unknown>, eventId?: string | null): Promise<readonly PatchChange[]>;
  /** Logs patch changes to the process log. */
  logChanges(changes: readonly PatchChange[]): void;
  /** Folds the whole log again into a fresh evolver. */
  rebuild(): Promise<void>;
  /** Runs `work` under the mutex in a transaction; on failure folds the log again and rethrows. */
  transact<T>(work: (tx: Queryable) => Promise<T>): Promise<T>;
  /** Serialises a unit of work with the in-memory state. */
  serialize<T>(work: () => Promise<T>): Promise<T>;
  /** Whether no unit of work runs or waits: the state in memory is then the committed one. */
  idle(): boolean;
  /** Reads the evolver as committed: after the unit of work in hand, if any (Mutex.read). */
  read<T>(fn: () => T): Promise<T>;
}

/** Applies one input to `ev`; the same code runs live and in a replay. */
function apply(ev: Evolver, kind: InputKind, at: number, body: Record<string, unknown>): readonly PatchChange[] {
  switch (kind) {
    case 'base':
      ev.setBase(body['template'] as SchemaTemplate);
      return [];
    case 'matured':
      return ev.applyMatured(body['matured'] as MaturedCluster, body['induction'] as InductionResult).changes;
    case 'grown':
      return ev.applyGrown(body['matured'] as MaturedCluster, body['induction'] as InductionResult).changes;
    case 'execution':
      ev.recordExecution(body as never);
      return [];
    case 'audit':
      ev.recordAudit({ at, patch_id: String(body['patch_id']), key_name: String(body['key_name']), aligned: body['aligned'] === true });
      return [];
    case 'tick':
      return ev.tick(at).changes;
    case 'approve':
      return ev.approve({ at, patch_id: String(body['patch_id']), actor: String(body['actor']), reason: String(body['reason']) });
    case 'reject':
      return ev.reject({ at, patch_id: String(body['patch_id']), actor: String(body['actor']), reason: String(body['reason']) });
    case 'pin':
      return ev.pin({ at, patch_id: String(body['patch_id']), actor: String(body['actor']), reason: String(body['reason']), pinned: body['pinned'] === true });
    case 'edit':
      return ev.edit({ at, patch_id: String(body['patch_id']), key_name: String(body['key']), actor: String(body['actor']), reason: String(body['reason']), changes: body['changes'] as KeyEdit }).changes;
  }
}

export function createInputLog(deps: InputLogDeps): InputLog {
  const { db, log } = deps;
  const mutex = createMutex();
  const make = (): Evolver => createEvolver({ templates: [], ...(deps.config ? { config: deps.config } : {}), ...(deps.induce ? { induce: deps.induce } : {}), ...(deps.lexicon ? { lexicon: deps.lexicon } : {}) });
  let evolver = make();

  const logChanges = (changes: readonly PatchChange[]): void => {
    for (const c of changes) log.info(`patch ${c.kind}`, { patch_id: c.record.patch.patch_id, key: c.key_name, status: c.record.status, actor: c.actor, reasons: c.reasons });
  };

  async function record(tx: Queryable, a: Applied, eventId: string | null): Promise<void> {
    await tx.query('INSERT INTO evolution.inputs (event_id, kind, at_ms, body) VALUES ($1, $2, $3, $4)', [eventId, a.kind, a.at, JSON.stringify(a.body)]);
    await appendToOutbox(tx, 'evolution', deps.subjects, a.changes.map((c) => changeEvent(c, deps.clock)));
    // After the commit: a nudge before it would find the rows not yet visible, and they would wait for the poll.
    if (a.changes.length > 0) afterCommit(tx, deps.onOutboxWrite);
  }

  async function rebuild(): Promise<void> {
    const started = performance.now();
    const next = make();
    let n = 0;
    for (let after = 0; ; ) {
      const { rows } = await db.query<{ seq: string; kind: InputKind; at_ms: string; body: Record<string, unknown> | string }>(
        'SELECT seq, kind, at_ms, body FROM evolution.inputs WHERE seq > $1 ORDER BY seq LIMIT 2000',
        [after],
      );
      if (rows.length === 0) break;
      for (const r of rows) {
        apply(next, r.kind, Number(r.at_ms), typeof r.body === 'string' ? (JSON.parse(r.body) as Record<string, unknown>) : r.body);
        n++;
      }
      after = Number(rows[rows.length - 1]?.seq);
    }
    evolver = next;
    log.info('evolver rebuilt from its input log', { inputs: n, patches: evolver.patches().length, ms: Math.round(performance.now() - started) });
  }

  return {
    current: () => evolver,
    record,
    logChanges,
    rebuild,
    async step(tx, kind, at, body, eventId = null) {
      const changes = apply(evolver, kind, at, body);
      await record(tx, { kind, at, body, changes }, eventId);
      logChanges(changes);
      return changes;
    },
    transact: (work) =>
      mutex.run(async () => {
        try {
          return await db.transaction(work);
        } catch (e) {
          await rebuild().catch((err: unknown) => log.error('evolver rebuild failed', { error: String(err) }));
          throw e;
        }
      }),
    serialize: (work) => mutex.run(work),
    idle: () => mutex.idle(),
    read: (fn) => mutex.read(fn),
  };
}
