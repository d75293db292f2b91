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
  };
}
