/**
 * The rule map of ARCHITECTURE.md ("Where each rule of the draft lives") cannot drift silently: every path it names
 * (in backticks, written from the repository root) must exist, every row must name the code that holds its rule or
 * say "not implemented", and the test files that check it or say "no test". A path without a directory (`payload.ts`)
 * is refused, since it cannot be checked.
 */
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const SECTION = '## Where each rule of the draft lives';

export interface RuleRow {
  /** 1-based line in the document. */
  line: number;
  /** The `### ` heading the row's table sits under. */
  group: string;
  section: string;
  rule: string;
  code: string;
  tests: string;
}

/** The rows of every table in the rule-map section, by sub-heading; throws when the section is missing. */
export function parseRuleMap(markdown: string): RuleRow[] {
  const lines = markdown.split('\n');
  const start = lines.findIndex((l) => l.trim() === SECTION);
  if (start < 0) throw new Error(`no "${SECTION}" section`);
  const rows: RuleRow[] = [];
  let group = '';
  let header = true;
  for (let i = start + 1; i < lines.length; i++) {
    const l = (lines[i] ?? '').trim();
    if (l.startsWith('## ')) break;
    if (l.startsWith('### ')) {
      group = l.slice(4);
      header = true;
      continue;
    }
    if (!l.startsWith('|')) {
      header = true;
      continue;
    }
    if (header) {
      // The first row of a table is its header; the next its separator.
      header = false;
      continue;
    }
    if (/^\|[\s|:-]+\|$/.test(l)) continue;
    const cells = l.slice(1, l.endsWith('|') ? -1 : undefined).split('|').map((c) => c.trim());
    if (cells.length !== 4) throw new Error(`line ${i + 1}: ${cells.length} cells, expected 4 (draft §, rule, code, tests)`);
    const [section, rule, code, tests] = cells as [string, string, string, string];
    rows.push({ line: i + 1, group, section, rule, code, tests });
  }
  return rows;
}

/** Backticked tokens of a cell. */
export function ticked(cell: string): string[] {
  return [...cell.matchAll(/`([^`]+)`/g)].map((m) => m[1] ?? '');
}

const FILE_LIKE = /\.(ts|tsx|mjs|js|sql|json|yang|yaml|md|proto)$/;

/** What is wrong with one row, as messages naming its line; `exists` is asked for each path. */
export function rowProblems(row: RuleRow, exists: (path: string) => boolean): string[] {
  const at = `ARCHITECTURE.md:${row.line} (${row.section} ${row.rule.slice(0, 50)})`;
  const problems: string[] = [];
  if (!/§|App\.|Appendix/.test(row.section)) problems.push(`${at}: the first column must cite a draft section`);
  if (row.rule === '') problems.push(`${at}: the rule is empty`);
  for (const [cell, name] of [
    [row.section, 'draft §'],
    [row.rule, 'rule'],
    [row.code, 'code'],
    [row.tests, 'tests'],
  ] as const) {
    for (const t of ticked(cell)) {
      if (t.includes('/')) {
        if (!exists(t)) problems.push(`${at}: ${name} names \`${t}\`, which does not exist`);
      } else if (FILE_LIKE.test(t)) {
        problems.push(`${at}: ${name} names \`${t}\` without its directory; write the path from the repository root`);
      }
    }
  }
  const codePaths = ticked(row.code).filter((t) => t.includes('/'));
  if (codePaths.length === 0 && !/not implemented/i.test(row.code)) problems.push(`${at}: code names no file and does not say "not implemented"`);
  const testPaths = ticked(row.tests).filter((t) => t.includes('/'));
  for (const t of testPaths) {
    if (!/\.test\.ts$/.test(t)) problems.push(`${at}: tests names \`${t}\`, which is not a test file (*.test.ts)`);
  }
  if (testPaths.length === 0 && !/no test/i.test(row.tests)) problems.push(`${at}: tests names no test file and does not say "no test"`);
  return problems;
}

const doc = readFileSync(join(ROOT, 'ARCHITECTURE.md'), 'utf8');
const onDisk = (p: string) => existsSync(join(ROOT, p));

describe('the rule map in ARCHITECTURE.md', () => {
  const rows = parseRuleMap(doc);

  it('has a table per draft, each with its rules', () => {
    const count = (re: RegExp) => rows.filter((r) => re.test(r.group)).length;
    expect(count(/draft-zhou/)).toBeGreaterThanOrEqual(40);
    expect(count(/draft-chang|ADOL/)).toBeGreaterThanOrEqual(6);
    expect(count(/autonomous/i)).toBeGreaterThanOrEqual(12);
    expect(rows.every((r) => r.group !== '')).toBe(true);
  });

  it('covers every step of draft-zhou §6.2 and every section §3–§7', () => {
    const cited = rows.filter((r) => /draft-zhou/.test(r.group)).map((r) => r.section).join(' ');
    for (const s of ['§3.1', '§3.2', '§4.1', '§4.2', '§4.3', '§6.1', '§6.2.1', '§6.2.2', '§6.2.3', '§7']) expect(cited).toContain(s);
  });

  it('names only paths that exist; every row names its code and tests or says what is missing', () => {
    expect(rows.flatMap((r) => rowProblems(r, onDisk))).toEqual([]);
  });
});

describe('the checks themselves (so a drifted map cannot pass)', () => {
  const row = (code: string, tests: string): RuleRow => ({ line: 1, group: 'g', section: '§4.1', rule: 'a rule', code, tests });
  const exists = (p: string) => p === 'libs/protocol/src/template.ts' || p === 'libs/protocol/test/template.test.ts';

  it('accepts a row whose paths exist', () => {
    expect(rowProblems(row('`libs/protocol/src/template.ts`', '`libs/protocol/test/template.test.ts`'), exists)).toEqual([]);
  });

  it('reports a path that does not exist, in any column', () => {
    expect(rowProblems(row('`libs/protocol/src/gone.ts`', '`libs/protocol/test/template.test.ts`'), exists)).toEqual([
      expect.stringContaining('`libs/protocol/src/gone.ts`, which does not exist'),
    ]);
    expect(rowProblems({ ...row('`libs/protocol/src/template.ts`', 'no test'), rule: 'see `libs/x/y.ts`' }, exists)).toHaveLength(1);
  });

  it('reports a bare file name, a row without code or tests, and a test column naming a non-test file', () => {
    expect(rowProblems(row('`template.ts`', 'no test'), exists).join('\n')).toMatch(/without its directory[\s\S]*names no file/);
    expect(rowProblems(row('somewhere', 'no test'), exists)).toEqual([expect.stringContaining('does not say "not implemented"')]);
    expect(rowProblems(row('not implemented', 'nothing'), exists)).toEqual([expect.stringContaining('does not say "no test"')]);
    expect(rowProblems(row('`libs/protocol/src/template.ts`', '`libs/protocol/src/template.ts`'), exists)).toEqual([
      expect.stringContaining('not a test file'),
    ]);
  });

  it('parses tables under their sub-headings, skipping headers and separators, and stops at the next section', () => {
    const md = [SECTION, '', '### draft-zhou', '', '| draft § | rule | code | tests |', '|---|---|---|---|', '| §4.1 | r | `a/b.ts` | no test |', '', '## Next', '| §9 | x | y | z |'].join('\n');
    expect(parseRuleMap(md)).toEqual([{ line: 7, group: 'draft-zhou', section: '§4.1', rule: 'r', code: '`a/b.ts`', tests: 'no test' }]);
    expect(() => parseRuleMap('# nothing here')).toThrow(/no "## Where each rule/);
    expect(() => parseRuleMap([SECTION, '| a | b | c | d |', '|---|---|---|---|', '| §1 | two |'].join('\n'))).toThrow(/2 cells/);
  });
});
