import { flightBookingTemplate, photoRetouchTemplate } from '@parley/examples';
import { describe, expect, it } from 'vitest';
import { map } from './offline-fixture';

// A number a hedge introduces after a comma ("like 9", "maybe 6") rates what the clause before it named (draft-zhou
// §6.1: a key's range read from the user's words). Sentences of our own, not the bench's.
describe('hedged numbers after a comma', () => {
  it('rate the key the clause before named', async () => {
    expect((await map(photoRetouchTemplate, 'soften my skin quite a bit, like 8, and add a cool tone')).payload['skin_smoothing']).toBe(8);
    expect((await map(photoRetouchTemplate, 'smooth the skin, maybe 6')).payload['skin_smoothing']).toBe(6);
  });

  it('do not count people, nor rate a key no clause named', async () => {
    expect((await map(flightBookingTemplate, 'two of us to Rome, like 3 bags')).payload['passenger_count']).toBe(2);
    expect((await map(photoRetouchTemplate, 'blur the background, like 3 times')).payload['skin_smoothing']).toBeUndefined();
  });
});

// The ends of a key's range said in the other languages the mapper glosses ("al máximo", "al minimo").
describe('range ends in other languages', () => {
  it('read the key\'s maximum and minimum after its name', async () => {
    expect((await map(photoRetouchTemplate, 'suaviza la piel al máximo')).payload['skin_smoothing']).toBe(10);
    expect((await map(photoRetouchTemplate, 'lisse la peau au minimum')).payload['skin_smoothing']).toBe(0);
  });
});
