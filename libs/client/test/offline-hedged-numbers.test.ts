import { flightBookingTemplate, photoRetouchTemplate } from '@parley/examples';
import { describe, expect, it } from 'vitest';
import { map } from './offline-fixture';

// A number a hedge introduces after a comma ("say 7", "maybe 4") rates what the clause before it named (draft-zhou
// §6.1: a key's range read from the user's words), when the number ends its clause. Sentences written for these
// tests (none taken from a dev or validation set).
describe('hedged numbers after a comma', () => {
  it('rate the key the clause before named', async () => {
    expect((await map(photoRetouchTemplate, 'blur the background a little and smooth the skin, say 7')).payload['skin_smoothing']).toBe(7);
    expect((await map(photoRetouchTemplate, 'smooth the skin a touch, maybe 4')).payload['skin_smoothing']).toBe(4);
  });

  it('do not take a number that counts something else', async () => {
    expect((await map(photoRetouchTemplate, 'smooth the skin, about 3 faces')).payload['skin_smoothing']).toBeUndefined();
    expect((await map(photoRetouchTemplate, 'smooth the skin a little, like 2 or 3 photos')).payload['skin_smoothing']).toBe(3);
    expect((await map(photoRetouchTemplate, 'warm filter, smooth the skin a bit, like 2 people in the shot')).payload['skin_smoothing']).toBe(3);
  });

  it('do not count people, nor rate a key no clause named', async () => {
    expect((await map(flightBookingTemplate, 'two of us to Rome, like 3 bags')).payload['passenger_count']).toBe(2);
    expect((await map(photoRetouchTemplate, 'blur the background, like 3 times')).payload['skin_smoothing']).toBeUndefined();
  });
});

// The ends of a key's range said in Spanish ("al máximo", "al mínimo"); English "minimal" is a light touch, not the end.
describe('range ends', () => {
  it('read the Spanish maximum and minimum after the key\'s name', async () => {
    expect((await map(photoRetouchTemplate, 'quiero la piel suavizada al máximo, por favor')).payload['skin_smoothing']).toBe(10);
    expect((await map(photoRetouchTemplate, 'suavizar la piel al mínimo')).payload['skin_smoothing']).toBe(0);
  });

  it('do not read English "minimal" or "maximal" as the range\'s ends', async () => {
    expect((await map(photoRetouchTemplate, 'skin smoothing minimal, warm filter')).payload['skin_smoothing']).toBeUndefined();
    expect((await map(photoRetouchTemplate, 'skin smoothing maximal')).payload['skin_smoothing']).toBeUndefined();
  });
});
