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

// The refusal must govern the key, not a noun the key's name qualifies, nor a clause of its own, nor a bound.
describe('a refusal of something the key\'s name only qualifies', () => {
  const smoothing = async (text: string) => (await map(photoRetouchTemplate, text)).payload['skin_smoothing'];

  it('does not refuse the key when a noun, "than" or a verb follows its name', async () => {
    expect(await smoothing('no skin smoothing issues last time, but please smooth a bit')).not.toBe(0);
    expect(await smoothing('no more skin smoothing than 3')).not.toBe(0);
    expect(await smoothing('no skin smoothing problems, set it to 4')).not.toBe(0);
    expect(await smoothing('I have no skin smoothing preference')).toBeUndefined();
    expect(await smoothing('is there no skin smoothing option? set level 3')).not.toBe(0);
    expect(await smoothing('you forgot: no skin smoothing was applied last time, please add 5')).not.toBe(0);
  });

  it('still refuses before a time word or a request word', async () => {
    expect(await smoothing('no skin smoothing today')).toBe(0);
    expect(await smoothing('no skin smoothing please')).toBe(0);
  });
});
