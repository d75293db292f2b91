// What the benches read from /proc: a process's CPU time and the machine's processes by name (Linux only).
import { readdirSync, readFileSync } from 'node:fs';

/** CPU seconds (user + system) a process has used, from /proc/PID/stat; 0 when it is gone or not given. */
export function cpuSeconds(pid: number | undefined): number {
  if (!pid) return 0;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(f[11]) + Number(f[12])) / 100; // utime, stime in USER_HZ ticks (100 on Linux)
  } catch {
    return 0;
  }
}

/** The PIDs of the machine's processes whose command name `matches` (shared with anything else running). */
export function pidsByName(matches: (comm: string) => boolean): number[] {
  const out: number[] = [];
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      if (matches(readFileSync(`/proc/${d}/comm`, 'utf8').trim())) out.push(Number(d));
    } catch {
      // gone
    }
  }
  return out;
}
