import { ALL_EVENT_TYPES, type EventType } from './events';

/**
 * Every NATS subject and stream name is built here, from the prefix and the
 * tables in events.ts; nothing spells a subject by hand at a call site.
 *
 *   <prefix>.v1.<scenario_id>.<event type>      e.g. parley.v1.flight_booking.payload.executed
 *   <prefix>.v1.<scenario_id>.execute.<agent>   request/reply to a server agent's queue group
 *
 * Execute subjects are deliberately outside the event stream's subjects: a
 * stream that captured a request subject would answer it with a PubAck.
 * The prefix (default `parley`) lets tests and tenants share one NATS server.
 */
export interface Subjects {
  readonly prefix: string;
  readonly stream: string;
  event(scenarioId: string, type: EventType): string;
  /** All scenarios' events of one type. */
  eventAllScenarios(type: EventType): string;
  /** Subjects the event stream captures. */
  streamSubjects(): string[];
  execute(scenarioId: string, agent: string): string;
  /**
   * AN tasks (draft 004 §5.2-5.4), request/reply to an executing agent's queue
   * group: `<prefix>.v1.task.<agent>` (assign, cancel, negotiate, capability).
   * AN agent names may hold `.`; `taskToken` keeps them one token.
   */
  task(agent: string): string;
  /** Agents → the execution service (status notifications, negotiation proposals): `<prefix>.v1.task-service`. */
  taskService(): string;
  /** Among execution replicas: "task X has new notifications" (live streams wake on it): `<prefix>.v1.task-changes`. */
  taskChanges(): string;
  /** The stream subject of one party's task.status events: `<prefix>.v1.<party>.task.status`. */
  taskStatus(party: string): string;
}

/**
 * An AN agent name (`[A-Za-z0-9][A-Za-z0-9._-]*`) as one subject token,
 * injectively: `_` becomes `__` and `.` becomes `_d` (`ietf-ip-1.0` →
 * `ietf-ip-1_d0`); names without either are unchanged.
 */
export function taskToken(agent: string): string {
  return subjectToken(agent.replace(/_/g, '__').replace(/\./g, '_d'), 'agent name');
}

const TOKEN = /^[A-Za-z0-9_-]+$/;

export function subjectToken(s: string, what: string): string {
  if (!TOKEN.test(s)) throw new Error(`${what} "${s}" is not a valid subject token ([A-Za-z0-9_-]+)`);
  return s;
}

export function createSubjects(prefix = 'parley'): Subjects {
  subjectToken(prefix, 'subject prefix');
  const base = `${prefix}.v1`;
  return {
    prefix,
    stream: `${prefix.toUpperCase().replace(/-/g, '_')}_EVENTS`,
    event: (scenarioId, type) => `${base}.${subjectToken(scenarioId, 'scenario id')}.${type}`,
    eventAllScenarios: (type) => `${base}.*.${type}`,
    streamSubjects: () => ALL_EVENT_TYPES.map((t) => `${base}.*.${t}`),
    execute: (scenarioId, agent) => `${base}.${subjectToken(scenarioId, 'scenario id')}.execute.${subjectToken(agent, 'agent name')}`,
    // Four and three tokens: outside the event stream's `<prefix>.v1.*.<type>.<verb>` subjects.
    task: (agent) => `${base}.task.${taskToken(agent)}`,
    taskService: () => `${base}.task-service`,
    taskChanges: () => `${base}.task-changes`,
    taskStatus: (party) => `${base}.${taskToken(party)}.task.status`,
  };
}
