/**
 * The SQL of AN tasks (libs/storage/migrations/execution/002_tasks.sql). Every
 * change of one task runs in one transaction that first takes the task's
 * advisory lock (`lockTask`): replicas and concurrent calls change a task one
 * at a time, and the per-task seq numbers of context messages and
 * notifications are handed out without gaps or duplicates.
 *
 * A state change (`transition`) is checked by libs/an's assertTransition and
 * writes, in the caller's transaction: the task's new status, a
 * task_notification with the next seq, and one `task.status` outbox event per
 * party (sender, executing agent, NATS subscribers). Nothing is acknowledged
 * before it is committed, and nothing committed is lost on the way out.
 */
import { randomUUID } from 'node:crypto';
import { appendContext, assertTransition, type ContextMessage, type NegotiationRound, type NegotiationState, type Task, type TaskNotification, type TaskState } from '@parley/an';
import { EventType, outboxInsert, taskToken, type EventEnvelope, type Subjects } from '@parley/events';
import { ParleyError } from '@parley/protocol';
import type { Queryable } from '@parley/storage';
import { isoTimestamp } from '@parley/protocol';

export function iso(v: unknown): string {
  return isoTimestamp(v instanceof Date ? v : String(v));
}

function json<T>(v: unknown): T {
  return (typeof v === 'string' ? JSON.parse(v) : v) as T;
}

/** A task as stored (the model's Task plus the seq of its latest notification). */
export interface StoredTask extends Task {
  readonly last_seq: number;
}

interface TaskRow {
  task_id: string;
  send_from: string;
  send_to: string;
  content: string | null;
  prompt: unknown;
  scenario: string | null;
  schema_id: string | null;
  payload: unknown;
  task_async: boolean;
  status: TaskState;
  expected_response: string | null;
  term_explains: unknown;
  msg_data: string[];
  subscription: unknown;
  result: unknown;
  last_seq: number;
  created_at: unknown;
  updated_at: unknown;
}

function taskFromRow(r: TaskRow): StoredTask {
  const t: { -readonly [K in keyof StoredTask]: StoredTask[K] } = {
    task_id: r.task_id,
    send_from: r.send_from,
    send_to: r.send_to,
    task_async: r.task_async,
    status: r.status,
    term_explains: json(r.term_explains) ?? [],
    msg_data: r.msg_data ?? [],
    created_at: iso(r.created_at),
    updated_at: iso(r.updated_at),
    last_seq: Number(r.last_seq),
  };
  if (r.content !== null) t.content = r.content;
  if (r.prompt !== null) t.prompt = json(r.prompt);
  if (r.scenario !== null) t.scenario = r.scenario;
  if (r.schema_id !== null) t.schema_id = r.schema_id;
  if (r.payload !== null) t.payload = json(r.payload);
  if (r.expected_response !== null) t.expected_response = r.expected_response;
  if (r.subscription !== null) t.subscription = json(r.subscription);
  if (r.result !== null) t.result = json(r.result);
  return t;
}

/** Serialises every change of one task (and of a negotiation that precedes it) until the transaction ends. */
export async function lockTask(tx: Queryable, taskId: string): Promise<void> {
  await tx.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [`parley.task.${taskId}`]);
}

export async function loadTask(q: Queryable, taskId: string): Promise<StoredTask | undefined> {
  const r = await q.query<TaskRow>('SELECT * FROM execution.tasks WHERE task_id = $1', [taskId]);
  return r.rows[0] ? taskFromRow(r.rows[0]) : undefined;
}

export function taskNotFound(taskId: string, path = 'params.task_id'): ParleyError {
  return new ParleyError('task_not_found', `No task with task_id ${JSON.stringify(taskId)}`, { path, rule: 'exists', details: { task_id: taskId } });
}

export async function requireTask(q: Queryable, taskId: string, path = 'params.task_id'): Promise<StoredTask> {
  const t = await loadTask(q, taskId);
  if (!t) throw taskNotFound(taskId, path);
  return t;
}

export async function insertTask(tx: Queryable, t: Task): Promise<void> {
  await tx.query(
    `INSERT INTO execution.tasks (task_id, send_from, send_to, content, prompt, scenario, schema_id, payload, task_async, status,
       expected_response, term_explains, msg_data, subscription, result, last_seq, created_at, updated_at)
     VALUES ($1, $2, $3, $4, $5::jsonb, $6, $7, $8::jsonb, $9, $10, $11, $12::jsonb, $13, $14::jsonb, NULL, 0, $15, $15)`,
    [
      t.task_id,
      t.send_from,
      t.send_to,
      t.content ?? null,
      t.prompt ? JSON.stringify(t.prompt) : null,
      t.scenario ?? null,
      t.schema_id ?? null,
      t.payload ? JSON.stringify(t.payload) : null,
      t.task_async,
      t.status,
      t.expected_response ?? null,
      JSON.stringify(t.term_explains),
      [...t.msg_data],
      t.subscription ? JSON.stringify(t.subscription) : null,
      t.created_at,
    ],
  );
}

// ---------------------------------------------------------------------------
// Context (5.2)
// ---------------------------------------------------------------------------

interface MessageRow {
  task_id: string;
  seq: number;
  send_from: string;
  send_to: string;
  commu_type: ContextMessage['commu_type'];
  request: unknown;
  response: unknown;
  time: unknown;
}

function messageFromRow(r: MessageRow): ContextMessage {
  const m: { -readonly [K in keyof ContextMessage]: ContextMessage[K] } = {
    task_id: r.task_id,
    seq: Number(r.seq),
    send_from: r.send_from,
    send_to: r.send_to,
    commu_type: r.commu_type,
    time: iso(r.time),
  };
  if (r.request !== null) m.request = json(r.request);
  if (r.response !== null) m.response = json(r.response);
  return m;
}

/** Longest request/response content kept in the context (longer results are cut, with a marker). */
const MAX_CONTEXT_CONTENT = 16 * 1024;

export function clip(s: string): string {
  return s.length <= MAX_CONTEXT_CONTENT ? s : `${s.slice(0, MAX_CONTEXT_CONTENT)}… [${s.length - MAX_CONTEXT_CONTENT} more characters]`;
}

/** Appends one message to a task's context (libs/an appendContext: next seq, time order); caller holds the task lock. */
export async function appendMessage(tx: Queryable, msg: Omit<ContextMessage, 'seq'>): Promise<ContextMessage> {
  const last = await tx.query<MessageRow>('SELECT * FROM execution.task_messages WHERE task_id = $1 ORDER BY seq DESC LIMIT 1', [msg.task_id]);
  const history = last.rows[0] ? [messageFromRow(last.rows[0])] : [];
  const entry = appendContext(history, msg).at(-1) as ContextMessage;
  await tx.query(
    `INSERT INTO execution.task_messages (task_id, seq, send_from, send_to, commu_type, request, response, time)
     VALUES ($1, $2, $3, $4, $5, $6::jsonb, $7::jsonb, $8)`,
    [
      entry.task_id,
      entry.seq,
      entry.send_from,
      entry.send_to,
      entry.commu_type,
      entry.request ? JSON.stringify(entry.request) : null,
      entry.response ? JSON.stringify(entry.response) : null,
      entry.time,
    ],
  );
  return entry;
}

export async function listMessages(q: Queryable, taskId: string, afterSeq: number, limit: number): Promise<ContextMessage[]> {
  const r = await q.query<MessageRow>('SELECT * FROM execution.task_messages WHERE task_id = $1 AND seq > $2 ORDER BY seq LIMIT $3', [taskId, afterSeq, limit]);
  return r.rows.map(messageFromRow);
}

// ---------------------------------------------------------------------------
// Notifications (5.4)
// ---------------------------------------------------------------------------

interface NotificationRow {
  task_id: string;
  seq: number;
  send_from: string;
  send_to: string;
  task_async: boolean;
  status: TaskState;
  previous_status: TaskState | null;
  required: string | null;
  result: unknown;
  start_time: unknown;
  at: unknown;
}

function notificationFromRow(r: NotificationRow): TaskNotification {
  const n: { -readonly [K in keyof TaskNotification]: TaskNotification[K] } = {
    task_id: r.task_id,
    seq: Number(r.seq),
    send_from: r.send_from,
    send_to: r.send_to,
    commu_type: 'taskResultNotify',
    task_async: r.task_async,
    status: r.status,
    previous_status: r.previous_status,
    start_time: iso(r.start_time),
    at: iso(r.at),
  };
  if (r.required !== null) n.required = r.required;
  if (r.result !== null) n.result = json(r.result);
  return n;
}

export async function listNotifications(q: Queryable, taskId: string, afterSeq: number, limit: number): Promise<TaskNotification[]> {
  const r = await q.query<NotificationRow>('SELECT * FROM execution.task_notifications WHERE task_id = $1 AND seq > $2 ORDER BY seq LIMIT $3', [
    taskId,
    afterSeq,
    limit,
  ]);
  return r.rows.map(notificationFromRow);
}

export async function latestNotification(q: Queryable, taskId: string): Promise<TaskNotification | undefined> {
  const r = await q.query<NotificationRow>('SELECT * FROM execution.task_notifications WHERE task_id = $1 ORDER BY seq DESC LIMIT 1', [taskId]);
  return r.rows[0] ? notificationFromRow(r.rows[0]) : undefined;
}

/** The `task.status` events of one notification: one per party, each on the party's subject. */
export function statusEvents(n: TaskNotification, parties: readonly string[]): EventEnvelope[] {
  return [...new Set(parties)].map((party) => ({
    id: randomUUID(),
    type: EventType.TaskStatus,
    scenario_id: taskToken(party),
    occurred_at: n.at,
    source: 'execution',
    data: { ...n, ...(n.result ? { result: { ...n.result } } : {}), party },
  }));
}

async function natsSubscribers(tx: Queryable, taskId: string): Promise<string[]> {
  const r = await tx.query<{ subscriber: string }>("SELECT DISTINCT subscriber FROM execution.subscriptions WHERE task_id = $1 AND protocol = 'nats'", [taskId]);
  return r.rows.map((x) => x.subscriber);
}

export interface TransitionInput {
  /** null: the task was just created (its first notification). */
  readonly from: TaskState | null;
  readonly to: TaskState;
  readonly at: string;
  readonly required?: string;
  readonly result?: Readonly<Record<string, unknown>>;
  /** Path named by an illegal_transition error. */
  readonly path?: string;
}

/**
 * One state change of `task`, in the caller's transaction (task lock held):
 * checked (illegal → `illegal_transition`, nothing written), stored as the
 * next notification, the task updated, the task.status events appended to the
 * outbox. Returns the notification and the task as it is now.
 */
export async function transition(tx: Queryable, subjects: Subjects, task: StoredTask, t: TransitionInput): Promise<{ notification: TaskNotification; task: StoredTask }> {
  if (t.from !== null) assertTransition(t.from, t.to, t.path ?? 'params.status');
  const seq = task.last_seq + 1;
  const n: { -readonly [K in keyof TaskNotification]: TaskNotification[K] } = {
    task_id: task.task_id,
    seq,
    send_from: task.send_from,
    send_to: task.send_to,
    commu_type: 'taskResultNotify',
    task_async: task.task_async,
    status: t.to,
    previous_status: t.from,
    start_time: task.created_at,
    at: t.at,
  };
  if (t.required !== undefined) n.required = t.required;
  if (t.result !== undefined) n.result = t.result;
  await tx.query(
    `INSERT INTO execution.task_notifications (task_id, seq, send_from, send_to, task_async, status, previous_status, required, result, start_time, at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9::jsonb, $10, $11)`,
    [n.task_id, n.seq, n.send_from, n.send_to, n.task_async, n.status, n.previous_status, n.required ?? null, n.result ? JSON.stringify(n.result) : null, n.start_time, n.at],
  );
  const result = t.result !== undefined ? t.result : task.result;
  await tx.query('UPDATE execution.tasks SET status = $2, result = $3::jsonb, last_seq = $4, updated_at = $5 WHERE task_id = $1', [
    task.task_id,
    t.to,
    result !== undefined ? JSON.stringify(result) : null,
    seq,
    t.at,
  ]);
  const parties = [task.send_from, task.send_to, ...(await natsSubscribers(tx, task.task_id))];
  const ob = outboxInsert('execution', subjects, statusEvents(n, parties), 1);
  await tx.query(ob.sql, ob.params);
  const updated: StoredTask = { ...task, status: t.to, last_seq: seq, updated_at: t.at, ...(result !== undefined ? { result } : {}) };
  return { notification: n, task: updated };
}

// ---------------------------------------------------------------------------
// Negotiations (5.3)
// ---------------------------------------------------------------------------

export interface StoredNegotiation {
  readonly state: NegotiationState;
  readonly send_from: string;
  readonly send_to: string;
}

interface RoundRow {
  task_id: string;
  type: NegotiationRound['type'];
  round: number;
  proposer: string;
  proposal: unknown;
  verdict: NegotiationRound['verdict'] | null;
  reply: unknown;
  at: unknown;
}

export async function loadNegotiation(q: Queryable, taskId: string, type: NegotiationRound['type']): Promise<StoredNegotiation | undefined> {
  const n = await q.query<{ send_from: string; send_to: string; outcome: NegotiationState['outcome']; max_rounds: number }>(
    'SELECT send_from, send_to, outcome, max_rounds FROM execution.negotiations WHERE task_id = $1 AND type = $2',
    [taskId, type],
  );
  const head = n.rows[0];
  if (!head) return undefined;
  const r = await q.query<RoundRow>('SELECT * FROM execution.negotiation_rounds WHERE task_id = $1 AND type = $2 ORDER BY round', [taskId, type]);
  const rounds = r.rows.map((x): NegotiationRound => {
    const round: { -readonly [K in keyof NegotiationRound]: NegotiationRound[K] } = {
      task_id: x.task_id,
      type: x.type,
      round: Number(x.round),
      proposer: x.proposer,
      proposal: json<string[]>(x.proposal),
      at: iso(x.at),
    };
    if (x.verdict !== null) round.verdict = x.verdict;
    if (x.reply !== null) round.reply = json<string[]>(x.reply);
    return round;
  });
  return { state: { task_id: taskId, type, rounds, outcome: head.outcome, max_rounds: Number(head.max_rounds) }, send_from: head.send_from, send_to: head.send_to };
}

/** Writes a negotiation's new state: its outcome and its last round (a new proposal or the verdict on it). */
export async function saveNegotiation(tx: Queryable, n: StoredNegotiation, isNew: boolean, at: string): Promise<void> {
  const s = n.state;
  if (isNew) {
    await tx.query(
      'INSERT INTO execution.negotiations (task_id, type, send_from, send_to, outcome, max_rounds, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $7)',
      [s.task_id, s.type, n.send_from, n.send_to, s.outcome, s.max_rounds, at],
    );
  } else {
    await tx.query('UPDATE execution.negotiations SET outcome = $3, updated_at = $4 WHERE task_id = $1 AND type = $2', [s.task_id, s.type, s.outcome, at]);
  }
  const last = s.rounds.at(-1);
  if (!last) return;
  await tx.query(
    `INSERT INTO execution.negotiation_rounds (task_id, type, round, proposer, proposal, verdict, reply, at)
     VALUES ($1, $2, $3, $4, $5::jsonb, $6, $7::jsonb, $8)
     ON CONFLICT (task_id, type, round) DO UPDATE SET verdict = EXCLUDED.verdict, reply = EXCLUDED.reply`,
    [s.task_id, s.type, last.round, last.proposer, JSON.stringify(last.proposal), last.verdict ?? null, last.reply ? JSON.stringify(last.reply) : null, last.at],
  );
}
