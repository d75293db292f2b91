import { faultManagementTemplate } from '@parley/examples';
import { describe, expect, it } from 'vitest';
import { map } from './offline-fixture';

// A generic word before a cue of the key ("network fault", "domain fault") names no enum value (draft-zhou §6.1: a
// value is sent only on the user's evidence); the value the user named elsewhere stays. Sentences written for these
// tests (none taken from a dev or validation set).
describe('a word of a multi-word enum value before the key\'s cue', () => {
  it('does not outrank the value the user named', async () => {
    expect((await map(faultManagementTemplate, 'INC-4 we have a network fault at site 9, radio side')).payload['fault_domain']).toBe('wireless');
  });

  it('names no value from a generic word or the cue itself', async () => {
    expect((await map(faultManagementTemplate, 'INC-4 a domain fault at site 9')).payload['fault_domain']).toBeUndefined();
    expect((await map(faultManagementTemplate, 'INC-4 network fault at site 9')).payload['fault_domain']).toBeUndefined();
  });
});
