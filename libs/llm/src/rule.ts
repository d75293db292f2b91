/**
 * The rule-based inducer: libs/evolution `induceKey` behind the
 * `IntentInducer` port (zhou §6.2.2 "an internal LLM or rule-based
 * extractor"). Deterministic, no IO; the fallback of the LLM inducer.
 */
import { DEFAULT_INDUCTION_OPTIONS, induceKey, type InductionOptions, type InductionResult, type Lexicon } from '@parley/evolution';
import { checkInductionInput } from './fragments';
import type { InductionInput, IntentInducer } from './ports';

export const RULE_INDUCER_ID = 'rule-based';

/** `lexicon`: the words the rules read (libs/embeddings loadWordNetLexicon); the existing keys come with each input. */
export function createRuleInducer(options: InductionOptions = DEFAULT_INDUCTION_OPTIONS, lexicon?: Lexicon): IntentInducer {
  return {
    id: RULE_INDUCER_ID,
    induce(input: InductionInput): Promise<InductionResult> {
      try {
        checkInductionInput(input);
        return Promise.resolve(induceKey(input.samples, options, { existing: input.existing_keys, ...(lexicon ? { lexicon } : {}) }));
      } catch (e) {
        return Promise.reject(e);
      }
    },
  };
}
