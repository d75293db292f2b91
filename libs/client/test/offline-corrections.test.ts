import { faultManagementTemplate, flightBookingTemplate } from '@parley/examples';
import { describe, expect, it } from 'vitest';
import { repairSpans } from '../src/offline/corrections';
import { tokenize } from '../src/offline/text';
import { map } from './offline-fixture';

// Self-corrections (draft-zhou §6.1: the payload holds what the user asked for): a value repaired later in the same
// utterance gives way to the repair, and a bare number after a repair takes the key of the number it corrects.
// Sentences of our own, not the bench's.
describe('self-corrections', () => {
  it('sends the value said after a repair word, and keeps the repaired one out of the payload', async () => {
    const m = await map(flightBookingTemplate, 'book economy from Paris to Rome, no wait, make it business');
    expect(m.payload['cabin_class']).toBe('business');
    expect(m.payload['other']).toContain('economy');
    expect((await map(flightBookingTemplate, 'Paris to Rome in first class, sorry, I meant premium economy')).payload['cabin_class']).toBe('premium_economy');
    expect((await map(faultManagementTemplate, 'INC-1 site 4 down, severity minor, no, critical')).payload['severity']).toBe('critical');
  });

  it('carries a bare number after a repair to the count it corrects', async () => {
    expect((await map(flightBookingTemplate, 'two seats Paris to Rome tomorrow, actually make that three')).payload['passenger_count']).toBe(3);
    expect((await map(flightBookingTemplate, 'Paris to Rome for 4 people, or rather 5')).payload['passenger_count']).toBe(5);
  });

  it('reads no repair in a comparison or a plain "no"', async () => {
    expect((await map(flightBookingTemplate, 'economy instead of business, Paris to Rome')).payload['cabin_class']).toBe('economy');
    expect((await map(flightBookingTemplate, 'business rather than economy, Paris to Rome, actually on Friday')).payload['cabin_class']).not.toBe('economy');
    expect((await map(flightBookingTemplate, 'Paris to Rome, rather than first I want premium economy')).payload['cabin_class']).toBe('premium_economy');
    expect(repairSpans(tokenize('no filter on the sky, and a vintage style'))).toEqual([]);
    expect(repairSpans(tokenize('a warm look, no, a cool one'))).toEqual([[4, 6]]);
  });

  it('leaves a number after a repair alone when it is out of the key\'s range', async () => {
    expect((await map(flightBookingTemplate, 'two seats Paris to Rome tomorrow, actually make that thirty')).payload['passenger_count']).toBe(2);
  });
});
