import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsImport from 'ajv-formats';
import { ParleyError, type Violation } from './errors';

// ajv-formats is CommonJS; under ESM interop its default export may be nested.
const addFormats = ((addFormatsImport as unknown as { default?: unknown }).default ?? addFormatsImport) as (a: Ajv2020) => void;

/**
 * Response schemas: a server agent MAY publish a JSON Schema its results must
 * satisfy (draft-zhou §3.2 step (5): "The result itself SHOULD be structured
 * according to a pre-negotiated response schema"). Parley checks each result
 * against it before the client sees it.
 */
export interface ResponseValidator {
  /** Throws `agent_response_invalid` naming the first broken path. */
  check(result: unknown, agent: string): void;
}

const ajv = new Ajv2020({ strict: false, allErrors: false });
addFormats(ajv);

/** Compiles a response schema; a schema that does not compile is a `template_invalid` at `response_schema`. */
export function compileResponseSchema(schema: Record<string, unknown>): ResponseValidator {
  let validate: ReturnType<Ajv2020['compile']>;
  try {
    validate = ajv.compile(schema);
  } catch (cause) {
    throw new ParleyError('template_invalid', `response_schema is not a valid JSON Schema: ${(cause as Error).message}`, {
      path: 'response_schema',
      rule: 'json_schema',
      cause,
    });
  }
  return {
    check(result, agent) {
      if (validate(result)) return;
      const violations: Violation[] = (validate.errors ?? []).map((e) => ({
        path: `result${e.instancePath.replace(/\/(\d+)(?=\/|$)/g, '[$1]').replace(/\//g, '.')}`,
        rule: e.keyword,
        message: e.message ?? e.keyword,
      }));
      const first = violations[0] ?? { path: 'result', rule: 'response_schema', message: 'invalid' };
      throw new ParleyError('agent_response_invalid', `Agent ${agent} returned a result that breaks the response schema: ${first.path} ${first.message}`, {
        path: first.path,
        rule: first.rule,
        violations,
        details: { agent },
      });
    },
  };
}
