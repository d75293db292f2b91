import { flightBookingTemplate } from '@parley/examples';
import { describe, expect, it } from 'vitest';
import { map } from './offline-fixture';

// A multi-word enum value said with one word clipped (draft-zhou §6.1: the template's enum values). Sentences of our
// own, not the bench's.
describe('a clipped word of a multi-word enum value', () => {
  const cabin = async (text: string) => (await map(flightBookingTemplate, text)).payload['cabin_class'];

  it('says the value beside its other words said whole', async () => {
    expect(await cabin('premium econ seat from Paris to Rome on Friday')).toBe('premium_economy');
    expect(await cabin('Paris to Rome on Friday, premium eco')).toBe('premium_economy');
  });

  it('does not fire alone, on a hyphenated word, on two letters, or negated', async () => {
    expect(await cabin('eco seats from Paris to Rome on Friday')).toBeUndefined();
    expect(await cabin('premium eco-friendly seats from Paris to Rome on Friday')).toBeUndefined();
    expect(await cabin('premium ec from Paris to Rome on Friday')).toBeUndefined();
    expect(await cabin('Paris to Rome on Friday, no premium eco')).toBeUndefined();
  });
});
