import { faultManagementTemplate } from '@parley/examples';
import { describe, expect, it } from 'vitest';
import { map } from './offline-fixture';

// A decrease or an increase names an alarm (draft-zhou §6.1, the template's alarm_type in snake_case) only when the
// thing that changed is something the template talks about. Sentences of our own, not the bench's.
describe('a change of magnitude as an alarm name', () => {
  it('is no alarm when the changing thing is nothing the template talks about', async () => {
    for (const text of ['a weight loss', 'the price decreased', 'my interest increased', 'staff reduction']) {
      expect((await map(faultManagementTemplate, text)).payload['alarm_type'], text).toBeUndefined();
    }
  });

  it('is an alarm when the changing thing is the template\'s own word, and a failure needs no such word', async () => {
    expect((await map(faultManagementTemplate, 'the optical power decreased at site 1021')).payload['alarm_type']).toBe('power_decreased');
    expect((await map(faultManagementTemplate, 'the backhaul line is down at site 1021')).payload['alarm_type']).toBe('link_down');
  });
});
