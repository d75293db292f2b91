#!/usr/bin/env node
// Lists the functions, arrow functions and methods in apps/*/src and libs/*/src longer than
// MAX_LINES lines (first to last line, inclusive), using the TypeScript compiler's parser.
// A function named in scripts/function-length-allowlist.txt may stay over the limit until it
// is split; any other long function is a failure (exit 1). An allowlist entry whose function
// is now within the limit (or gone) is reported so the list can shrink.
//
//   node scripts/check-function-length.mjs          # check, exit 1 on a new long function
//   node scripts/check-function-length.mjs --list   # print every long function as an allowlist line
//
// Names: `path#name`, where name is the function's own name, or the variable, property or
// `Class.method` it is bound to; an anonymous function is named by its enclosing one plus
// `>anonymous@N` (its rank among the anonymous functions of that enclosing function).
import { readdirSync, readFileSync, existsSync, statSync } from 'node:fs';
import { join, relative, dirname, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

export const MAX_LINES = 150;
const root = join(dirname(fileURLToPath(import.meta.url)), '..');
export const ALLOWLIST = join(root, 'scripts', 'function-length-allowlist.txt');

/** @param {string} dir @returns {string[]} */
function tsFiles(dir) {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) return name === 'gen' || name === 'node_modules' ? [] : tsFiles(p);
    return /\.(c|m)?ts$/.test(name) && !name.endsWith('.d.ts') ? [p] : [];
  });
}

/** @returns {string[]} every source file of apps/*\/src and libs/*\/src */
function sourceFiles() {
  return ['apps', 'libs'].flatMap((top) =>
    readdirSync(join(root, top), { withFileTypes: true })
      .filter((d) => d.isDirectory())
      .flatMap((d) => tsFiles(join(root, top, d.name, 'src'))),
  );
}

/** @param {ts.Node} node @returns {string | undefined} the name a function is known by */
function ownName(node) {
  const text = (/** @type {ts.Node | undefined} */ n) => (n && (ts.isIdentifier(n) || ts.isStringLiteral(n) || ts.isPrivateIdentifier(n)) ? n.text : undefined);
  if (ts.isFunctionDeclaration(node) || ts.isMethodDeclaration(node) || ts.isGetAccessor(node) || ts.isSetAccessor(node)) {
    const n = text(node.name);
    const cls = node.parent && ts.isClassLike(node.parent) ? node.parent.name?.text : undefined;
    return n && cls ? `${cls}.${n}` : n;
  }
  if (ts.isConstructorDeclaration(node)) return `${node.parent.name?.text ?? 'class'}.constructor`;
  if (ts.isFunctionExpression(node) && node.name) return node.name.text;
  const p = node.parent;
  if (p && ts.isVariableDeclaration(p)) return text(p.name);
  if (p && (ts.isPropertyAssignment(p) || ts.isPropertyDeclaration(p))) return text(p.name);
  return undefined;
}

/** @param {string} file @returns {{ key: string, lines: number }[]} */
export function longFunctions(file, max = MAX_LINES) {
  const src = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const rel = relative(root, file).split(sep).join('/');
  /** @type {{ key: string, lines: number }[]} */
  const out = [];
  /** @param {ts.Node} node @param {string} scope @param {{ n: number }} anon */
  const visit = (node, scope, anon) => {
    if (ts.isFunctionLike(node) && 'body' in node && node.body) {
      const own = ownName(node);
      const name = own ? (scope ? `${scope}>${own}` : own) : `${scope || 'module'}>anonymous@${++anon.n}`;
      const first = src.getLineAndCharacterOfPosition(node.getStart(src)).line;
      const last = src.getLineAndCharacterOfPosition(node.getEnd()).line;
      const lines = last - first + 1;
      if (lines > max) out.push({ key: `${rel}#${name}`, lines });
      const inner = { n: 0 };
      ts.forEachChild(node, (c) => visit(c, name, inner));
      return;
    }
    ts.forEachChild(node, (c) => visit(c, scope, anon));
  };
  visit(src, '', { n: 0 });
  return out;
}

/** @returns {Set<string>} */
export function readAllowlist(path = ALLOWLIST) {
  if (!existsSync(path)) return new Set();
  return new Set(
    readFileSync(path, 'utf8')
      .split('\n')
      .map((l) => l.replace(/\s+#\s.*$/, '').trim())
      .filter((l) => l && !l.startsWith('#')),
  );
}

/** @returns {{ offending: { key: string, lines: number }[], allowed: { key: string, lines: number }[], stale: string[] }} */
export function check(max = MAX_LINES) {
  const allow = readAllowlist();
  const long = sourceFiles().flatMap((f) => longFunctions(f, max));
  const seen = new Set(long.map((l) => l.key));
  return {
    offending: long.filter((l) => !allow.has(l.key)),
    allowed: long.filter((l) => allow.has(l.key)),
    stale: [...allow].filter((k) => !seen.has(k)),
  };
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const { offending, allowed, stale } = check();
  if (process.argv.includes('--list')) {
    for (const l of [...allowed, ...offending].sort((a, b) => a.key.localeCompare(b.key))) console.log(`${l.key}  # ${l.lines} lines`);
    process.exit(0);
  }
  for (const k of stale) console.log(`check-function-length: ${k} is within ${MAX_LINES} lines now (or gone): remove it from scripts/function-length-allowlist.txt`);
  for (const l of offending) console.error(`check-function-length: ${l.key} has ${l.lines} lines (limit ${MAX_LINES}); split it into smaller units`);
  console.log(`check-function-length: ${offending.length} new function(s) over ${MAX_LINES} lines, ${allowed.length} allowlisted, ${stale.length} stale allowlist entr${stale.length === 1 ? 'y' : 'ies'}`);
  process.exit(offending.length > 0 ? 1 : 0);
}
