import { faultManagementTemplate } from '@parley/examples';
import { describe, expect, it } from 'vitest';
import { map } from './offline-fixture';

// A change of magnitude names an alarm beside a thing of a WordNet topic the template's own words belong to ("packet",
// filed under computer science like the template's "router"), though the template never spells it (draft-zhou §6.1).
// Sentences of our own, not the bench's.
describe('a thing of the template\'s topic', () => {
  const alarm = async (text: string) => (await map(faultManagementTemplate, text)).payload['alarm_type'];

  it('lets a change of magnitude name an alarm', async () => {
    expect(await alarm('packet loss on router PE-9 since 08:00')).toBe('packet_loss');
  });

  it('is no thing WordNet files under no topic, or under a topic the template does not speak of', async () => {
    for (const text of ['a weight loss at 08:00', 'the price decreased at 08:00', 'staff reduction at site 4', 'blood loss at the site']) {
      expect(await alarm(text), text).toBeUndefined();
    }
  });
});
