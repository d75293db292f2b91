import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { flightBookingTemplate } from '@parley/examples';
import { ParleyError, type JsonObject } from '@parley/protocol';
import { completion, startChatServer, type ChatServer, type Reply } from '@parley/testkit';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createParleyClient } from '../src/index';
import { MAPPING_SYSTEM_PROMPT, createLlmMapperFromEnv, createOpenAiMapper, mappingAnswerSchema } from '../src/llm/index';

// The LLM mapper against a real HTTP server that answers as an OpenAI-compatible chat endpoint, replaying
// answers from fixtures/llm-mapper-answers.json (no mock of fetch, no model reachable here).
const ANSWERS = JSON.parse(readFileSync(new URL('./fixtures/llm-mapper-answers.json', import.meta.url), 'utf8')) as Record<string, unknown>;
const replay = (name: string): Reply => ({ json: ANSWERS[name] });
const FIGURE_4_WORDS = 'Book me a flight from Beijing to Shanghai next Monday, business class, and I prefer a window seat.';
const REF = { today: '2026-04-30', timezone: 'Asia/Shanghai' };

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

const mapperFor = () => createOpenAiMapper({ baseUrl: srv.base, model: 'test-model', apiKey: 'sk-test' });

describe('the LLM mapper (draft-zhou §6.1)', () => {
  it('asks with the template in context and a strict JSON schema, and maps Figure 4 from §5.1\'s words', async () => {
    srv.setHandler(() => replay('figure_4'));
    const client = createParleyClient('http://127.0.0.1:9', { mapper: mapperFor() });
    const m = await client.mapUtterance(flightBookingTemplate, FIGURE_4_WORDS, REF);
    expect(m.mapper).toBe('openai:test-model');
    expect(m.payload).toEqual({ origin: 'PEK', destination: 'SHA', departure_date: '2026-05-04', cabin_class: 'business', other: 'I prefer a window seat' });
    expect(m.confidence).toEqual({ origin: 0.95, destination: 0.94, departure_date: 0.9, cabin_class: 0.92 });
    expect(m.violations).toEqual([]);

    // What reached the model: constrained decoding (§6.1) with the payload schema's own constraints, nullable.
    const [req] = srv.received;
    expect(req?.authorization).toBe('Bearer sk-test');
    expect(req?.body.temperature).toBe(0);
    expect(req?.body.response_format).toEqual({ type: 'json_schema', json_schema: { name: 'parley_payload_mapping', strict: true, schema: mappingAnswerSchema(flightBookingTemplate) } });
    const schema = req?.body.response_format.json_schema.schema as { properties: { values: { required: string[]; properties: Record<string, { properties: { value: { anyOf: JsonObject[] } } }> } } };
    expect(schema.properties.values.required).toEqual(['origin', 'destination', 'departure_date', 'cabin_class', 'passenger_count']);
    expect(schema.properties.values.properties['cabin_class']?.properties.value.anyOf).toEqual([{ type: 'string', enum: ['economy', 'premium_economy', 'business', 'first'] }, { type: 'null' }]);
    expect(schema.properties.values.properties['passenger_count']?.properties.value.anyOf[0]).toEqual({ type: 'integer', minimum: 1, maximum: 9 });
    // In-context learning (§6.1): descriptions, enum values, formats, examples, the reference date; the words as data.
    expect(req?.body.messages[0]).toEqual({ role: 'system', content: MAPPING_SYSTEM_PROMPT });
    const user = JSON.parse(req?.body.messages[1]?.content ?? '{}') as { keys: Array<Record<string, unknown>>; reference_date: string; reference_time_zone: string; request: string };
    expect(user.request).toBe(FIGURE_4_WORDS);
    expect([user.reference_date, user.reference_time_zone]).toEqual(['2026-04-30', 'Asia/Shanghai']);
    const date = user.keys.find((k) => k['key_name'] === 'departure_date');
    expect(date).toMatchObject({ format: 'date', required: true, semantic_description: expect.stringContaining("'next Monday' -> '2026-05-04'") });
    expect(date?.['more_examples']).toContain("'next Monday' (asked on 2026-04-30) -> '2026-05-04'");
    expect(user.keys.find((k) => k['key_name'] === 'cabin_class')?.['enum']).toEqual(['economy', 'premium_economy', 'business', 'first']);
    expect(user.keys.map((k) => k['key_name'])).not.toContain('other');
  });

  it('a value under the confidence threshold is not sent: its words go to other (§6.1)', async () => {
    srv.setHandler(() => replay('hesitant'));
    const client = createParleyClient('http://127.0.0.1:9', { mapper: mapperFor() });
    const m = await client.mapUtterance(flightBookingTemplate, 'from Beijing to somewhere near Shanghai next Monday', REF);
    expect(m.payload).toEqual({ origin: 'PEK', departure_date: '2026-05-04', other: 'somewhere near Shanghai' });
    expect(m.below_threshold).toEqual([{ key: 'destination', value: 'SHA', confidence: 0.31, words: 'somewhere near Shanghai' }]);
    expect(m.missing_required).toEqual(['destination']);
    expect(m.violations).toContainEqual(expect.objectContaining({ path: 'payload.destination', rule: 'required' }));
    // A lower threshold sends it.
    const low = await client.mapUtterance(flightBookingTemplate, 'from Beijing to somewhere near Shanghai next Monday', { ...REF, threshold: 0.3 });
    expect(low.payload['destination']).toBe('SHA');
  });

  it('values the server would refuse are not sent, with the key and rule; keys outside the template are ignored', async () => {
    srv.setHandler(() => replay('out_of_template'));
    const client = createParleyClient('http://127.0.0.1:9', { mapper: mapperFor() });
    const m = await client.mapUtterance(flightBookingTemplate, 'twelve of us from Beijing to Shanghai next Monday, luxury class, window seat', REF);
    expect(m.payload).toEqual({ origin: 'PEK', destination: 'SHA', other: 'twelve of us; next Monday; luxury class; window seat' });
    expect(m.notes).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/departure_date breaks the template \(format/),
        expect.stringMatching(/cabin_class breaks the template \(enum/),
        expect.stringMatching(/passenger_count breaks the template \(maximum/),
        expect.stringMatching(/"seat_preference", which is not a key/),
        expect.stringMatching(/"__proto__", which is not a key/),
      ]),
    );
    expect(Object.getPrototypeOf(m.payload)).toBe(Object.prototype);
    expect(({} as Record<string, unknown>)['value']).toBeUndefined();
  });

  it('a refusal, a cut-off answer and a failing endpoint are typed errors', async () => {
    const client = createParleyClient('http://127.0.0.1:9', { mapper: mapperFor() });
    const cases: [Reply, string][] = [
      [replay('refusal'), 'refusal'],
      [replay('not_json'), 'bad_answer'],
      [completion('[1, 2]'), 'bad_answer'],
      [{ status: 500, json: { error: { message: 'overloaded' } } }, 'http_status'],
    ];
    for (const [reply, rule] of cases) {
      srv.setHandler(() => reply);
      const e = await client.mapUtterance(flightBookingTemplate, FIGURE_4_WORDS, REF).catch((x: unknown) => x);
      expect(e).toBeInstanceOf(ParleyError);
      expect([(e as ParleyError).type, (e as ParleyError).rule]).toEqual(['unavailable', rule]);
    }
  });

  it('any answer a server may send is a payload with only template keys, or a typed error', async () => {
    const client = createParleyClient('http://127.0.0.1:9', { mapper: mapperFor() });
    const names = fc.constantFrom('origin', 'destination', 'departure_date', 'cabin_class', 'passenger_count', 'other', '__proto__', 'constructor', 'toString', '');
    const entry = fc.record({ value: fc.jsonValue({ maxDepth: 2 }), confidence: fc.oneof(fc.double(), fc.constant('high')), words: fc.oneof(fc.string({ unit: 'binary', maxLength: 80 }), fc.constant(null)) });
    const answer = fc.oneof(fc.record({ values: fc.dictionary(names, fc.oneof(entry, fc.jsonValue({ maxDepth: 1 }))), other: fc.array(fc.oneof(fc.string({ unit: 'binary' }), fc.integer())) }), fc.jsonValue({ maxDepth: 3 }));
    await fc.assert(
      fc.asyncProperty(answer, async (a) => {
        srv.setHandler(() => completion(JSON.stringify(a)));
        try {
          const m = await client.mapUtterance(flightBookingTemplate, FIGURE_4_WORDS, REF);
          for (const k of Object.keys(m.payload)) expect(['origin', 'destination', 'departure_date', 'cabin_class', 'passenger_count', 'other']).toContain(k);
          for (const v of m.violations) expect(v.rule).toBe('required');
          for (const c of Object.values(m.confidence)) expect(c >= 0 && c <= 1).toBe(true);
        } catch (e) {
          expect(e).toBeInstanceOf(ParleyError);
          expect((e as ParleyError).type).toBe('unavailable');
        }
        expect(Object.getOwnPropertyNames(Object.prototype)).not.toContain('value');
      }),
      { numRuns: 120, seed: 614 },
    );
  });
});

describe('the LLM mapper from the environment (as the LLM inducer is configured)', () => {
  it('needs PARLEY_LLM_URL; bad values name the variable', () => {
    const err = (env: Record<string, string>) => {
      try {
        createLlmMapperFromEnv(env);
      } catch (e) {
        return [(e as ParleyError).type, (e as ParleyError).path, (e as ParleyError).rule];
      }
      return undefined;
    };
    expect(err({})).toEqual(['invalid_params', 'env.PARLEY_LLM_URL', 'required']);
    expect(err({ PARLEY_LLM_URL: 'ftp://x' })).toEqual(['invalid_params', 'env.PARLEY_LLM_URL', 'format']);
    expect(err({ PARLEY_LLM_URL: 'http://u:p@x' })).toEqual(['invalid_params', 'env.PARLEY_LLM_URL', 'format']);
    expect(err({ PARLEY_LLM_URL: 'http://x', PARLEY_LLM_TIMEOUT_MS: '-3' })).toEqual(['invalid_params', 'env.PARLEY_LLM_TIMEOUT_MS', 'minimum']);
    expect(createLlmMapperFromEnv({ PARLEY_LLM_URL: 'http://127.0.0.1:11434', PARLEY_LLM_MODEL: 'llama3.1' }).id).toBe('openai:llama3.1');
  });

  it('maps through the configured endpoint', async () => {
    srv.setHandler(() => replay('figure_4'));
    const client = createParleyClient('http://127.0.0.1:9', { mapper: createLlmMapperFromEnv({ PARLEY_LLM_URL: srv.base, PARLEY_LLM_MODEL: 'test-model' }) });
    const m = await client.mapUtterance(flightBookingTemplate, FIGURE_4_WORDS, REF);
    expect(m.payload['origin']).toBe('PEK');
    expect(srv.received[0]?.authorization).toBeUndefined();
  });
});
