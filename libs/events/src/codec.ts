import type { EventEnvelope } from './events';

const encoder = new TextEncoder();
const decoder = new TextDecoder();

export function encodeEvent(e: EventEnvelope): Uint8Array {
  return encoder.encode(JSON.stringify(e));
}

/**
 * Checks the envelope fields every consumer relies on; `data` is left to the
 * handler, which switches on `type`. Throws on anything else: such a message
 * can never be handled, however often it is redelivered.
 */
export function decodeEvent(bytes: Uint8Array): EventEnvelope {
  const v: unknown = JSON.parse(decoder.decode(bytes));
  if (typeof v !== 'object' || v === null) throw new Error('event is not a JSON object');
  const o = v as Record<string, unknown>;
  for (const k of ['id', 'type', 'scenario_id', 'occurred_at', 'source'] as const) {
    if (typeof o[k] !== 'string') throw new Error(`event member "${k}" is not a string`);
  }
  if (typeof o.data !== 'object' || o.data === null) throw new Error('event member "data" is not an object');
  return v as EventEnvelope;
}
