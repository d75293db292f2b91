#!/usr/bin/env node
// `npm run pack -- DIR`: writes an installable tarball of every package a user needs into DIR
// (the client SDK, the agent SDK, the CLI and the @parley libraries they import; scripts/packages.mjs
// builds them). Then, in a project of your own: `npm install DIR/*.tgz`.
// `--force` rebuilds even when the cached build matches the sources.
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { buildPackages } from './packages.mjs';

const args = process.argv.slice(2);
const force = args.includes('--force');
const rest = args.filter((a) => a !== '--force');
if (rest.length !== 1 || rest[0].startsWith('-')) {
  process.stderr.write('usage: npm run pack -- DIR [--force]\n  writes the @parley/* package tarballs into DIR\n');
  process.exit(2);
}
const out = resolve(process.env.INIT_CWD ?? process.cwd(), rest[0]);
const { dir, dirs, names } = buildPackages({ force });
const tarballs = join(dir, 'tarballs');
if (!existsSync(join(tarballs, 'done'))) {
  mkdirSync(tarballs, { recursive: true });
  process.stderr.write(`pack: npm pack ${names.length} packages\n`);
  const r = spawnSync('npm', ['pack', '--pack-destination', tarballs, '--ignore-scripts', '--loglevel=error', ...dirs], { stdio: ['ignore', 'ignore', 'inherit'] });
  if (r.status !== 0) process.exit(r.status ?? 1);
  cpSync(join(dir, 'done'), join(tarballs, 'done'));
}
mkdirSync(out, { recursive: true });
const files = readdirSync(tarballs).filter((f) => f.endsWith('.tgz')).sort();
for (const f of files) cpSync(join(tarballs, f), join(out, f));
process.stdout.write(`${files.map((f) => join(out, f)).join('\n')}\n`);
process.stderr.write(`pack: ${files.length} tarballs in ${out}; install them with: npm install ${out}/*.tgz\n`);
