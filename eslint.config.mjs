// @ts-check
/**
 * ESLint 9 flat config for the whole workspace.
 *
 * What it enforces (type-unaware, so lint stays fast):
 *  0. typescript-eslint's `recommended` set (syntax-only rules, no type checker),
 *     as warnings for now (HYGIENE below).
 *  1. The layer rules between Nx projects (`@nx/enforce-module-boundaries`),
 *     driven by the `type:*` tag in each project.json. See LAYERS below.
 *  2. Pure domain: libs/protocol and libs/examples import no IO library
 *     (`no-restricted-imports`), and every `type:domain` project (libs/protocol,
 *     examples, adol, an, auth, evolution) imports no database/messaging/RPC
 *     package (`bannedExternalImports`, follows the tag).
 *     Tests are exempt (fixtures are files) and may import libs/testkit.
 *
 *  3. Dictionaries keyed by outside text are Maps or null-prototype objects
 *     (`parley/no-plain-object-dictionary`, tools/eslint/) in the libraries and
 *     apps that handle words, tokens, names and keys from payloads, `other`
 *     fragments and tool texts. See TEXT_PATHS below and ARCHITECTURE.md.
 *
 * The boundary rule reads Nx's cached project graph (.nx/workspace-data). Under
 * `nx run <project>:lint` Nx has just computed it. When ESLint is run directly
 * (`npx eslint libs/protocol`, an editor) this file refreshes it first with
 * `nx show projects` (NX_DAEMON=false, ~1 s) so the rule never silently skips
 * or reads stale tags. Set PARLEY_LINT_NO_GRAPH_REFRESH=1 to skip the refresh.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig, globalIgnores } from 'eslint/config';
import tseslint from 'typescript-eslint';
import nx from '@nx/eslint-plugin';
import parley from './tools/eslint/no-plain-object-dictionary.mjs';

const root = dirname(fileURLToPath(import.meta.url));

const TS_FILES = ['**/*.ts', '**/*.mts', '**/*.cts'];
const TEST_FILES = ['**/test/**/*.ts', '**/*.test.ts', '**/*.spec.ts', 'e2e/**/*.ts', 'bench/**/*.ts'];

/**
 * Severity of typescript-eslint's recommended (hygiene) rules. `warn` while the
 * code base is young, so style findings show without failing `nx run-many -t lint`;
 * the architecture rules (boundaries, pure domain) are always errors.
 * @type {'warn' | 'error'}
 */
const HYGIENE = 'warn';

/**
 * @param {Record<string, any>} rules
 * @param {'warn' | 'error'} severity
 */
function withSeverity(rules, severity) {
  const up = (/** @type {any} */ v) => (v === 'error' || v === 2 ? severity : v);
  return Object.fromEntries(Object.entries(rules).map(([k, v]) => [k, Array.isArray(v) ? [up(v[0]), ...v.slice(1)] : up(v)]));
}

// ---------------------------------------------------------------------------
// Layers. Key: a project's tag; value: the tags of projects it may import.
// ---------------------------------------------------------------------------
const DOMAIN = 'type:domain'; //           libs/protocol, examples, adol, an, auth, evolution
const CONTRACTS = 'type:contracts'; //     libs/contracts
const ADAPTER = 'type:adapter'; //         libs/events, libs/storage
const RUNTIME = 'type:runtime'; //         libs/runtime
const SDK = 'type:sdk'; //                 libs/agent-sdk, libs/client
const TESTING = 'type:testing'; //         libs/testkit
const SERVICE = 'type:service'; //         apps/registry, negotiation, execution, gateway
const EXAMPLE = 'type:example'; //         apps/example-agents
const COMPOSITION = 'type:composition'; // apps/parley
const APP_TAGS = [SERVICE, EXAMPLE, COMPOSITION];

/** @type {Record<string, string[]>} */
const LAYERS = {
  [DOMAIN]: [DOMAIN],
  [CONTRACTS]: [DOMAIN, CONTRACTS],
  [ADAPTER]: [DOMAIN, ADAPTER],
  [RUNTIME]: [DOMAIN, CONTRACTS, ADAPTER, RUNTIME],
  [SDK]: [DOMAIN, CONTRACTS, ADAPTER, SDK],
  // Services never import each other (they talk gRPC and NATS).
  [SERVICE]: [DOMAIN, CONTRACTS, ADAPTER, RUNTIME],
  // Example agents are small processes too: they use the runtime's env, health and signal handling.
  [EXAMPLE]: [DOMAIN, SDK, ADAPTER, RUNTIME],
};

/** Packages that do IO. A pure domain project imports none of them. */
const IO_PACKAGES = ['pg', 'pg-*', '@electric-sql/*', '@nats-io/*', '@grpc/*', 'testcontainers', '@testcontainers/*'];
const IO_BUILTINS = ['fs', 'fs/promises', 'net', 'http', 'https', 'http2', 'child_process', 'dgram', 'tls'];

/**
 * @param {{ tests?: boolean }} [opts] tests: test files may also import type:testing (libs/testkit),
 *   and the IO ban on type:domain does not apply to them (they may read fixtures).
 */
function depConstraints({ tests = false } = {}) {
  return [
    ...Object.entries(LAYERS).map(([sourceTag, allowed]) => ({
      sourceTag,
      onlyDependOnLibsWithTags: tests ? [...allowed, TESTING] : allowed,
      ...(sourceTag === DOMAIN && !tests ? { bannedExternalImports: IO_PACKAGES } : {}),
    })),
    // Test infrastructure: anything but apps.
    { sourceTag: TESTING, notDependOnLibsWithTags: APP_TAGS },
    // The one-process composition wires everything together.
    { sourceTag: COMPOSITION, onlyDependOnLibsWithTags: ['*'] },
  ];
}

/** Package names of the apps (the composition app imports them; Nx otherwise forbids importing apps). */
function appPackageNames() {
  const dir = join(root, 'apps');
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true })
    .filter((d) => d.isDirectory() && existsSync(join(dir, d.name, 'package.json')))
    .map((d) => JSON.parse(readFileSync(join(dir, d.name, 'package.json'), 'utf8')).name)
    .filter((n) => typeof n === 'string' && n !== '@parley/parley');
}

/** Refreshes Nx's cached project graph when ESLint runs outside an Nx task (see the header). */
function refreshProjectGraph() {
  if (process.env.NX_TASK_TARGET_PROJECT || process.env.PARLEY_LINT_NO_GRAPH_REFRESH) return;
  try {
    const nxPkg = createRequire(import.meta.url).resolve('nx/package.json');
    const nxBin = join(dirname(nxPkg), JSON.parse(readFileSync(nxPkg, 'utf8')).bin.nx);
    execFileSync(process.execPath, [nxBin, 'show', 'projects'], {
      cwd: root,
      stdio: 'ignore',
      env: { ...process.env, NX_DAEMON: 'false', NX_NO_CLOUD: 'true' },
      timeout: 60_000,
    });
  } catch (e) {
    console.warn(`[eslint.config.mjs] could not refresh the Nx project graph (${/** @type {Error} */ (e).message}); ` +
      '@nx/enforce-module-boundaries may use a stale graph or be skipped');
  }
}
refreshProjectGraph();

/** @param {{ tests?: boolean, allow?: string[] }} [opts] */
function boundaries({ tests = false, allow = [] } = {}) {
  return {
    '@nx/enforce-module-boundaries': [
      'error',
      {
        allow,
        enforceBuildableLibDependency: false,
        // Tests may import their own project by its package name (its public API).
        allowCircularSelfDependency: tests,
        depConstraints: depConstraints({ tests }),
      },
    ],
  };
}

/**
 * Code that reads outside text (payload keys, `other` fragments, tool names and
 * descriptions, words and tokens): its dictionaries must not be plain objects.
 */
const TEXT_PATHS = [
  'libs/embeddings/src/**/*.ts',
  'libs/evolution/src/**/*.ts',
  'libs/adol/src/**/*.ts',
  'libs/pool/src/**/*.ts',
  'libs/protocol/src/**/*.ts',
  'libs/client/src/**/*.ts',
  'apps/semantic-pool/src/**/*.ts',
];

export default defineConfig([
  globalIgnores([
    '**/node_modules/**',
    '**/dist/**',
    'scratch/**',
    'libs/contracts/src/gen/**',
    '.nx/**',
    'coverage/**',
  ]),

  // TypeScript: typescript-eslint's parser and its recommended rules that need
  // no type information (no parserOptions.project, so no type-aware rules),
  // reported at HYGIENE severity.
  ...tseslint.configs.recommended.map((c) => ({ ...c, files: TS_FILES, ...(c.rules ? { rules: withSeverity(c.rules, HYGIENE) } : {}) })),
  {
    files: TS_FILES,
    languageOptions: {
      parser: tseslint.parser,
      ecmaVersion: 2023,
      sourceType: 'module',
    },
    plugins: { '@nx': nx },
    linterOptions: { reportUnusedDisableDirectives: 'warn' },
    rules: {
      ...boundaries(),
      // `_`-prefixed names are deliberately unused (placeholders, omitted members).
      '@typescript-eslint/no-unused-vars': [
        HYGIENE,
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none', destructuredArrayIgnorePattern: '^_', ignoreRestSiblings: true },
      ],
    },
  },

  // Tests may also import libs/testkit (type:testing).
  { files: TEST_FILES, rules: boundaries({ tests: true }) },

  // apps/parley runs every service in one process, so it may import the apps.
  { files: ['apps/parley/**/*.ts'], rules: boundaries({ tests: true, allow: appPackageNames() }) },

  // Pure domain: no IO in libs/protocol and libs/examples (time and IO are passed in).
  // Their tests are exempt: they read fixture files.
  {
    files: ['libs/protocol/**/*.ts', 'libs/examples/**/*.ts'],
    ignores: TEST_FILES,
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [
            ...IO_BUILTINS.flatMap((m) => [m, `node:${m}`]).map((name) => ({
              name,
              message: 'libs/protocol and libs/examples are pure domain code: no IO. Take the data or a port as a parameter.',
            })),
            { name: 'pg', message: 'Pure domain code: no database access. Use a repository in libs/storage.' },
          ],
          patterns: [
            {
              group: ['pg/*', '@electric-sql/*', '@nats-io/*', '@grpc/*'],
              message: 'Pure domain code: no database, NATS or gRPC. Those belong in adapters (libs/storage, libs/events, libs/contracts).',
            },
          ],
        },
      ],
    },
  },

  // Dictionaries keyed by outside text: Map or Object.create(null), never a plain object
  // ("constructor" or "__proto__" would reach Object.prototype).
  {
    files: TEXT_PATHS,
    ignores: TEST_FILES,
    plugins: { parley },
    rules: { 'parley/no-plain-object-dictionary': 'error' },
  },
]);
