#!/usr/bin/env node
// `npm run start:nats`: `npm start` on a NATS JetStream server of its own, so that server agents in other
// processes (built with @parley/agent-sdk, or any NATS client speaking the dispatch wire) can attach to it.
// The in-process bus of plain `npm start` admits no one from outside.
//
// Starts nats-server with JetStream on 127.0.0.1 (NATS_PORT, default 4222, or a free port when that one is
// taken), its JetStream data in a directory removed at exit (in PARLEY_DATA_DIR/nats when PARLEY_DATA_DIR
// keeps the database, so the two stay in step), then Parley with NATS_URL pointing at it. Ctrl-C stops both.
// The binary: NATS_SERVER_BIN, else nats-server on PATH, else /usr/sbin or /usr/local/bin. Without one it
// says what to install and exits 1. Every other variable is npm start's (PORT, HOST, PARLEY_DEV_KEY, …).
import { spawn } from 'node:child_process';
import { accessSync, constants, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { createConnection, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, join, resolve } from 'node:path';

const REPO = resolve(import.meta.dirname, '..');
const env = process.env;
const say = (s) => process.stderr.write(`start:nats: ${s}\n`);
let stopping = false;

function executable(f) {
  try {
    accessSync(f, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

function findNatsServer() {
  if (env.NATS_SERVER_BIN) return executable(env.NATS_SERVER_BIN) ? env.NATS_SERVER_BIN : undefined;
  const dirs = [...(env.PATH ?? '').split(delimiter).filter(Boolean), '/usr/sbin', '/usr/local/bin', '/usr/local/sbin'];
  return dirs.map((d) => join(d, 'nats-server')).find(executable);
}

const portFree = (port) =>
  new Promise((res) => {
    const s = createServer();
    s.once('error', () => res(false));
    s.listen(port, '127.0.0.1', () => s.close(() => res(true)));
  });

const anyFreePort = () =>
  new Promise((res, rej) => {
    const s = createServer();
    s.once('error', rej);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => res(port));
    });
  });

const accepts = (port) =>
  new Promise((res) => {
    const c = createConnection({ host: '127.0.0.1', port });
    c.once('connect', () => (c.destroy(), res(true)));
    c.once('error', () => res(false));
  });

if (env.NATS_URL) {
  say(`NATS_URL is set (${env.NATS_URL.replace(/\/\/[^@/]*@/, '//***@')}): plain \`npm start\` connects to that server; starting it without a server of its own`);
}

const bin = env.NATS_URL ? undefined : findNatsServer();
if (!env.NATS_URL && !bin) {
  say(env.NATS_SERVER_BIN ? `NATS_SERVER_BIN=${env.NATS_SERVER_BIN} is not an executable file.` : 'nats-server was not found (on PATH, in /usr/sbin, /usr/local/bin; or set NATS_SERVER_BIN).');
  process.stderr.write(
    [
      '  Install it:   Debian/Ubuntu: sudo apt-get install nats-server',
      '                elsewhere: a release from https://github.com/nats-io/nats-server/releases',
      '  or run any NATS server with JetStream (nats-server -js) and point Parley at it:',
      '                NATS_URL=nats://127.0.0.1:4222 npm start',
      '',
    ].join('\n'),
  );
  process.exit(1);
}

let nats;
let store;
let natsUrl = env.NATS_URL;
if (bin) {
  const wanted = Number(env.NATS_PORT ?? 4222);
  if (!Number.isInteger(wanted) || wanted < 1 || wanted > 65535) {
    say(`NATS_PORT must be a port number, got "${env.NATS_PORT}"`);
    process.exit(2);
  }
  const port = (await portFree(wanted)) ? wanted : await anyFreePort();
  if (port !== wanted) say(`port ${wanted} is taken (another NATS server?); using ${port}`);
  const keep = Boolean(env.PARLEY_DATA_DIR);
  store = keep ? join(resolve(env.PARLEY_DATA_DIR), 'nats') : mkdtempSync(join(tmpdir(), 'parley-nats-'));
  mkdirSync(store, { recursive: true });
  nats = spawn(bin, ['-js', '-a', '127.0.0.1', '-p', String(port), '-sd', store], { stdio: ['ignore', 'ignore', 'pipe'] });
  let natsLog = '';
  nats.stderr.on('data', (b) => (natsLog = (natsLog + b.toString()).slice(-4000)));
  const until = Date.now() + 15_000;
  while (!(await accepts(port))) {
    if (nats.exitCode !== null || Date.now() > until) {
      say(`nats-server did not start (${bin}):\n${natsLog}`);
      nats.kill('SIGKILL');
      if (!keep) rmSync(store, { recursive: true, force: true });
      process.exit(1);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  natsUrl = `nats://127.0.0.1:${port}`;
  say(`nats-server ${bin} with JetStream at ${natsUrl} (data in ${store}${keep ? '' : ', removed at exit'})`);
  nats.once('exit', (code, signal) => {
    if (stopping) return;
    say(`nats-server exited (${signal ?? code}); stopping Parley\n${natsLog}`);
    void stop(1);
  });
}

const parley = spawn(process.execPath, ['--import', 'tsx', join(REPO, 'apps/parley/src/main.ts')], {
  cwd: REPO,
  env: { ...env, NATS_URL: natsUrl },
  stdio: 'inherit',
});

const exited = (child) => new Promise((res) => (child.exitCode !== null || child.signalCode !== null ? res() : child.once('exit', () => res())));

async function stop(code) {
  if (stopping) return;
  stopping = true;
  if (parley.exitCode === null && parley.signalCode === null) parley.kill('SIGTERM');
  await exited(parley);
  if (nats) {
    if (nats.exitCode === null && nats.signalCode === null) nats.kill('SIGTERM');
    const kill = setTimeout(() => nats.kill('SIGKILL'), 10_000);
    await exited(nats);
    clearTimeout(kill);
    if (!env.PARLEY_DATA_DIR) rmSync(store, { recursive: true, force: true });
  }
  process.exit(code);
}

parley.once('exit', (code, signal) => void stop(code ?? (signal ? 1 : 0)));
for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => void stop(0));
