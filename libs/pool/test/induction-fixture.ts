/**
 * What the induction tests share: the WordNet lexicon the services use, a phrasing said by distinct clients, and the
 * candidate the rule inducer makes of the samples (draft-zhou §6.2.2).
 */
import { loadWordNetLexicon } from '@parley/embeddings';
import { induceKey, type Candidate, type InductionResult, type InductionSample } from '@parley/evolution';
import type { KeyDefinition } from '@parley/protocol';

export const lexicon = await loadWordNetLexicon();
let n = 0;
/** One phrasing said by `clients` distinct clients (client ids never repeat across calls). */
export const said = (text: string, clients: number): InductionSample => ({ text, count: clients, clients: Array.from({ length: clients }, () => `c${n++}`) });
/** The rule inducer on the samples, with the scenario's existing keys when given. */
export const induce = (samples: InductionSample[], existing?: readonly KeyDefinition[]): InductionResult =>
  induceKey(samples, undefined, existing ? { lexicon, existing } : { lexicon });
/** The candidate key of the samples; a refusal fails the test with its reason. */
export function candidate(samples: InductionSample[], existing?: readonly KeyDefinition[]): Candidate {
  const r = induce(samples, existing);
  if (!r.ok) throw new Error(r.reason);
  return r.candidate;
}
