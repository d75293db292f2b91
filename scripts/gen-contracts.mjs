#!/usr/bin/env node
// Generates libs/contracts/src/gen from proto/ with the pinned buf and ts-proto in
// node_modules. Runs on `npm ci` (postinstall) and as the contracts build target.
// The output is build output: git-ignored and never edited by hand.
import { spawnSync } from 'node:child_process';
import { rmSync, existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const buf = join(root, 'node_modules', '.bin', 'buf');
const plugin = join(root, 'node_modules', '.bin', 'protoc-gen-ts_proto');
const out = join(root, 'libs', 'contracts', 'src', 'gen');

if (!existsSync(buf) || !existsSync(plugin)) {
  console.error('gen-contracts: buf or ts-proto missing from node_modules; run `npm ci` first');
  process.exit(1);
}
rmSync(out, { recursive: true, force: true });
const r = spawnSync(buf, ['generate'], { cwd: join(root, 'proto'), stdio: 'inherit' });
if (r.status !== 0) {
  console.error('gen-contracts: buf generate failed');
  process.exit(r.status ?? 1);
}
console.log('gen-contracts: generated libs/contracts/src/gen from proto/parley/v1');
