/**
 * What the induction tests share: the WordNet lexicon the services use, a phrasing said by distinct clients, the
 * candidate the rule inducer makes of the samples, and a global flight-booking cluster that matured (draft-zhou §6.2.2).
 */
import { loadWordNetLexicon } from '@parley/embeddings';
import { DEFAULT_INDUCTION_OPTIONS, induceKey, type Candidate, type InductionOptions, type InductionResult, type InductionSample } from '@parley/evolution';
import type { KeyDefinition } from '@parley/protocol';
import type { MaturedCluster } from '../src/index';

export const lexicon = await loadWordNetLexicon();
let n = 0;
/** One phrasing said by `clients` distinct clients (client ids never repeat across calls). */
export const said = (text: string, clients: number): InductionSample => ({ text, count: clients, clients: Array.from({ length: clients }, () => `c${n++}`) });
/** The rule inducer on the samples, with the scenario's existing keys when given (and options over the defaults). */
export const induce = (samples: InductionSample[], existing?: readonly KeyDefinition[], options: Partial<InductionOptions> = {}): InductionResult =>
  induceKey(samples, { ...DEFAULT_INDUCTION_OPTIONS, ...options }, existing ? { lexicon, existing } : { lexicon });
/** The candidate key of the samples; a refusal fails the test with its reason. */
export function candidate(samples: InductionSample[], existing?: readonly KeyDefinition[], options: Partial<InductionOptions> = {}): Candidate {
  const r = induce(samples, existing, options);
  if (!r.ok) throw new Error(r.reason);
  return r.candidate;
}

/** A global flight_booking cluster that matured at `at`, its samples given as [text, the clients who said it]. */
export function matured(id: string, samples: [string, string[]][], at: number): MaturedCluster {
  return {
    cluster_id: id,
    scenario_id: 'flight_booking',
    scope: 'global',
    size: samples.reduce((n, [, c]) => n + c.length, 0),
    heat: 60,
    distinct_clients: new Set(samples.flatMap(([, c]) => c)).size,
    occurrences_in_window: 10,
    branch: 'distinct_clients',
    reasons: ['heat 60 >= 50'],
    matured_at: at,
    samples: samples.map(([text, clients]) => ({ text, count: clients.length, clients })),
  };
}
