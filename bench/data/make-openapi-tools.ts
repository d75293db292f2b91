// Builds bench/data/mcp-tools/openapi-petstore.json: the tools/list an
// OpenAPI-generated MCP server publishes for a real OpenAPI document
// (bench/data/openapi/petstore.json, the Swagger Petstore 3.0 as shipped by
// @readme/oas-examples 8.2.2). The conversion is the one FastMCP's OpenAPI
// integration used before it pruned definitions: one tool per operation
// (name = operationId, description = summary + description), the path, query
// and header parameters as properties, a request body as the property `body`
// (form bodies as their own properties), and EVERY component schema under each
// tool's `$defs`, with `#/components/schemas/X` rewritten to `#/$defs/X`. So
// every tool carries the same definitions block, and only the tools whose
// input mentions a component reference any of it: the shape measured on a
// real generated server (dedup must see it).
//
//   npx tsx bench/data/make-openapi-tools.ts   (rewrites the file; deterministic)
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
type Obj = { [k: string]: Json };

const DIR = fileURLToPath(new URL('.', import.meta.url));
const doc = JSON.parse(readFileSync(`${DIR}openapi/petstore.json`, 'utf8')) as Obj;
const components = (doc.components ?? {}) as Obj;
const schemas = (components.schemas ?? {}) as Obj;
const requestBodies = (components.requestBodies ?? {}) as Obj;

/** `#/components/schemas/X` → `#/$defs/X`, everywhere in a value; drops OpenAPI-only keywords (xml). */
function rewrite(v: Json): Json {
  if (Array.isArray(v)) return v.map(rewrite);
  if (v && typeof v === 'object') {
    const out: Obj = Object.create(null) as Obj;
    for (const [k, x] of Object.entries(v)) {
      if (k === 'xml') continue;
      if (k === '$ref' && typeof x === 'string') out[k] = x.replace('#/components/schemas/', '#/$defs/');
      else out[k] = rewrite(x);
    }
    return { ...out };
  }
  return v;
}

function resolveBody(b: Obj): Obj {
  if (typeof b.$ref === 'string') return requestBodies[b.$ref.split('/').pop()!] as Obj;
  return b;
}

const defs = rewrite(schemas) as Obj;
const tools: Obj[] = [];
for (const item of Object.values((doc.paths ?? {}) as Obj) as Obj[]) {
  for (const method of ['get', 'put', 'post', 'delete', 'patch']) {
    const op = item[method] as Obj | undefined;
    if (!op) continue;
    const properties: Obj = {};
    const required: string[] = [];
    for (const p of (op.parameters ?? []) as Obj[]) {
      const schema = rewrite((p.schema ?? {}) as Json) as Obj;
      properties[p.name as string] = { ...(p.description ? { description: p.description } : {}), ...schema };
      if (p.required) required.push(p.name as string);
    }
    if (op.requestBody) {
      const body = resolveBody(op.requestBody as Obj);
      const content = (body.content ?? {}) as Obj;
      const [mediaType, media] = Object.entries(content)[0] as [string, Obj];
      const schema = rewrite((media.schema ?? {}) as Json) as Obj;
      if (mediaType !== 'application/json' && schema.type === 'object' && schema.properties) {
        Object.assign(properties, schema.properties);
      } else {
        properties.body = { ...(body.description ? { description: body.description } : {}), ...schema };
        if (body.required) required.push('body');
      }
    }
    const description = [op.summary, op.description].filter((x) => typeof x === 'string' && x !== '').join('\n\n');
    tools.push({
      name: op.operationId as string,
      description,
      inputSchema: { type: 'object', properties, ...(required.length ? { required } : {}), $defs: defs },
    });
  }
}
writeFileSync(`${DIR}mcp-tools/openapi-petstore.json`, `${JSON.stringify(tools, null, 2)}\n`);
process.stdout.write(`${tools.length} tools, ${Object.keys(defs).length} definitions each\n`);
