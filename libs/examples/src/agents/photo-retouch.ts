import type { JsonObject } from '@parley/protocol';
import { fragments } from './flight-booking';

/**
 * The cloud image-editing agent of draft-zhou §5.2: applies the retouch
 * settings of a validated photo_retouch_v2 payload. Requests it cannot map
 * (the `other` fragments, e.g. "increase eye size proportionally") are
 * reported back as not applied, so the client knows what was ignored.
 */
export function retouchPhoto(payload: JsonObject, ctx: { execution_id: string }): JsonObject {
  const applied: JsonObject = {};
  for (const [k, v] of Object.entries(payload)) {
    if (k === 'other') continue;
    const active = typeof v === 'boolean' ? v : typeof v === 'number' ? v > 0 : v !== 'none';
    if (active) applied[k] = v;
  }
  return {
    job_id: `RT-${ctx.execution_id.slice(0, 8).toUpperCase()}`,
    status: 'completed',
    output_url: `https://photos.example/retouched/${ctx.execution_id}.jpg`,
    applied,
    not_applied: fragments(payload.other),
  };
}
