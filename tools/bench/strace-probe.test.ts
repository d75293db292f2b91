/**
 * bench/strace-probe.ts (execute-c1.ts's PROBE_STRACE): a missing strace is a clear error, a tracer that exits early
 * or ignores SIGINT does not hang the bench, and a summary-less output reads as not measured rather than zero.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseStraceSummary, startTracer } from '../../bench/strace-probe';

const out = () => join(mkdtempSync(join(tmpdir(), 'strace-probe-test-')), 'p');
const node = (code: string) => [process.execPath, '-e', code];

describe('the PROBE_STRACE tracers', () => {
  it('refuses with a clear error when strace is not installed, instead of an uncaught spawn error', async () => {
    await expect(startTracer(process.pid, out(), ['parley-no-such-strace-binary', '-p', '1'])).rejects.toThrow(/needs parley-no-such-strace-binary on the PATH/);
  });

  it('stops a tracer that had already exited (ptrace refused) without hanging, and says it exited early', async () => {
    const t = await startTracer(process.pid, out(), node('process.exit(1)'));
    await new Promise((r) => setTimeout(r, 500));
    const s = await t.stop(2000);
    expect(s.early).toBe(true);
    expect(s.code).toBe(1);
  });

  it('kills a tracer that ignores SIGINT after the grace period instead of waiting forever', async () => {
    const t = await startTracer(process.pid, out(), node("process.on('SIGINT', () => {}); setInterval(() => {}, 1000); process.stdout.write('')"));
    await new Promise((r) => setTimeout(r, 300));
    const started = Date.now();
    const s = await t.stop(300);
    expect(s.early).toBe(false);
    expect(s.signal).toBe('SIGKILL');
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it('reads no summary as not measured (undefined), and the calls of one that has it', () => {
    expect(parseStraceSummary('')).toBeUndefined();
    expect(parseStraceSummary('strace: Process 123 attached\nstrace: Process 123 detached\n')).toBeUndefined();
    const summary = [
      '% time     seconds  usecs/call     calls    errors syscall',
      '------ ----------- ----------- --------- --------- ----------------',
      ' 60.00    0.000600           5       120           epoll_pwait',
      ' 40.00    0.000400           2        80         3 write',
      '------ ----------- ----------- --------- --------- ----------------',
      '100.00    0.001000           5       200         3 total',
    ].join('\n');
    const s = parseStraceSummary(summary)!;
    expect(s.total).toBe(200);
    expect(s.calls('epoll_pwait')).toBe(120);
    expect(s.calls('write')).toBe(80);
    expect(s.calls('sendmsg')).toBe(0);
  });
});
