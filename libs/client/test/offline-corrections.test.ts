import { faultManagementTemplate, flightBookingTemplate, photoRetouchTemplate } from '@parley/examples';
import { describe, expect, it } from 'vitest';
import { repairSpans } from '../src/offline/corrections';
import { tokenize } from '../src/offline/text';
import { map } from './offline-fixture';

// Self-corrections (draft-zhou §6.1: the payload holds what the user asked for): a value repaired later in the same
// utterance gives way to the repair, and a bare number after a repair takes the key of the number it corrects.
// Sentences written for these tests (none taken from a dev or validation set).
describe('self-corrections', () => {
  it('sends the value said after a repair word, and keeps the repaired one out of the payload', async () => {
    const m = await map(flightBookingTemplate, 'Lyon to Oslo in economy, hmm, no wait, make it business');
    expect(m.payload['cabin_class']).toBe('business');
    expect(m.payload['other']).toContain('economy');
    expect((await map(flightBookingTemplate, 'Nice to Porto in first class, sorry, I meant premium economy')).payload['cabin_class']).toBe('premium_economy');
    expect((await map(faultManagementTemplate, 'INC-31 site 8 unreachable, severity major, no, minor')).payload['severity']).toBe('minor');
  });

  it('carries a bare number that ends its clause after a repair to the count it corrects', async () => {
    expect((await map(flightBookingTemplate, 'two tickets Nice to Porto on Monday, hmm, make it four')).payload['passenger_count']).toBe(4);
    expect((await map(flightBookingTemplate, 'Nice to Porto for 4 people, or rather 5')).payload['passenger_count']).toBe(5);
  });

  it('does not carry a number that counts another thing after a repair', async () => {
    expect((await map(flightBookingTemplate, 'three of us to Rome tomorrow, we actually have 2 bags')).payload['passenger_count']).toBe(3);
    expect((await map(flightBookingTemplate, 'three of us to Rome tomorrow, actually 2 bags')).payload['passenger_count']).toBe(3);
    expect((await map(faultManagementTemplate, 'INC-4 severity minor, 40 complaints, actually 3 sites down')).payload['user_complaint_count']).toBe(40);
    expect((await map(faultManagementTemplate, 'INC-4 40 complaints, wait, 3 of them from site 9')).payload['user_complaint_count']).toBe(40);
    expect((await map(photoRetouchTemplate, 'skin smoothing 3, sorry, 2 faces in the shot')).payload['skin_smoothing']).toBe(3);
  });

  it('does not let a weak later value, a modifier or a question replace the earlier value', async () => {
    expect((await map(flightBookingTemplate, 'Paris to Rome, economy please, sorry, first time doing this')).payload['cabin_class']).toBe('economy');
    expect((await map(flightBookingTemplate, 'Paris to Rome economy, wait, is first cheaper?')).payload['cabin_class']).toBe('economy');
    expect((await map(flightBookingTemplate, 'Paris to Rome economy, actually first I need to ask my boss')).payload['cabin_class']).toBe('economy');
    expect((await map(flightBookingTemplate, 'Paris to Rome tomorrow, economy, no, first I need to check the price')).payload['cabin_class']).toBe('economy');
  });

  it('reads a trailing "instead" as a repair towards the value before it', async () => {
    expect((await map(flightBookingTemplate, 'Paris to Rome in economy, let\'s do business instead')).payload['cabin_class']).toBe('business');
  });

  it('refuses the value after "instead of" / "rather than" in favour of its rival', async () => {
    expect((await map(flightBookingTemplate, 'Paris to Rome, instead of economy, business')).payload['cabin_class']).toBe('business');
    expect((await map(flightBookingTemplate, 'premium economy rather than business, Nice to Porto, actually on Monday')).payload['cabin_class']).toBe('premium_economy');
  });

  it('reads no repair in a comparison or a plain "no"', () => {
    expect(repairSpans(tokenize('no filter on the sky, and a vintage style'))).toEqual([]);
    expect(repairSpans(tokenize('a warm look, no, a cool one'))).toEqual([[4, 6]]);
    expect(repairSpans(tokenize('economy instead of business'))).toEqual([]);
  });

  it('leaves a number after a repair alone when it is out of the key\'s range', async () => {
    expect((await map(flightBookingTemplate, 'two tickets Nice to Porto on Monday, hmm, make it forty')).payload['passenger_count']).toBe(2);
  });
});
