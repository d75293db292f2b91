/**
 * Canonical identifiers: scenario ids and agent names.
 *
 * zhou §4.1 calls `scenario` "a human-readable string describing the
 * interaction scenario (e.g., "flight booking", "photo_retouch")": the examples
 * mix spaces and underscores, so Parley derives one canonical id from it, the
 * lowercase snake_case slug, and routes, indexes and matches on that id only.
 */
import { ParleyError, type ErrorType } from './errors';

export interface IdentifierOptions {
  /** Error type to throw (default `invalid_params`; the template parser uses `template_invalid`). */
  type?: ErrorType;
  /** Key path to name in the error (default `scenario`). */
  path?: string;
}

/** Longest canonical scenario id; matches the 128-character limit on `scenario`. */
export const MAX_SCENARIO_LENGTH = 128;

/**
 * The canonical scenario id: the lowercase snake_case slug of a scenario.
 * `"flight booking"`, `"Flight-Booking"` and `"flight_booking"` → `"flight_booking"`.
 * Accents are folded (`"Café order"` → `"cafe_order"`); any other run of
 * characters outside `[a-z0-9]` becomes one `_`. Throws (rule `scenario_slug`)
 * when nothing is left, e.g. for `"---"` or a scenario written only in a non-Latin script.
 */
export function scenarioId(scenario: string, opts: IdentifierOptions = {}): string {
  const type = opts.type ?? 'invalid_params';
  const path = opts.path ?? 'scenario';
  if (typeof scenario !== 'string') {
    throw new ParleyError(type, `${path} must be a string`, { path, rule: 'type' });
  }
  const slug = scenario
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '')
    .slice(0, MAX_SCENARIO_LENGTH)
    .replace(/_+$/g, '');
  if (slug === '') {
    throw new ParleyError(
      type,
      `${path} ${JSON.stringify(scenario.slice(0, 60))} has no canonical id: it needs at least one ASCII letter or digit (e.g. "flight booking" → flight_booking)`,
      { path, rule: 'scenario_slug' },
    );
  }
  return slug;
}

/** Agent names: lowercase, start with a letter, at most 63 characters (fits NATS subjects and DNS labels). */
export const AGENT_NAME_PATTERN = /^[a-z][a-z0-9_-]{0,62}$/;

/**
 * Checks an agent name and returns it. Throws `invalid_params` (or `type`)
 * naming `path` with rule `required`, `type` or `agent_name`.
 */
export function validateAgentName(name: unknown, path: string, type: ErrorType = 'invalid_params'): string {
  if (name === undefined || name === null) {
    throw new ParleyError(type, `${path} is required: the agent's name, e.g. "airline-agent"`, { path, rule: 'required' });
  }
  if (typeof name !== 'string') {
    throw new ParleyError(type, `${path} must be a string`, { path, rule: 'type' });
  }
  if (!AGENT_NAME_PATTERN.test(name)) {
    throw new ParleyError(
      type,
      `${path} ${JSON.stringify(name.slice(0, 70))} is not a valid agent name: use 1-63 lowercase letters, digits, "_" or "-", starting with a letter (pattern ${AGENT_NAME_PATTERN.source})`,
      { path, rule: 'agent_name' },
    );
  }
  return name;
}
