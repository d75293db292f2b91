import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

// The function-length rule (scripts/check-function-length.mjs): no function, arrow
// function or method in apps/*/src and libs/*/src longer than 150 lines, except
// those named in scripts/function-length-allowlist.txt. Run with the unit tests so
// that adding a long function fails CI.
const root = join(import.meta.dirname, '..', '..');
const script = join(root, 'scripts', 'check-function-length.mjs');

/** longFunctions(file) of the script, run in its own node process (it is plain ESM JavaScript). */
function longFunctionsOf(file: string): { key: string; lines: number }[] {
  const code = `import { longFunctions } from ${JSON.stringify(script)}; console.log(JSON.stringify(longFunctions(process.argv[1])));`;
  return JSON.parse(execFileSync(process.execPath, ['--input-type=module', '-e', code, file], { encoding: 'utf8' })) as { key: string; lines: number }[];
}

describe('function length', () => {
  it('no function outside the allowlist is over 150 lines in apps/*/src and libs/*/src', () => {
    const r = spawnSync(process.execPath, [script], { cwd: root, encoding: 'utf8' });
    expect(r.stderr, r.stdout).toBe('');
    expect(r.status).toBe(0);
  });

  it('the checker counts first to last line, names functions, arrows and methods, and lets 150 lines pass', () => {
    const dir = mkdtempSync(join(tmpdir(), 'fnlen-'));
    const file = join(dir, 'sample.ts');
    const body = (n: number) => Array.from({ length: n - 2 }, (_, i) => `  const v${i} = ${i};`).join('\n');
    writeFileSync(
      file,
      [
        `export function ok() {\n${body(150)}\n}`,
        `export function tooLong() {\n${body(151)}\n}`,
        `export const arrow = () => {\n${body(151)}\n};`,
        `class Box {\n  method() {\n${body(151)}\n  }\n}`,
        `export function outer() {\n  return () => {\n${body(151)}\n  };\n}`,
      ].join('\n'),
    );
    const found = longFunctionsOf(file).map((f) => [f.key.replace(/^.*#/, ''), f.lines]);
    expect(found).toEqual([
      ['tooLong', 151],
      ['arrow', 151],
      ['Box.method', 151],
      ['outer', 153],
      ['outer>anonymous@1', 151],
    ]);
  });
});
