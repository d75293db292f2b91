import { describe, expect, it } from 'vitest';
import { boundedLabel, createMetrics, credentialLabel, metricsFromEnv, outcomeLabel, principalClass, ruleLabel } from '@parley/runtime';

/** The value of one series in an exposition text, or undefined when it is absent. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  for (const line of text.split('\n')) {
    if (line.startsWith('#')) continue;
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (.+)$/.exec(line);
    if (!m || m[1] !== name) continue;
    const have = Object.fromEntries([...(m[2] ?? '').matchAll(/([a-zA-Z_]+)="((?:[^"\\]|\\.)*)"/g)].map((x) => [x[1], x[2]]));
    if (Object.entries(labels).every(([k, v]) => have[k] === v)) return Number(m[3]);
  }
  return undefined;
}

describe('bounded labels', () => {
  it('admits names up to the cap, then counts the rest as other; absent is none; a malformed name is other', () => {
    const admitted: string[] = [];
    const l = boundedLabel(2, (v) => admitted.push(v));
    expect(l.value('flight_booking')).toBe('flight_booking');
    expect(l.value('photo_retouch')).toBe('photo_retouch');
    expect(l.value('fault_management')).toBe('other');
    expect(l.value('flight_booking')).toBe('flight_booking');
    expect(l.value(undefined)).toBe('none');
    expect(l.value('')).toBe('none');
    expect(boundedLabel(5).value('Robert"); DROP')).toBe('other');
    expect(boundedLabel(5).value('other')).toBe('other');
    expect(admitted).toEqual(['flight_booking', 'photo_retouch']);
  });

  it('maps outcomes, principal classes, rules and credentials to closed sets', () => {
    expect(outcomeLabel(undefined)).toBe('ok');
    expect(outcomeLabel('payload_invalid')).toBe('payload_invalid');
    expect(outcomeLabel('made_up_by_a_client')).toBe('internal');
    expect(principalClass(['client_agent', 'operator'])).toBe('operator');
    expect(principalClass(['server_agent'])).toBe('server_agent');
    expect(principalClass(['service'])).toBe('other');
    expect(ruleLabel('credentials_required')).toBe('credentials_required');
    expect(ruleLabel('Has Spaces')).toBe('other');
    expect(credentialLabel(undefined)).toBe('none');
    expect(credentialLabel('Bearer pk_0123456789abcdef_secret')).toBe('api_key');
    expect(credentialLabel('Bearer aaa.bbb.ccc')).toBe('jwt');
    expect(credentialLabel('Basic dXNlcjpwYXNz')).toBe('malformed');
  });
});

describe('metrics', () => {
  it('counts requests, executions and timeouts with bounded labels and Prometheus names', async () => {
    const m = createMetrics({ maxScenarios: 1, processMetrics: false });
    m.request('rpc', 'execute', 'flight_booking', undefined, 0.02);
    m.request('rpc', 'execute', 'photo_retouch', 'payload_invalid', 0.01);
    m.execution('flight_booking', 'skyways-air', 'agent_timeout', 5);
    m.execution('flight_booking', 'skyways-air', undefined, 0.003);
    m.authFailure('rpc', 'api_key', 'unknown_key');
    m.rateLimited(['client_agent']);
    const text = await m.scrape();
    expect(sample(text, 'parley_gateway_requests_total', { face: 'rpc', method: 'execute', scenario: 'flight_booking', outcome: 'ok' })).toBe(1);
    // The second scenario is past the cap of one.
    expect(sample(text, 'parley_gateway_requests_total', { scenario: 'other', outcome: 'payload_invalid' })).toBe(1);
    expect(sample(text, 'parley_gateway_request_duration_seconds_count', { method: 'execute', scenario: 'flight_booking' })).toBe(1);
    expect(sample(text, 'parley_executions_total', { scenario: 'flight_booking', agent: 'skyways-air', outcome: 'agent_timeout' })).toBe(1);
    expect(sample(text, 'parley_executions_total', { scenario: 'flight_booking', agent: 'skyways-air', outcome: 'ok' })).toBe(1);
    expect(sample(text, 'parley_agent_timeouts_total', { scenario: 'flight_booking', agent: 'skyways-air' })).toBe(1);
    expect(sample(text, 'parley_auth_failures_total', { face: 'rpc', credential: 'api_key', rule: 'unknown_key' })).toBe(1);
    expect(sample(text, 'parley_rate_limited_total', { principal_class: 'client_agent' })).toBe(1);
    expect(text).not.toMatch(/photo_retouch/);
  });

  it('shows a retention sweep left behind its batch cap, and marks kept for the live stream', async () => {
    const m = createMetrics({ processMetrics: false });
    m.retentionPruned('execution', 'outbox', 1000);
    m.retentionState('execution', 'outbox', { behind: true, skipped: false });
    m.retentionState('execution', 'processed_events', { behind: false, skipped: true });
    // Resolved dead letters: counted and shown behind under their own table, and never taken for the marks.
    m.retentionPruned('execution', 'dead_letters', 7);
    m.retentionState('execution', 'dead_letters', { behind: true, skipped: false });
    let text = await m.scrape();
    expect(sample(text, 'parley_event_retention_pruned_total', { service: 'execution', table: 'dead_letters' })).toBe(7);
    expect(sample(text, 'parley_event_retention_behind', { service: 'execution', table: 'dead_letters' })).toBe(1);
    expect(sample(text, 'parley_event_retention_pruned_total', { service: 'execution', table: 'outbox' })).toBe(1000);
    expect(sample(text, 'parley_event_retention_behind', { service: 'execution', table: 'outbox' })).toBe(1);
    expect(sample(text, 'parley_event_retention_marks_kept', { service: 'execution' })).toBe(1);
    m.retentionState('execution', 'outbox', { behind: false, skipped: false });
    m.retentionState('execution', 'processed_events', { behind: false, skipped: false });
    text = await m.scrape();
    expect(sample(text, 'parley_event_retention_behind', { service: 'execution', table: 'outbox' })).toBe(0);
    expect(sample(text, 'parley_event_retention_marks_kept', { service: 'execution' })).toBe(0);
  });

  it('reads state on scrape: pool and evolution figures, and a failing source is counted, not fatal', async () => {
    const m = createMetrics({ processMetrics: false });
    let fragments = 3;
    m.watchPool(() => [{ scenario: 'flight_booking', fragments, clusters: { global: 2, client: 1 }, hottest: [60, 12, 3, 2, 1, 0.5], triggers: 1 }], 50);
    m.watchEvolution(() => [{ scenario: 'flight_booking', patches: { proposed: 1, active: 2 }, keys: { experimental: 1, stable: 1 } }]);
    m.watchConsumers(async () => {
      throw new Error('jetstream down');
    });
    let text = await m.scrape();
    expect(sample(text, 'parley_pool_fragments_total', { scenario: 'flight_booking' })).toBe(3);
    expect(sample(text, 'parley_pool_clusters', { scenario: 'flight_booking', scope: 'client' })).toBe(1);
    expect(sample(text, 'parley_pool_cluster_heat', { scenario: 'flight_booking', rank: '1' })).toBe(60);
    expect(sample(text, 'parley_pool_cluster_heat', { scenario: 'flight_booking', rank: '5' })).toBe(1);
    expect(sample(text, 'parley_pool_cluster_heat', { rank: '6' })).toBeUndefined();
    expect(sample(text, 'parley_pool_triggers_total', { scenario: 'flight_booking' })).toBe(1);
    expect(sample(text, 'parley_pool_heat_threshold')).toBe(50);
    expect(sample(text, 'parley_patches', { scenario: 'flight_booking', status: 'rejected' })).toBe(0);
    expect(sample(text, 'parley_patches', { scenario: 'flight_booking', status: 'active' })).toBe(2);
    expect(sample(text, 'parley_patch_keys', { scenario: 'flight_booking', state: 'withdrawn' })).toBe(0);
    expect(sample(text, 'parley_metrics_source_errors_total', { source: 'consumers' })).toBe(1);
    fragments = 5;
    text = await m.scrape();
    expect(sample(text, 'parley_pool_fragments_total', { scenario: 'flight_booking' })).toBe(5);
    expect(sample(text, 'parley_metrics_source_errors_total', { source: 'consumers' })).toBe(2);
  });

  it('PARLEY_METRICS=off turns metrics off', () => {
    expect(metricsFromEnv({ PARLEY_METRICS: 'off' })).toBeUndefined();
    expect(metricsFromEnv({})).toBeDefined();
  });
});
