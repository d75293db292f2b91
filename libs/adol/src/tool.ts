/**
 * The MCP `Tool` as a `tools/list` result carries it, and the parsing of a
 * tools/list document (CLI, bench, gateway).
 */
import { ParleyError } from '@parley/protocol';
import { isObject, type JsonObject, type JsonValue } from './json';

/** An MCP tool (spec 2026-07-28). Unknown members are kept as they are. */
export interface McpTool {
  name: string;
  title?: string;
  description?: string;
  inputSchema: JsonObject;
  outputSchema?: JsonObject;
  annotations?: JsonObject;
  execution?: JsonObject;
  icons?: JsonValue[];
  _meta?: JsonObject;
  [member: string]: JsonValue | undefined;
}

/**
 * The tools of a `tools/list` document: a result `{ tools: [...] }`, a JSON-RPC
 * response `{ result: { tools: [...] } }`, or a plain array of tools. Throws
 * `invalid_params` naming the first member that is not a tool.
 */
export function toolsFromList(doc: unknown): McpTool[] {
  let tools: unknown;
  let base: string;
  if (Array.isArray(doc)) {
    tools = doc;
    base = '';
  } else if (isObject(doc) && Array.isArray(doc.tools)) {
    tools = doc.tools;
    base = 'tools';
  } else if (isObject(doc) && isObject(doc.result) && Array.isArray(doc.result.tools)) {
    tools = doc.result.tools;
    base = 'result.tools';
  } else {
    throw new ParleyError('invalid_params', 'not a tools/list document: expected { tools: [...] }, a JSON-RPC response with result.tools, or an array of tools', {
      path: '',
      rule: 'tool_list',
    });
  }
  (tools as unknown[]).forEach((t, i) => {
    const at = `${base}[${i}]`;
    if (!isObject(t)) throw new ParleyError('invalid_params', `${at} is not an object`, { path: at, rule: 'type' });
    if (typeof t.name !== 'string' || t.name === '') throw new ParleyError('invalid_params', `${at}.name must be a non-empty string`, { path: `${at}.name`, rule: 'required' });
    if (!isObject(t.inputSchema)) throw new ParleyError('invalid_params', `${at}.inputSchema must be a JSON Schema object`, { path: `${at}.inputSchema`, rule: 'required' });
    if (t.outputSchema !== undefined && !isObject(t.outputSchema)) {
      throw new ParleyError('invalid_params', `${at}.outputSchema must be a JSON Schema object`, { path: `${at}.outputSchema`, rule: 'type' });
    }
  });
  return tools as McpTool[];
}
