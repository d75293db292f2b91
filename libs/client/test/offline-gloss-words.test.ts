import { faultManagementTemplate } from '@parley/examples';
import { describe, expect, it } from 'vitest';
import { map } from './offline-fixture';

// The template's own glosses of its enum values, and words that say two keys' values (draft-zhou §6.1: the schema's
// semantic descriptions in context). Sentences written for these tests, none taken from a dev or validation set.

describe('a word of a gloss of several words', () => {
  it('names its value when no other value or key says it ("microwave", "MPLS")', async () => {
    expect((await map(faultManagementTemplate, 'incident K-12: the microwave hop to site 5150 keeps dropping')).payload['fault_domain']).toBe('transport');
    expect((await map(faultManagementTemplate, 'incident K-13, high latency on the MPLS side since 08:30')).payload['fault_domain']).toBe('ip_network');
  });

  it('outweighs a one-word gloss other keys also say ("link" of ip_network)', async () => {
    expect((await map(faultManagementTemplate, 'incident K-14, a microwave link to site 6060 failed at 04:10')).payload['fault_domain']).toBe('transport');
    // "link" alone still says ip_network.
    expect((await map(faultManagementTemplate, 'incident K-15: packet loss on the link to site 7070 since 04:10')).payload['fault_domain']).toBe('ip_network');
  });

  it('does not read a noun a prepositional phrase qualifies in the gloss alone as the value ("symptoms in several domains")', async () => {
    const m = await map(faultManagementTemplate, 'incident K-40, users describe symptoms such as slow browsing near site 3030');
    expect(m.payload['fault_domain']).toBeUndefined();
  });

  it('does not read a word other keys say ("routers", "stations") as the value', async () => {
    expect((await map(faultManagementTemplate, 'incident K-16, routers R-1 and R-2 need a look')).payload['fault_domain']).toBeUndefined();
  });
});

describe('an example phrase with other keys\' values inside', () => {
  it('leaves the numbers between its words to the list, and its words to an enum gloss', async () => {
    const m = await map(faultManagementTemplate, 'incident K-20: base stations 610 to 612 are out of service since 07:50');
    expect(m.payload['alarm_type']).toBe('base_station_out_of_service');
    expect(m.payload['affected_site_ids']).toEqual(['610', '611', '612']);
    expect(m.payload['fault_domain']).toBe('wireless');
  });
});

describe('the ends of a link said "between A and B"', () => {
  it('are the identifiers nearest the connector, not one of another clause', async () => {
    expect((await map(faultManagementTemplate, 'incident K-30, the link between PE-5 and PE-6 failed at 04:10')).payload['suspected_link']).toBe('PE-5<->PE-6');
    expect((await map(faultManagementTemplate, 'the hop between HUB-8 and SITE-4 keeps flapping, incident K-31')).payload['suspected_link']).toBe('HUB-8<->SITE-4');
  });
});
