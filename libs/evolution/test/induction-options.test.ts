/** Induction options (draft-zhou §6.2.2): values the rules cannot work with throw a typed error naming the option. */
import { describe, expect, it } from 'vitest';
import { ParleyError } from '@parley/protocol';
import { DEFAULT_INDUCTION_OPTIONS, induceKey, type InductionOptions, type InductionSample } from '@parley/evolution';

const thai: InductionSample[] = [{ text: 'ขอที่นั่งริมหน้าต่าง', count: 3, clients: ['a', 'b', 'c'] }, { text: 'อยากได้ที่นั่งติดกระจก', count: 3, clients: ['d', 'e', 'f'] }];

describe('unshared_max_clients', () => {
  it('is an integer >= 2: 0, -1, NaN, Infinity, 1e308, a string or nothing throw, naming the option and the rule', () => {
    for (const v of [0, -1, 1, 2.5, Number.NaN, Number.POSITIVE_INFINITY, 1e308, '3', undefined]) {
      const options = { ...DEFAULT_INDUCTION_OPTIONS, unshared_max_clients: v } as unknown as InductionOptions;
      let err: unknown = null;
      try {
        induceKey(thai, options);
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(ParleyError);
      expect(err).toMatchObject({ path: 'options.unshared_max_clients', rule: 'config' });
    }
  });
  it('counts distinct clients, not how often one client said it', () => {
    const options = { ...DEFAULT_INDUCTION_OPTIONS, unshared_max_clients: 4 };
    // Two clients saying their texts 30 times: two clients, still refused.
    const loud: InductionSample[] = [{ text: 'ขอใบเสร็จรับเงิน', count: 30, clients: ['a'] }, { text: 'ต้องการรถเข็นวีลแชร์', count: 30, clients: ['b'] }];
    expect(induceKey(loud, options).ok).toBe(false);
    const many: InductionSample[] = [{ text: 'ขอใบเสร็จรับเงิน', count: 3, clients: ['a', 'b', 'c'] }, { text: 'ต้องการรถเข็นวีลแชร์', count: 2, clients: ['d', 'e'] }];
    expect(induceKey(many, options).ok).toBe(true);
    // Unlabelled samples: each sample is one voice, however large its count.
    const unlabelled: InductionSample[] = [{ text: 'ขอใบเสร็จรับเงิน', count: 30 }, { text: 'ต้องการรถเข็นวีลแชร์', count: 30 }];
    expect(induceKey(unlabelled, options).ok).toBe(false);
  });
});

describe('frame_choices', () => {
  it('a value that is no boolean is a typed config error naming the key path', () => {
    for (const v of [1, 'true', null, {}]) {
      const options = { ...DEFAULT_INDUCTION_OPTIONS, frame_choices: v } as unknown as InductionOptions;
      let err: unknown;
      try {
        induceKey([{ text: 'a business trip', count: 2 }], options);
      } catch (e) {
        err = e;
      }
      expect(err).toMatchObject({ path: 'options.frame_choices', rule: 'config' });
    }
  });
  it('is off by default', () => {
    expect(DEFAULT_INDUCTION_OPTIONS.frame_choices).toBe(false);
  });
});
