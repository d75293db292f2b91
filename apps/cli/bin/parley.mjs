#!/usr/bin/env node
// The `parley` command: runs apps/cli/src/main.ts through tsx, like every Parley process.
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const main = join(dirname(fileURLToPath(import.meta.url)), '..', 'src', 'main.ts');
const r = spawnSync(process.execPath, ['--import', 'tsx', main, ...process.argv.slice(2)], { stdio: 'inherit' });
process.exit(r.status ?? 1);
