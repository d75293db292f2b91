import { photoRetouchTemplate } from '@parley/examples';
import { describe, expect, it } from 'vitest';
import { map } from './offline-fixture';

// A switch's object kept as it is turns the switch off (draft-zhou §6.1): a verb of keeping ("keep", "leave"), a
// negated verb ("no need to touch") or a verb of staying ("should stay") with the thing the key acts on. Sentences
// written for these tests (none taken from a dev or validation set).
const payload = async (text: string) => (await map(photoRetouchTemplate, text)).payload;

describe('the thing a switch acts on, kept as it is', () => {
  it('is off after a verb of keeping', async () => {
    expect((await payload('please keep my backdrop crisp'))['background_blur']).toBe(false);
    expect((await payload('leave my teeth as they are'))['teeth_whitening']).toBe(false);
  });

  it('is off after a negated verb and before a verb of staying', async () => {
    expect((await payload("there's no need to edit the teeth"))['teeth_whitening']).toBe(false);
    expect((await payload('the background must remain clear'))['background_blur']).toBe(false);
  });

  it('stays on when the action itself is said, and leaves the other switches alone', async () => {
    expect((await payload('keep the background blurred'))['background_blur']).toBe(true);
    const p = await payload('whiten the teeth but leave the background as it was');
    expect(p['teeth_whitening']).toBe(true);
    expect(p['background_blur']).toBe(false);
  });

  it('is not read from a negated verb of another kind, a negated keeping or staying, or a complement asking for a change', async () => {
    // Each of these gave an explicit false: with a switch that defaults to true, that turns off what was asked for.
    const teeth = ["don't forget the teeth", "I can't stand my yellow teeth", "I don't like my dull teeth"];
    const background = [
      "I don't want the background to stay sharp", "don't let the background stay sharp", "the background shouldn't stay so busy",
      "don't keep the background sharp", "don't leave the background alone", 'keep the background out of focus',
      'keep the background soft and dreamy', 'leave the background fuzzy', 'skin smoothing level 5 and never mind the background',
    ];
    for (const text of teeth) expect((await payload(text))['teeth_whitening'], text).toBeUndefined();
    for (const text of background) expect((await payload(text))['background_blur'], text).toBeUndefined();
  });

  it('is read from a negated verb of changing and a complement meaning unchanged only', async () => {
    expect((await payload('no need to retouch my teeth'))['teeth_whitening']).toBe(false);
    expect((await payload('leave the backdrop untouched and smooth the skin'))['background_blur']).toBe(false);
  });
});
