/**
 * bench/selection-cut.ts refuses a rule outside the library whose value is missing or not a number (exit 2, the
 * flag named), before ranking anything, instead of printing rows of NaN or 0.
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

function sweep(...args: string[]): { code: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, ['--import', 'tsx', 'bench/selection-cut.ts', ...args], { cwd: ROOT, encoding: 'utf8', timeout: 60_000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe('bench/selection-cut.ts --lead / --budget values', () => {
  const bad: [string, string[], RegExp][] = [
    ['--budget with no value', ['--budget'], /--budget needs a value/],
    ['--budget followed by another flag', ['--budget', '--val'], /--budget needs a value/],
    ['a non-numeric --budget', ['--budget', '0.1,wide'], /--budget: "wide" is not a number from 0 to 1/],
    ['a --budget above the whole list', ['--budget', '1.5'], /--budget: "1.5" is not a number from 0 to 1/],
    ['--lead with no value', ['--lead'], /--lead needs a value/],
    ['a non-numeric --lead', ['--lead', 'x'], /--lead: "x" is not a number/],
    ['an empty entry in --lead', ['--lead', '1,'], /--lead: "" is not a number/],
  ];
  it.each(bad)('%s: refused with exit 2 before any ranking', { timeout: 60_000 }, (_name, args, message) => {
    const r = sweep(...args);
    expect(r.stderr).toMatch(message);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
  });
});
