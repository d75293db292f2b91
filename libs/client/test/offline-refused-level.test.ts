import { photoRetouchTemplate } from '@parley/examples';
import type { SchemaTemplate } from '@parley/protocol';
import { describe, expect, it } from 'vitest';
import { map } from './offline-fixture';

// A number key named and refused takes the value its description says means off (draft-zhou §6.1: "Range: 0-10, where
// 0 means off"). Sentences of our own, not the bench's.
describe('a refused number key takes its off value', () => {
  const smoothing = async (text: string) => (await map(photoRetouchTemplate, text)).payload['skin_smoothing'];

  it('reads "no", "without", "skip" before the name and "off" after it', async () => {
    expect(await smoothing('warm filter, no skin smoothing, blur the background')).toBe(0);
    expect(await smoothing('without skin smoothing this time')).toBe(0);
    expect(await smoothing('skip skin smoothing')).toBe(0);
    expect(await smoothing('skin smoothing: off')).toBe(0);
  });

  it('does not fire on a negation negated, a verb negated, a negation of something else, or without an off value', async () => {
    expect(await smoothing("don't skip skin smoothing")).not.toBe(0);
    expect(await smoothing('not too much skin smoothing')).not.toBe(0);
    expect(await smoothing('no wrinkles, skin smoothing 6')).toBe(6);
    expect(await smoothing('no more than 5 skin smoothing')).toBe(5);
    const template: SchemaTemplate = {
      schema_id: 'level_v1',
      scenario: 'level',
      keys: [{ key_name: 'fan_speed', key_type: 'integer', required: false, minimum: 1, maximum: 5, semantic_description: 'Fan speed, 1-5.' }],
    };
    expect((await map(template, 'no fan speed please')).payload['fan_speed']).toBeUndefined();
  });
});
