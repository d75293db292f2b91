import { photoRetouchTemplate } from '@parley/examples';
import { describe, expect, it } from 'vitest';
import { map } from './offline-fixture';

// A switch's action said by an adjective of its result beside its object (draft-zhou §6.1: the key's name read with
// WordNet): "fuzzy" and "hazy" share a sense with "blurred", a form of blur. Sentences of our own, not the bench's.
describe('an adjective of a switch\'s action beside its object', () => {
  const blur = async (text: string) => (await map(photoRetouchTemplate, text)).payload['background_blur'];

  it('turns the switch on', async () => {
    expect(await blur('the backdrop should be fuzzy')).toBe(true);
    expect(await blur('make the backdrop hazy')).toBe(true);
  });

  it('does not fire negated, taken away, in another clause, or without the object', async () => {
    expect(await blur('the backdrop is not fuzzy')).not.toBe(true);
    expect(await blur('erase the fuzzy backdrop')).not.toBe(true);
    expect(await blur('the backdrop, fuzzy teddy bear on the left')).toBeUndefined();
    expect(await blur('a fuzzy sweater in the photo')).toBeUndefined();
    // A verb of keeping: the left-as-is rule reads it.
    expect(await blur('leave the backdrop fuzzy')).toBeUndefined();
  });
});

// Said plainly, the adjective is a complaint about the photo; only a wish or cause frame asks for it, and never beside
// its WordNet antonym, a verb of repair or a negation.
describe('an adjective of a switch\'s action said as a complaint', () => {
  const blur = async (text: string) => (await map(photoRetouchTemplate, text)).payload['background_blur'];

  it('does not turn the switch on', async () => {
    expect(await blur('the fuzzy background, sharpen it')).not.toBe(true);
    expect(await blur('the backdrop is fuzzy, please fix it')).not.toBe(true);
    expect(await blur('the background is fuzzy? no, crisp')).not.toBe(true);
    expect(await blur('I want the backdrop fuzzy, no, crisp')).not.toBe(true);
    expect(await blur('make the backdrop fuzzy, it should be sharp')).not.toBe(true);
  });

  it('reads a cause frame before it', async () => {
    expect(await blur('crop it so the backdrop is fuzzy')).toBe(true);
    // The repair is about the picture, not the backdrop.
    expect(await blur('fix up my picture so the backdrop is fuzzy')).toBe(true);
    expect(await blur('fix the backdrop so it is fuzzy')).not.toBe(true);
  });
});
