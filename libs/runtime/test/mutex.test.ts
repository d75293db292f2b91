import { describe, expect, it } from 'vitest';
import { createMutex } from '../src/mutex';

describe('mutex', () => {
  it('runs one unit at a time, in order, and is idle only when none runs or waits (a failed unit too)', async () => {
    const m = createMutex();
    expect(m.idle()).toBe(true);
    const seen: string[] = [];
    let release = () => {};
    const first = m.run(() => new Promise<void>((r) => (release = () => (seen.push('first'), r()))));
    const second = m.run(async () => void seen.push('second'));
    const third = m.run(async () => {
      throw new Error('fails');
    });
    expect(m.idle()).toBe(false);
    await Promise.resolve();
    expect(seen).toEqual([]);
    release();
    await first;
    await second;
    await expect(third).rejects.toThrow('fails');
    expect(seen).toEqual(['first', 'second']);
    expect(m.idle()).toBe(true);
  });

  it('read: at once when idle, after the units in hand otherwise; a throwing read rejects', async () => {
    const m = createMutex();
    let state = 'committed';
    const seen: string[] = [];
    void m.read(() => seen.push(`idle read sees ${state}`));
    expect(seen).toEqual(['idle read sees committed']);
    let commit = () => {};
    const unit = m.run(async () => {
      state = 'in memory, not yet committed';
      await new Promise<void>((r) => (commit = r));
      state = 'committed again';
    });
    await Promise.resolve();
    const reading = m.read(() => state);
    commit();
    await unit;
    expect(await reading).toBe('committed again');
    await expect(
      m.read(() => {
        throw new Error('bad read');
      }),
    ).rejects.toThrow('bad read');
    expect(m.idle()).toBe(true);
  });
});
