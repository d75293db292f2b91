import { describe, expect, it } from 'vitest';
import { DEFAULT_EVENT_FLOW, eventFlowFromEnv } from '@parley/runtime';
import { PGLITE_POLL_MS, embeddedEventFlow } from '../src/embedded';

describe('the one-process mode: how often relays and webhook deliverers poll', () => {
  it('polls every 10 s on PGlite, where every writer is in this process and nudges, unless PARLEY_OUTBOX_POLL_MS is set', () => {
    expect(embeddedEventFlow(eventFlowFromEnv({}), true, {}).outboxPollMs).toBe(PGLITE_POLL_MS);
    expect(embeddedEventFlow(eventFlowFromEnv({ PARLEY_OUTBOX_POLL_MS: '200' }), true, { PARLEY_OUTBOX_POLL_MS: '200' }).outboxPollMs).toBe(200);
  });

  it('keeps the separate services’ 1 s on PostgreSQL, which other replicas may write', () => {
    expect(embeddedEventFlow(eventFlowFromEnv({}), false, {})).toEqual(DEFAULT_EVENT_FLOW);
  });
});
