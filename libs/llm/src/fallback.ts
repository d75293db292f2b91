/**
 * An inducer with a fallback (zhou §6.2.2 "an internal LLM or rule-based
 * extractor"): the primary (an LLM) first; when its endpoint is unavailable
 * (a thrown `unavailable` ParleyError: network, timeout, HTTP status, malformed
 * response) or its answer was rejected (`{ ok: false }`), the fallback (the
 * rule inducer) decides. Other errors (`invalid_params`: the input itself is
 * wrong) propagate, since the fallback would refuse the same input. Each result says
 * which inducer produced it.
 */
import type { InductionResult } from '@parley/evolution';
import { ParleyError } from '@parley/protocol';
import type { InductionInput, IntentInducer } from './ports';

/** An induction result and the inducer that produced it. */
export type AttributedInductionResult = InductionResult & {
  /** The `id` of the inducer whose result this is. */
  readonly produced_by: string;
  /** Why the primary's result was not used (only when the fallback produced it). */
  readonly fallback_reason?: string;
};

export interface FallbackInducer extends IntentInducer {
  readonly primary: IntentInducer;
  readonly fallback: IntentInducer;
  induce(input: InductionInput): Promise<AttributedInductionResult>;
}

export function withFallback(primary: IntentInducer, fallback: IntentInducer): FallbackInducer {
  return {
    id: `${primary.id}+fallback:${fallback.id}`,
    primary,
    fallback,
    async induce(input: InductionInput): Promise<AttributedInductionResult> {
      let reason: string;
      try {
        const r = await primary.induce(input);
        if (r.ok) return { ...r, produced_by: primary.id };
        reason = r.reason;
      } catch (e) {
        if (!(e instanceof ParleyError) || e.type !== 'unavailable') throw e;
        reason = `${e.rule || 'unavailable'}: ${e.message}`;
      }
      const r = await fallback.induce(input);
      return { ...r, produced_by: fallback.id, fallback_reason: `${primary.id}: ${reason}` };
    },
  };
}
