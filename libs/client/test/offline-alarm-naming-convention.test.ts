import { faultManagementTemplate } from '@parley/examples';
import type { SchemaTemplate } from '@parley/protocol';
import { describe, expect, it } from 'vitest';
import { map } from './offline-fixture';

// A name made of the user's words is sent for a snake_case key only when it follows the template's naming convention
// (draft-zhou §6.1: what maps with low confidence goes to `other`): the fault template's example names say the thing
// and its state (link_down, optical_power_low), never an opening inflected verb nor an -ing form. Sentences of our
// own, not the bench's.
describe('an alarm name off the template\'s naming convention', () => {
  it('is not invented: the phrase goes to `other`, the key suggested under the threshold', async () => {
    for (const [text, words] of [
      ['INC-20261127-0001 switch SW-4 lost cooling at 10:40, warning', 'lost cooling'],
      ['INC-20261127-0001 switch SW-4 dropping frames since 10:40, warning', 'dropping frames'],
      ['INC-20261127-0001 the radio of site 4410 keeps crashing since 10:40', 'keeps crashing'],
    ] as const) {
      const m = await map(faultManagementTemplate, text);
      expect(m.payload['alarm_type'], text).toBeUndefined();
      expect(m.below_threshold.some((b) => b.key === 'alarm_type' && b.confidence < 0.5), text).toBe(true);
      expect(m.other.join(' | '), text).toContain(words);
    }
  });

  it('still maps a name that follows it, and a template value said by its words', async () => {
    // A gerund WordNet lists as a noun names a thing: "cooling failure" is no act of the user's.
    expect((await map(faultManagementTemplate, 'INC-20261127-0001 cooling failure on switch SW-4 at 10:40, warning')).payload['alarm_type']).toBe('cooling_failure');
    expect((await map(faultManagementTemplate, 'INC-20261127-0001 building fire alarm at site 4410 at 10:40, critical')).payload['alarm_type']).toBe('building_fire');
    expect((await map(faultManagementTemplate, 'INC-20261127-0001 high humidity alarm on switch SW-4 at 10:40, warning')).payload['alarm_type']).toBe('high_humidity');
    expect((await map(faultManagementTemplate, 'INC-20261127-0001 fan failure on switch SW-4 at 10:40, warning')).payload['alarm_type']).toBe('fan_failure');
    expect((await map(faultManagementTemplate, 'INC-20261127-0001 backhaul link of site 4410 went down at 10:40')).payload['alarm_type']).toBe('link_down');
  });

  it('follows the template: examples that open with a verb or say an -ing form allow such names', async () => {
    const template: SchemaTemplate = {
      ...faultManagementTemplate,
      keys: faultManagementTemplate.keys.map((k) =>
        k.key_name === 'alarm_type'
          ? { ...k, semantic_description: "Type of the alarm, in snake_case. Example mapping: 'the router lost power' -> 'lost_power'; 'the link keeps dropping packets' -> 'link_dropping_packets'; 'the line is down' -> 'link_down'." }
          : k,
      ),
    };
    expect((await map(template, 'INC-20261127-0001 switch SW-4 lost cooling at 10:40, warning')).payload['alarm_type']).toBe('lost_cooling');
    expect((await map(template, 'INC-20261127-0001 switch SW-4 dropping frames since 10:40, warning')).payload['alarm_type']).toBe('dropping_frames');
  });
});
