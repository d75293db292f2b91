/**
 * Choosing the LLM ports from the environment: without PARLEY_LLM_URL the rule
 * inducer (zhou §6.2.2 "rule-based extractor") and no judge (§6.2.3 "manual
 * audit sampler"); with it the OpenAI-compatible inducer falling back to the
 * rules, and the OpenAI-compatible judge. Bad values name the variable.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { induceKey } from '@parley/evolution';
import { ParleyError } from '@parley/protocol';
import { DEFAULT_LLM_MODEL, createLlmFromEnv, type AttributedInductionResult, type InductionInput } from '../src/index';
import { answer, catchError, promptFragments, startChatServer, type ChatServer } from './chat-server';

let srv: ChatServer;

beforeAll(async () => {
  srv = await startChatServer();
});
afterAll(async () => {
  await srv.close();
});
beforeEach(() => {
  srv.received.length = 0;
});

const input: InductionInput = {
  scenario: 'flight booking',
  existing_keys: [],
  samples: [
    { text: 'window seat please', count: 5 },
    { text: 'aisle seat', count: 3 },
  ],
};

describe('createLlmFromEnv', () => {
  it('without PARLEY_LLM_URL: the rule inducer and no judge', async () => {
    const llm = createLlmFromEnv({});
    expect(llm.inducer.id).toBe('rule-based');
    expect(llm.judge).toBeNull();
    expect(llm.describe).toBe('intent induction: rule-based; alignment audits: operators (no PARLEY_LLM_URL)');
    expect(await llm.inducer.induce(input)).toEqual(induceKey(input.samples));
    // Settings that need the URL are reported as ignored, not silently dropped.
    expect(createLlmFromEnv({ PARLEY_LLM_URL: '  ', PARLEY_LLM_MODEL: 'llama3' }).describe).toContain('PARLEY_LLM_MODEL ignored');
  });

  it('with PARLEY_LLM_URL: the OpenAI inducer (default model) with rule fallback, and the OpenAI judge', async () => {
    const llm = createLlmFromEnv({ PARLEY_LLM_URL: `${srv.base}/v1`, PARLEY_LLM_API_KEY: 'sk-env-secret' });
    expect(DEFAULT_LLM_MODEL).toBe('gpt-4o-mini');
    expect(llm.inducer.id).toBe('openai:gpt-4o-mini+fallback:rule-based');
    expect(llm.judge?.id).toBe('openai:gpt-4o-mini');
    expect(llm.describe).toContain(`${srv.base}/v1/chat/completions`);
    expect(llm.describe).not.toContain('sk-env-secret');

    srv.setHandler((body) =>
      answer({
        key_name: 'seat_preference',
        key_type: 'string',
        required: false,
        default_value: null,
        enum: ['window', 'aisle'],
        semantic_description: 'Preferred seat.',
        examples: promptFragments(body).map((f) => ({ fragment: f.text, value: f.text.startsWith('window') ? 'window' : 'aisle' })),
      }),
    );
    const r = (await llm.inducer.induce(input)) as AttributedInductionResult;
    expect(r.produced_by).toBe('openai:gpt-4o-mini');
    // zhou §7 closed vocabulary: the description is built from the key name and values, not the model's prose.
    expect(r.ok && r.candidate.key.semantic_description).toContain('Seat: one of window, aisle.');
    expect(r.ok && r.candidate.key.semantic_description).not.toContain('Preferred seat.');
    expect(srv.received[0]!.body.model).toBe('gpt-4o-mini');
    expect(srv.received[0]!.authorization).toBe('Bearer sk-env-secret');

    srv.setHandler(() => answer({ aligned: true, rationale: 'Matches.' }));
    expect(await llm.judge!.judge({ key: { key_name: 'seat_preference', key_type: 'string', required: false, semantic_description: 'Seat.' }, value: 'window', utterance: 'window seat' })).toEqual({
      aligned: true,
      rationale: 'Matches.',
    });
  });

  it('falls back to the rules when the endpoint fails or exceeds PARLEY_LLM_TIMEOUT_MS', async () => {
    const llm = createLlmFromEnv({ PARLEY_LLM_URL: srv.base, PARLEY_LLM_MODEL: ' llama3.1:8b ', PARLEY_LLM_TIMEOUT_MS: '1500' });
    // A timeout far above an error answer's latency on a loaded machine, far below the slow answer's delay.
    expect(llm.inducer.id).toBe('openai:llama3.1:8b+fallback:rule-based');
    srv.setHandler(() => ({ status: 500, json: { error: { message: 'model not loaded' } } }));
    const failed = (await llm.inducer.induce(input)) as AttributedInductionResult;
    expect(failed.produced_by).toBe('rule-based');
    expect(failed.fallback_reason).toMatch(/HTTP 500/);
    expect(failed.ok && failed.candidate.key.key_name).toBe('seat_preference');
    srv.setHandler(() => ({ status: 200, json: {}, delayMs: 6000 }));
    const slow = (await llm.inducer.induce(input)) as AttributedInductionResult;
    expect(slow.produced_by).toBe('rule-based');
    expect(slow.fallback_reason).toMatch(/timeout.*1500 ms/);
  });

  it('names the variable that is wrong', async () => {
    const cases: [Record<string, string>, string, string][] = [
      [{ PARLEY_LLM_URL: 'not a url' }, 'env.PARLEY_LLM_URL', 'format'],
      [{ PARLEY_LLM_URL: 'ftp://models.local' }, 'env.PARLEY_LLM_URL', 'format'],
      [{ PARLEY_LLM_URL: 'http://user:pw@models.local' }, 'env.PARLEY_LLM_URL', 'format'],
      [{ PARLEY_LLM_URL: srv.base, PARLEY_LLM_TIMEOUT_MS: 'soon' }, 'env.PARLEY_LLM_TIMEOUT_MS', 'minimum'],
      [{ PARLEY_LLM_URL: srv.base, PARLEY_LLM_TIMEOUT_MS: '0' }, 'env.PARLEY_LLM_TIMEOUT_MS', 'minimum'],
      [{ PARLEY_LLM_URL: srv.base, PARLEY_LLM_TIMEOUT_MS: '1.5' }, 'env.PARLEY_LLM_TIMEOUT_MS', 'minimum'],
    ];
    for (const [env, path, rule] of cases) {
      const err = await catchError(() => createLlmFromEnv(env), ParleyError);
      expect({ type: err.type, path: err.path, rule: err.rule }).toEqual({ type: 'invalid_params', path, rule });
      expect(err.message).toContain(path.slice('env.'.length));
      expect(err.message).not.toContain('pw@');
    }
  });
});
