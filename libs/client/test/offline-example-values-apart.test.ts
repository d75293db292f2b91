import { faultManagementTemplate } from '@parley/examples';
import type { SchemaTemplate } from '@parley/protocol';
import { describe, expect, it } from 'vitest';
import { map } from './offline-fixture';

// A snake_case example value of the template said by its own words apart, with other words and identifiers between
// (draft-zhou §6.1: the template's example values are the names it expects). Sentences of our own, not the bench's.
describe('an example value said by its words apart', () => {
  const alarm = async (text: string) => (await map(faultManagementTemplate, text)).payload['alarm_type'];

  it('names the example value when every word of it is said, in order, in one clause', async () => {
    expect(await alarm('the radio link HUB-9<->SITE-4 went down at 07:20')).toBe('link_down');
    expect(await alarm('optical power at the hub near node 17 fell too low at 05:00')).toBe('optical_power_low');
    expect(await alarm('the base stations 301 and 302 went out of service this morning')).toBe('base_station_out_of_service');
  });

  it('does not fire when a word of the value is missing, negated, in another clause, too far, or qualifies a noun', async () => {
    // No "link": what went down is a router, not a link.
    expect(await alarm('router PE-9 went down at 07:20')).not.toBe('link_down');
    // Negated between the words.
    expect(await alarm('the radio link HUB-9<->SITE-4 never went down last night')).not.toBe('link_down');
    expect(await alarm('the radio link to site 12 did not go down, it only flaps')).not.toBe('link_down');
    // The state belongs to another clause (a joiner or a comma between).
    expect(await alarm('optical power at node 17 is fine but the latency there is low')).not.toBe('optical_power_low');
    expect(await alarm('the radio link at site 4 flaps, and the temperature went down')).not.toBe('link_down');
    // The gap is bounded by the clause, not by a count of words: a long subject is still one clause.
    expect(await alarm('the link from the hub in the north of the old city near the big lake is a little down')).toBe('link_down');
    expect(await alarm('the link from the hub in the north of the old city is fine as the big lake is a little down')).not.toBe('link_down');
    // The last word qualifies the noun after it: the arrows are down, not the link.
    expect(await alarm('the link checker at depot 12 room 4 bay 7 shows down arrows')).not.toBe('link_down');
    // Identifiers and numbers between the words do not count against the gap.
    expect(await alarm('the link at depot 12 room 4 bay 7 went down')).toBe('link_down');
  });

  it('reads the template\'s own snake_case example values, whatever the domain', async () => {
    const template: SchemaTemplate = {
      schema_id: 'apart_v1',
      scenario: 'apart',
      keys: [
        {
          key_name: 'issue',
          key_type: 'string',
          required: true,
          semantic_description: "What went wrong, in snake_case. Example mapping: 'the pump stopped' -> 'pump_stopped'; 'the valve is leaking' -> 'valve_leaking'.",
        },
      ],
    };
    const issue = async (text: string) => (await map(template, text)).payload['issue'];
    expect(await issue('the pump beside tank 4 in hall 3 stopped at noon')).toBe('pump_stopped');
    expect(await issue('the valve of tank 4 in hall 3 has been leaking since noon')).toBe('valve_leaking');
    // Not the fault template's values, and not a state of another clause.
    expect(await issue('the link in hall 3 went down')).toBeUndefined();
    expect(await issue('the pump in hall 3 is fine but the fan stopped')).not.toBe('pump_stopped');
  });
});

// The clause bounds the gap: a subordinator, "so" or a negation ends it; a preposition before a determiner is no state.
describe('an example value said apart across a clause boundary', () => {
  const alarm = async (text: string) => (await map(faultManagementTemplate, text)).payload['alarm_type'];

  it('does not fire across a subordinator or "so"', async () => {
    expect(await alarm('optical power at site 4 is fine since loss is low')).not.toBe('optical_power_low');
    expect(await alarm('optical power at node 4 stayed fine when the load was low')).not.toBe('optical_power_low');
    expect(await alarm('the optical power is fine now so the error rate is low')).not.toBe('optical_power_low');
    expect(await alarm('optical power at node 4 stays fine unless the load is low')).not.toBe('optical_power_low');
  });

  it('does not fire on a preposition before a determiner', async () => {
    expect(await alarm('the link ticket for site 4 was closed down the road')).not.toBe('link_down');
    expect(await alarm('the link at site 4 went down this morning')).toBe('link_down');
  });
});
