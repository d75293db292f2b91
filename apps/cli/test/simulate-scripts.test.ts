/**
 * `parley simulate` (the real bin) on a stream of `other` fragments in six scripts and
 * words that are JS property names (draft-zhou §4.2 multilingual templates, §6.2.1 the
 * pool): no line is set aside, every line joins a cluster, one need in one script
 * shares a cluster and two needs of a script do not.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parley } from './run-cli';

const NEEDS: [string, string[], string[]][] = [
  ['chinese', ['我想要靠窗的座位', '请给我靠窗座位', '靠窗的座位'], ['我想要素食餐', '请给我素食餐', '素食餐']],
  ['japanese', ['窓側の席をお願いします', '窓側の席がいい', '窓側の席'], ['ベジタリアンの食事をお願いします', 'ベジタリアンの食事がいい', 'ベジタリアンの食事']],
  ['russian', ['место у окна', 'хочу место у окна', 'место у окна пожалуйста'], ['вегетарианское питание', 'хочу вегетарианское питание', 'нужно вегетарианское питание']],
  ['arabic', ['مقعد بجانب النافذة', 'أريد مقعد بجانب النافذة', 'مقعد بجانب النافذة من فضلك'], ['وجبة نباتية', 'أريد وجبة نباتية', 'وجبة نباتية من فضلك']],
  ['korean', ['창가 좌석', '창가 좌석을 원해요', '창가 좌석 주세요'], ['채식 식사', '채식 식사를 원해요', '채식 식사 주세요']],
];
const T0 = Date.UTC(2026, 0, 5, 8);

describe('parley simulate on fragments in other scripts', () => {
  it('sets no line aside and clusters each need of each script on its own', { timeout: 120_000 }, async () => {
    const lines: { text: string; need: string }[] = [];
    for (let w = 0; w < 3; w++) {
      for (const [script, a, b] of NEEDS) lines.push({ text: a[w]!, need: `${script}/seat` }, { text: b[w]!, need: `${script}/meal` });
    }
    for (const t of ['constructor', '__proto__ toString', 'hasOwnProperty valueOf seat']) lines.push({ text: t, need: 'hostile' });
    lines.push({ text: 'extra legroom', need: 'ordinary' });
    const dir = mkdtempSync(join(tmpdir(), 'parley-simulate-scripts-'));
    const input = join(dir, 'stream.jsonl');
    writeFileSync(input, lines.map((l, i) => JSON.stringify({ ts: T0 + i * 60_000, scenario: 'flight_booking', client_id: `c${i % 3}`, text: l.text })).join('\n') + '\n');
    const assignments = join(dir, 'assignments.txt');
    const res = await parley('simulate', '--input', input, '--json', '--assignments', assignments);
    expect(res.stderr).not.toMatch(/set aside/i);
    expect(res.code, res.stderr).toBe(0);
    const assigned = readFileSync(assignments, 'utf8').trimEnd().split('\n');
    expect(assigned).toHaveLength(lines.length);
    expect(assigned.filter((a) => a === '-')).toEqual([]);
    const summary = JSON.parse(readFileSync(`${assignments}.summary.json`, 'utf8')) as { set_aside?: unknown[] | number };
    expect(Array.isArray(summary.set_aside) ? summary.set_aside.length : (summary.set_aside ?? 0)).toBe(0);
    const clustersOf = (need: string) => new Set(lines.flatMap((l, i) => (l.need === need ? [assigned[i]] : [])));
    for (const [script] of NEEDS) {
      const seat = clustersOf(`${script}/seat`);
      const meal = clustersOf(`${script}/meal`);
      expect(seat.size, `${script} seat: ${[...seat].join(', ')}`).toBe(1);
      expect(meal.size, `${script} meal: ${[...meal].join(', ')}`).toBe(1);
      expect([...seat][0]).not.toBe([...meal][0]);
    }
  });
});
