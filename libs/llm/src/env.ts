/**
 * Choosing the LLM ports from the environment (zhou §6.2.2 and §6.2.3 leave
 * the choice between an internal LLM and rules or operators to the server):
 *
 * - `PARLEY_LLM_URL` set: the OpenAI-compatible inducer with the rule inducer
 *   as its fallback, and the OpenAI-compatible audit judge. `PARLEY_LLM_URL`
 *   is the endpoint root (see `OpenAiLlmOptions.baseUrl`: an origin such as
 *   `http://127.0.0.1:11434` for Ollama, or `https://api.openai.com/v1`);
 *   `PARLEY_LLM_MODEL` (default `gpt-4o-mini`), `PARLEY_LLM_API_KEY`
 *   (optional), `PARLEY_LLM_TIMEOUT_MS` (optional, integer >= 1).
 * - unset or empty: the rule inducer and no judge (audits stay with operators).
 *
 * A bad value is an `invalid_params` error whose `path` names the variable
 * (`env.PARLEY_LLM_URL`, …). The API key never appears in `describe`.
 */
import { ParleyError } from '@parley/protocol';
import { chatCompletionsUrl } from './chat';
import { withFallback } from './fallback';
import { createOpenAiInducer } from './inducer';
import { createOpenAiJudge } from './judge';
import type { AuditJudge, IntentInducer } from './ports';
import { createRuleInducer } from './rule';
import type { Lexicon } from '@parley/evolution';

export const DEFAULT_LLM_MODEL = 'gpt-4o-mini';

export interface LlmFromEnv {
  /**
   * With `PARLEY_LLM_URL`: a `FallbackInducer` (its results carry
   * `produced_by` and `fallback_reason`); otherwise the rule inducer.
   */
  readonly inducer: IntentInducer;
  /** null: no model judge; semantic alignment is audited by operators (zhou §6.2.3). */
  readonly judge: AuditJudge | null;
  /** One line for the startup log. */
  readonly describe: string;
}

function invalidEnv(name: string, rule: string, message: string): ParleyError {
  return new ParleyError('invalid_params', message, { path: `env.${name}`, rule });
}

export function createLlmFromEnv(env: Readonly<Record<string, string | undefined>> = process.env, lexicon?: Lexicon): LlmFromEnv {
  const rawUrl = env['PARLEY_LLM_URL']?.trim() ?? '';
  const rules = createRuleInducer(undefined, lexicon);
  if (rawUrl === '') {
    const ignored = ['PARLEY_LLM_MODEL', 'PARLEY_LLM_API_KEY', 'PARLEY_LLM_TIMEOUT_MS'].filter((n) => (env[n]?.trim() ?? '') !== '');
    return {
      inducer: rules,
      judge: null,
      describe: `intent induction: ${rules.id}; alignment audits: operators (no PARLEY_LLM_URL${ignored.length > 0 ? `; ${ignored.join(', ')} ignored` : ''})`,
    };
  }
  let url: string;
  try {
    url = chatCompletionsUrl(rawUrl, 'PARLEY_LLM_URL');
  } catch (e) {
    const why = e instanceof ParleyError ? e.message.replace(/^PARLEY_LLM_URL: /, '') : String(e);
    throw invalidEnv('PARLEY_LLM_URL', 'format', `PARLEY_LLM_URL must be an http(s) URL without credentials (${why})`);
  }
  const model = env['PARLEY_LLM_MODEL']?.trim() || DEFAULT_LLM_MODEL;
  const apiKey = env['PARLEY_LLM_API_KEY']?.trim();
  const rawTimeout = env['PARLEY_LLM_TIMEOUT_MS']?.trim();
  let timeoutMs: number | undefined;
  if (rawTimeout) {
    timeoutMs = Number(rawTimeout);
    if (!/^\d+$/.test(rawTimeout) || !Number.isSafeInteger(timeoutMs) || timeoutMs < 1) {
      throw invalidEnv('PARLEY_LLM_TIMEOUT_MS', 'minimum', `PARLEY_LLM_TIMEOUT_MS must be an integer >= 1 (milliseconds), got "${env['PARLEY_LLM_TIMEOUT_MS']}"`);
    }
  }
  const opts = { baseUrl: rawUrl, model, ...(apiKey ? { apiKey } : {}), ...(timeoutMs !== undefined ? { timeoutMs } : {}) };
  const inducer = withFallback(createOpenAiInducer(opts), rules);
  const judge = createOpenAiJudge(opts);
  return {
    inducer,
    judge,
    describe: `intent induction: ${inducer.primary.id} at ${url}, falling back to ${rules.id}; alignment audits: ${judge.id}${apiKey ? ' (with API key)' : ''}`,
  };
}
