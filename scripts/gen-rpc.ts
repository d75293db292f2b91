#!/usr/bin/env tsx
/**
 * Generates the two checked-in files that follow from the JSON-RPC method table
 * (libs/protocol/src/rpc-methods.ts) and from proto/parley/v1:
 *
 * - libs/protocol/src/rpc-wire.gen.ts: a JSON Schema for every parley.v1 message
 *   (the shapes the gateway passes through as JSON: ts-proto objects with the
 *   proto field names), from `buf build`'s descriptor image with the proto
 *   comments as descriptions. The OpenRPC document's components.schemas.
 * - libs/client/src/methods.gen.ts: a TypeScript type for every params and
 *   result schema of the table and the camelCase client method of each method.
 *
 * Run `npm run gen:rpc` after changing the table or a .proto file; a test
 * (libs/client/test/methods.test.ts, running this with `--check`) fails while either file is stale.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
export const WIRE_FILE = join(root, 'libs', 'protocol', 'src', 'rpc-wire.gen.ts');
export const CLIENT_FILE = join(root, 'libs', 'client', 'src', 'methods.gen.ts');

type Schema = Record<string, unknown>;

// ---------------------------------------------------------------------------
// proto → JSON Schema
// ---------------------------------------------------------------------------

interface FieldDescriptor {
  name: string;
  label?: string;
  type?: string;
  typeName?: string;
  proto3Optional?: boolean;
}
interface MessageDescriptor {
  name: string;
  field?: FieldDescriptor[];
  nestedType?: MessageDescriptor[];
  options?: { mapEntry?: boolean };
}
interface FileDescriptor {
  name: string;
  package?: string;
  messageType?: MessageDescriptor[];
  sourceCodeInfo?: { location?: Array<{ path?: number[]; leadingComments?: string; trailingComments?: string }> };
}

/** The descriptor image of proto/ as JSON (buf's own format), with comments. */
export function protoImage(): { file: FileDescriptor[] } {
  const buf = join(root, 'node_modules', '.bin', 'buf');
  const r = spawnSync(buf, ['build', '-o', '-#format=json'], { cwd: join(root, 'proto'), encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  if (r.status !== 0) throw new Error(`buf build failed: ${r.stderr}`);
  return JSON.parse(r.stdout) as { file: FileDescriptor[] };
}

const INTEGER = new Set(['TYPE_INT32', 'TYPE_INT64', 'TYPE_SINT32', 'TYPE_SINT64', 'TYPE_SFIXED32', 'TYPE_SFIXED64']);
const UNSIGNED = new Set(['TYPE_UINT32', 'TYPE_UINT64', 'TYPE_FIXED32', 'TYPE_FIXED64']);

function comment(text: string | undefined): string | undefined {
  const t = text
    ?.split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '')
    .join(' ');
  return t ? t : undefined;
}

function fieldSchema(f: FieldDescriptor): Schema {
  const t = f.type ?? '';
  let s: Schema;
  if (t === 'TYPE_STRING') s = { type: 'string' };
  else if (t === 'TYPE_BOOL') s = { type: 'boolean' };
  else if (t === 'TYPE_DOUBLE' || t === 'TYPE_FLOAT') s = { type: 'number' };
  else if (INTEGER.has(t)) s = { type: 'integer' };
  else if (UNSIGNED.has(t)) s = { type: 'integer', minimum: 0 };
  else if (t === 'TYPE_MESSAGE') {
    const n = f.typeName ?? '';
    if (n === '.google.protobuf.Struct') s = { type: 'object', additionalProperties: true };
    else if (n === '.google.protobuf.Value') s = {};
    else if (n === '.google.protobuf.ListValue') s = { type: 'array', items: {} };
    else if (n.startsWith('.parley.v1.')) s = { $ref: `#/components/schemas/${n.slice('.parley.v1.'.length)}` };
    else throw new Error(`gen-rpc: no JSON Schema for ${n} (field ${f.name})`);
  } else throw new Error(`gen-rpc: no JSON Schema for proto type ${t} (field ${f.name})`);
  return f.label === 'LABEL_REPEATED' ? { type: 'array', items: s } : s;
}

/**
 * JSON Schemas of parley.v1's messages as the gateway answers them: ts-proto
 * objects (field names as in the proto; scalars always present, message and
 * `optional` fields may be absent; int64 as numbers).
 */
export function wireSchemas(image: { file: FileDescriptor[] }): Record<string, Schema> {
  const out: Record<string, Schema> = {};
  for (const file of image.file) {
    if (file.package !== 'parley.v1') continue;
    const comments = new Map<string, string>();
    for (const l of file.sourceCodeInfo?.location ?? []) {
      const c = comment(l.leadingComments ?? l.trailingComments);
      if (c && l.path) comments.set(l.path.join('.'), c);
    }
    (file.messageType ?? []).forEach((m, mi) => {
      if ((m.nestedType ?? []).length > 0) throw new Error(`gen-rpc: nested messages are not supported (${m.name})`);
      const properties: Record<string, Schema> = {};
      const required: string[] = [];
      (m.field ?? []).forEach((f, fi) => {
        const d = comments.get(`4.${mi}.2.${fi}`);
        properties[f.name] = { ...fieldSchema(f), ...(d ? { description: d } : {}) };
        if (f.type !== 'TYPE_MESSAGE' && !f.proto3Optional) required.push(f.name);
        else if (f.label === 'LABEL_REPEATED') required.push(f.name);
      });
      const d = comments.get(`4.${mi}`);
      out[m.name] = { title: m.name, ...(d ? { description: d } : {}), type: 'object', properties, ...(required.length ? { required } : {}) };
    });
  }
  return Object.fromEntries(Object.entries(out).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

export function renderWireModule(schemas: Record<string, Schema>): string {
  return [
    '// Generated by scripts/gen-rpc.ts from proto/parley/v1 (`npm run gen:rpc`). DO NOT EDIT.',
    '// JSON Schemas of the parley.v1 messages the JSON-RPC methods pass through (ts-proto JSON: proto field names).',
    '',
    `export const WIRE_SCHEMAS = ${JSON.stringify(schemas, null, 2)} as const;`,
    '',
  ].join('\n');
}

// ---------------------------------------------------------------------------
// JSON Schema → TypeScript (the subset the table and the wire schemas use)
// ---------------------------------------------------------------------------

function doc(description: unknown, indent: string): string {
  if (typeof description !== 'string' || description === '') return '';
  return `${indent}/** ${description.replace(/\*\//g, '* /')} */\n`;
}

const IDENT = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

export function tsType(s: Schema, indent = ''): string {
  if (typeof s.$ref === 'string') return s.$ref.slice(s.$ref.lastIndexOf('/') + 1);
  if ('const' in s) return JSON.stringify(s.const);
  if (Array.isArray(s.enum)) return s.enum.map((v) => JSON.stringify(v)).join(' | ');
  const alt = (s.oneOf ?? s.anyOf) as Schema[] | undefined;
  if (Array.isArray(alt)) return alt.map((a) => `(${tsType(a, indent)})`).join(' | ');
  const t = s.type;
  if (Array.isArray(t)) return t.map((x) => tsType({ ...s, type: x }, indent)).join(' | ');
  switch (t) {
    case 'string':
      return 'string';
    case 'integer':
    case 'number':
      return 'number';
    case 'boolean':
      return 'boolean';
    case 'null':
      return 'null';
    case 'array':
      return `Array<${s.items ? tsType(s.items as Schema, indent) : 'JsonValue'}>`;
    case 'object': {
      const props = (s.properties ?? {}) as Record<string, Schema>;
      const names = Object.keys(props);
      if (names.length === 0) return 'JsonObject';
      const req = new Set((s.required ?? []) as string[]);
      const inner = `${indent}  `;
      const lines = names.map((n) => `${doc(props[n]?.description, inner)}${inner}${IDENT.test(n) ? n : JSON.stringify(n)}${req.has(n) ? '' : '?'}: ${tsType(props[n] as Schema, inner)};`);
      const open = s.additionalProperties === true ? [`${inner}[member: string]: unknown;`] : [];
      return `{\n${[...lines, ...open].join('\n')}\n${indent}}`;
    }
    default:
      return 'JsonValue';
  }
}

export function camel(method: string): string {
  return method.replace(/[._]([a-z])/g, (_m, c: string) => c.toUpperCase());
}

function pascal(method: string): string {
  const c = camel(method);
  return c.charAt(0).toUpperCase() + c.slice(1);
}

export interface TableMethod {
  name: string;
  summary: string;
  params: Schema;
  result: Schema;
}

/** The client's types: the wire messages, shared schemas, and each method's params and result. */
export function renderClientTypes(methods: readonly TableMethod[], shared: Record<string, Schema>, wire: Record<string, Schema>): string {
  const out: string[] = [
    '// Generated by scripts/gen-rpc.ts from the JSON-RPC method table (libs/protocol/src/rpc-methods.ts)',
    '// and proto/parley/v1 (`npm run gen:rpc`). DO NOT EDIT: a test fails while this file is stale.',
    "import type { JsonObject, JsonValue } from '@parley/protocol';",
    '',
  ];
  for (const [name, s] of [...Object.entries(shared), ...Object.entries(wire)]) {
    out.push(`${doc(s.description, '')}export type ${name} = ${tsType(s)};`, '');
  }
  for (const m of methods) {
    out.push(`/** Params of \`${m.name}\`: ${m.summary} */`, `export type ${pascal(m.name)}Params = ${tsType(m.params)};`, '');
    out.push(`/** Result of \`${m.name}\`. */`, `export type ${pascal(m.name)}Result = ${tsType(m.result)};`, '');
  }
  out.push('/** Params and result of every documented JSON-RPC method, by name. */', 'export interface RpcMethodTypes {');
  for (const m of methods) out.push(`  ${JSON.stringify(m.name)}: { params: ${pascal(m.name)}Params; result: ${pascal(m.name)}Result };`);
  out.push('}', '');
  out.push('/** The documented methods, by their client name (camelCase). */', 'export const RPC_CLIENT_METHODS = {');
  for (const m of methods) out.push(`  ${camel(m.name)}: ${JSON.stringify(m.name)},`);
  out.push('} as const;', '');
  out.push('/** A typed client method for every documented JSON-RPC method. */', 'export interface RpcMethods {');
  for (const m of methods) {
    const optional = !((m.params.required as string[] | undefined) ?? []).length;
    out.push(`  /** \`${m.name}\`: ${m.summary} */`, `  ${camel(m.name)}(params${optional ? '?' : ''}: ${pascal(m.name)}Params): Promise<${pascal(m.name)}Result>;`);
  }
  out.push('}', '');
  return out.join('\n');
}

/** `--check`: writes nothing, exits 1 naming each stale file (the test runs this). */
async function main(check: boolean): Promise<void> {
  const wire = wireSchemas(protoImage());
  const wireText = renderWireModule(wire);
  if (!check) writeFileSync(WIRE_FILE, wireText);
  const { RPC_METHODS, SHARED_SCHEMAS } = await import('../libs/protocol/src/rpc-methods');
  const clientText = renderClientTypes(RPC_METHODS as unknown as TableMethod[], SHARED_SCHEMAS as unknown as Record<string, Schema>, wire);
  if (!check) {
    writeFileSync(CLIENT_FILE, clientText);
    console.log(`gen-rpc: wrote ${WIRE_FILE} and ${CLIENT_FILE}`);
    return;
  }
  const stale = [
    [WIRE_FILE, wireText],
    [CLIENT_FILE, clientText],
  ].filter(([file, text]) => !existsSync(file as string) || readFileSync(file as string, 'utf8') !== text);
  for (const [file] of stale) console.error(`gen-rpc: ${file} is stale: run \`npm run gen:rpc\``);
  if (stale.length) process.exit(1);
  console.log('gen-rpc: generated files are current');
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  main(process.argv.includes('--check')).catch((e: unknown) => {
    console.error(e);
    process.exit(1);
  });
}
