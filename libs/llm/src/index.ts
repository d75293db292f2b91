/**
 * @parley/llm — the LLM ports of schema self-evolution (draft-zhou §6.2):
 * intent induction (§6.2.2) and the semantic-alignment audit judge (§6.2.3),
 * with a rule-based inducer (libs/evolution) and adapters for an
 * OpenAI-compatible chat-completions endpoint (OpenAI, Ollama, vLLM, LM
 * Studio) that treat client text as untrusted input (§7).
 * Exactly the public API; no `export *`.
 */

// The ports.
export type { AuditInput, AuditJudge, AuditVerdict, InductionInput, IntentInducer } from './ports';

// The rule-based inducer (libs/evolution induceKey).
export { RULE_INDUCER_ID, createRuleInducer } from './rule';

// OpenAI-compatible chat completions.
export { DEFAULT_LLM_TIMEOUT_MS, chatCompletionsUrl, createChatClient, validateLlmOptions } from './chat';
export type { ChatAnswer, ChatClient, ChatMessage, ChatRequest, OpenAiLlmOptions } from './chat';
export { INDUCED_KEY_TYPES, INDUCTION_ANSWER_SCHEMA, INDUCTION_SYSTEM_PROMPT, createOpenAiInducer } from './inducer';
export type { OpenAiInducerOptions } from './inducer';
export { AUDIT_ANSWER_SCHEMA, AUDIT_SYSTEM_PROMPT, WITHHELD_RATIONALE, createOpenAiJudge } from './judge';
export type { OpenAiJudgeOptions } from './judge';

// Client text on its way to a prompt (§7).
export { DEFAULT_MAX_FRAGMENTS, DEFAULT_MAX_PROMPT_CHARS, prepareFragments } from './fragments';
export type { FragmentBounds, PreparedFragment, PreparedFragments } from './fragments';

// Falling back to the rules.
export { withFallback } from './fallback';
export type { AttributedInductionResult, FallbackInducer } from './fallback';

// Choosing from the environment.
export { DEFAULT_LLM_MODEL, createLlmFromEnv } from './env';
export type { LlmFromEnv } from './env';
