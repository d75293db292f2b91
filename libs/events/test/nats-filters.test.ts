import { describe, expect, it } from 'vitest';
import { filterCovers, subjectMatches } from '../src/match';
import { coverOf, planFilters } from '../src/nats-consumers';

// A server before 2.10 takes one filter per consumer: several filters go as one subject covering them all, the
// bus acks the rest (nats-consume.ts). The cover must let through every subject any filter matches.

describe('the one filter a NATS 2.9 server gets for several', () => {
  it('keeps the tokens the filters share and widens the rest', () => {
    expect(coverOf(['p.v1.*.pool.matured', 'p.v1.*.pool.grown'])).toBe('p.v1.*.pool.*');
    expect(coverOf(['p.v1.a.other.captured', 'p.v1.b.other.captured'])).toBe('p.v1.*.other.captured');
    expect(coverOf(['p.v1.*.patch.published', 'p.v1.*.key.promoted'])).toBe('p.v1.*.*.*');
    expect(coverOf(['p.v1.a.task.status', 'p.v1.x.y'])).toBe('p.v1.>');
    expect(coverOf(['a.b', 'a.b.c'])).toBe('a.>');
    expect(coverOf(['a.>', 'a.b.c'])).toBe('a.>');
    expect(coverOf(['a.b', 'c.d'])).toBeUndefined();
    expect(coverOf(['a', 'a.b'])).toBeUndefined();
  });

  it('plans the cover for the server and the filters for the client when the server lacks filter_subjects', () => {
    const filters = ['p.v1.*.pool.matured', 'p.v1.*.pool.grown'];
    expect(planFilters({ multiFilter: false }, filters)).toEqual({ server: { filter_subject: 'p.v1.*.pool.*', filter_subjects: undefined }, client: filters });
    expect(planFilters({ multiFilter: true }, filters)).toEqual({ server: { filter_subject: undefined, filter_subjects: filters } });
    expect(planFilters({ multiFilter: false }, ['a.b', 'c.d'])).toEqual({ server: { filter_subject: undefined, filter_subjects: undefined }, client: ['a.b', 'c.d'] });
  });

  it('lets through every subject a filter matches (random filters and subjects)', () => {
    const toks = ['a', 'b', 'c', '*', '>'];
    let seed = 7;
    const rnd = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed % n;
    };
    const filter = () => {
      const len = 1 + rnd(4);
      return Array.from({ length: len }, (_, i) => {
        const t = toks[rnd(toks.length)] as string;
        return t === '>' && i < len - 1 ? '*' : t;
      }).join('.');
    };
    const subject = () => Array.from({ length: 1 + rnd(5) }, () => ['a', 'b', 'c', 'd'][rnd(4)]).join('.');
    let checked = 0;
    for (let n = 0; n < 2000; n++) {
      const filters = Array.from({ length: 2 + rnd(3) }, filter);
      const cover = coverOf(filters);
      for (let k = 0; k < 20; k++) {
        const s = subject();
        if (!filters.some((f) => subjectMatches(f, s))) continue;
        checked++;
        if (cover !== undefined) expect(subjectMatches(cover, s), `${filters.join(' ')} → ${cover} on ${s}`).toBe(true);
      }
    }
    expect(checked).toBeGreaterThan(1000);
  });

  it('says a filter covers another only when it matches every subject the other does (random pairs)', () => {
    expect(filterCovers('p.v1.*.pool.*', 'p.v1.*.pool.matured')).toBe(true);
    expect(filterCovers('p.v1.>', 'p.v1.a.task.status')).toBe(true);
    expect(filterCovers('a.*', 'a.>')).toBe(false);
    expect(filterCovers('a.b', 'a.*')).toBe(false);
    expect(filterCovers('a.>', 'a')).toBe(false);
    let seed = 11;
    const rnd = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed % n;
    };
    const toks = ['a', 'b', '*', '>'];
    const filter = () => {
      const len = 1 + rnd(3);
      return Array.from({ length: len }, (_, i) => {
        const t = toks[rnd(toks.length)] as string;
        return t === '>' && i < len - 1 ? '*' : t;
      }).join('.');
    };
    const subjects: string[] = [];
    for (let len = 1; len <= 4; len++) {
      const build = (prefix: string[]): void => {
        if (prefix.length === len) subjects.push(prefix.join('.'));
        else for (const t of ['a', 'b', 'c']) build([...prefix, t]);
      };
      build([]);
    }
    let covered = 0;
    for (let n = 0; n < 3000; n++) {
      const outer = filter();
      const inner = filter();
      // Over every subject of up to four tokens from a, b, c: covering means no subject matched by inner alone.
      const truth = subjects.every((s) => !subjectMatches(inner, s) || subjectMatches(outer, s));
      expect(filterCovers(outer, inner), `${outer} ⊇ ${inner}`).toBe(truth);
      if (truth) covered++;
    }
    expect(covered).toBeGreaterThan(100);
  });
});
