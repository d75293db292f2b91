import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse, parseAllDocuments } from 'yaml';
import { createLogger } from '@parley/runtime';
import { FIGURE_8, REPO_ROOT, postRaw, rpc, useKey, waitFor } from '@parley/testkit';
import { startParley, type EmbeddedParley } from '../src/embedded';

/**
 * The operators' artifacts under infra/ against a live /metrics scrape of the
 * embedded app after some traffic: the Grafana dashboard (JSON), the
 * PrometheusRule alerts and the KEDA ScaledObjects query only metrics that
 * exist, with samples, and group and filter by labels those metrics have.
 */
let parley: EmbeddedParley;
let scrape = '';

interface Series {
  name: string;
  labels: Record<string, string>;
}

function series(text: string): Series[] {
  const out: Series[] = [];
  for (const line of text.split('\n')) {
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? \S+$/.exec(line);
    if (!m) continue;
    out.push({ name: m[1]!, labels: Object.fromEntries([...(m[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)].map((x) => [x[1]!, x[2]!])) });
  }
  return out;
}

/** The metric names an expression reads (Parley's, the process's): identifiers not followed by `(` that name a series. */
function metricsOf(expr: string): string[] {
  return [...new Set([...expr.matchAll(/\b((?:parley|process|nodejs)_[a-z0-9_]+)\b/g)].map((m) => m[1]!))];
}

/** Label names an expression groups or filters by: `by (...)`, `without (...)` and `{label=...}` selectors. */
function labelsOf(expr: string): string[] {
  const names = new Set<string>();
  for (const m of expr.matchAll(/\b(?:by|without)\s*\(([^)]*)\)/g)) for (const l of m[1]!.split(',')) if (l.trim()) names.add(l.trim());
  for (const m of expr.matchAll(/\{([^}]*)\}/g)) for (const l of m[1]!.matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)\s*(?:=~|!~|!=|=)/g)) names.add(l[1]!);
  names.delete('le');
  return [...names];
}

function balanced(expr: string): boolean {
  const open = '([{';
  const close = ')]}';
  const stack: string[] = [];
  for (const ch of expr.replace(/"(?:[^"\\]|\\.)*"/g, '""')) {
    if (open.includes(ch)) stack.push(ch);
    else if (close.includes(ch) && stack.pop() !== open[close.indexOf(ch)]) return false;
  }
  return stack.length === 0;
}

const dashboard = JSON.parse(readFileSync(join(REPO_ROOT, 'infra/observability/grafana/parley.json'), 'utf8')) as {
  uid: string;
  panels: { id: number; type: string; title: string; gridPos?: object; datasource?: object; targets?: { expr: string; refId: string }[] }[];
  templating: { list: { name: string; query?: string | { query: string } }[] };
};
const rules = parse(readFileSync(join(REPO_ROOT, 'infra/observability/prometheus-rules.yaml'), 'utf8')) as {
  kind: string;
  spec: { groups: { name: string; rules: { alert: string; expr: string; for?: string; labels?: Record<string, string>; annotations?: Record<string, string> }[] }[] };
};
const scaledObjects = parseAllDocuments(readFileSync(join(REPO_ROOT, 'infra/k8s/components/autoscaling-keda/scaledobjects.yaml'), 'utf8'))
  .map((d) => d.toJS() as { kind: string; spec: { triggers: { metadata: { query: string } }[] } } | null)
  .filter((d): d is NonNullable<typeof d> => d !== null);

/** Every PromQL expression of the artifacts, with where it comes from. */
const EXPRESSIONS: { where: string; expr: string }[] = [
  ...dashboard.panels.flatMap((p) => (p.targets ?? []).map((t) => ({ where: `dashboard panel "${p.title}" ${t.refId}`, expr: t.expr }))),
  ...dashboard.templating.list.filter((v) => v.query !== undefined && typeof v.query !== 'string').map((v) => ({ where: `dashboard variable $${v.name}`, expr: (v.query as { query: string }).query })),
  ...rules.spec.groups.flatMap((g) => g.rules.map((r) => ({ where: `alert ${r.alert}`, expr: r.expr }))),
  ...scaledObjects.flatMap((o) => o.spec.triggers.map((t) => ({ where: 'KEDA ScaledObject', expr: t.metadata.query }))),
];

beforeAll(async () => {
  // A small rate limit so that a batch can be refused (429) without waiting.
  parley = await startParley({ port: 0, log: createLogger({ level: 'silent' }), rateLimit: { ratePerSecond: 20, burst: 30 } });
  useKey(parley.url, parley.devKey);
  for (const [i, other] of ['window seat', 'aisle seat please', 'a seat by the window'].entries()) {
    const r = await rpc(parley.url, 'execute', { ...FIGURE_8, client_id: `observability-client-${i}`, payload: { ...FIGURE_8.payload, other } });
    expect(r.body.error).toBeUndefined();
  }
  expect((await rpc(parley.url, 'execute', { schema_id: 'flight_booking_v1', payload: { origin: 'PEK' } })).body.error.data.type).toBe('payload_invalid');
  expect((await rpc(parley.url, 'get_schema_template', { scenario: 'flight_booking' })).body.error).toBeUndefined();
  // An unknown key (401) and a batch over a client's rate limit (429).
  expect((await rpc(parley.url, 'whoami', {}, 'pk_0123456789abcdef_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA')).status).toBe(401);
  const client = (await rpc(parley.url, 'create_api_key', { principal: 'observability-assistant', roles: ['client_agent'] })).body.result.key as string;
  // Two batches of 25 against a burst of 30: the second waits for tokens (429). A batch over the burst would be
  // batch_too_large (413), since no wait would let it pass.
  const batch = JSON.stringify(Array.from({ length: 25 }, (_, i) => ({ jsonrpc: '2.0', id: i, method: 'whoami', params: {} })));
  expect((await postRaw(parley.url, batch, { authorization: `Bearer ${client}` })).status).toBe(200);
  expect((await postRaw(parley.url, batch, { authorization: `Bearer ${client}` })).status).toBe(429);
  await parley.execution.drainOutbox();
  await waitFor('the pool to fold the fragments in', async () => {
    const text = await (await fetch(`${parley.url}/metrics`)).text();
    return /^parley_pool_fragments_total\{scenario="flight_booking"\} [3-9]/m.test(text) ? text : undefined;
  });
  scrape = await (await fetch(`${parley.url}/metrics`)).text();
}, 120_000);

afterAll(async () => {
  await parley?.stop();
});

describe('dashboards, alerts and scalers against a live /metrics scrape', () => {
  it('the scrape is Prometheus text with Parley\'s families, and no client id or payload value as a label', () => {
    expect(scrape).toMatch(/^# TYPE parley_gateway_requests_total counter$/m);
    expect(scrape).toMatch(/^# TYPE parley_gateway_request_duration_seconds histogram$/m);
    expect(scrape).toMatch(/^parley_gateway_requests_total\{face="rpc",method="execute",scenario="flight_booking",outcome="ok"\} 3$/m);
    expect(scrape).toMatch(/^parley_gateway_requests_total\{face="rpc",method="execute",scenario="none",outcome="payload_invalid"\} 1$/m);
    expect(scrape).toMatch(/^parley_auth_failures_total\{face="rpc",credential="api_key",rule="[a-z_]+"\} 1$/m);
    expect(scrape).toMatch(/^parley_rate_limited_total\{principal_class="client_agent"\} 1$/m);
    expect(scrape).toMatch(/^parley_executions_total\{scenario="flight_booking",agent="skyways-air",outcome="ok"\} 3$/m);
    for (const secret of ['observability-client', 'observability-assistant', 'PEK', 'window seat']) expect(scrape).not.toContain(secret);
  });

  it('the dashboard is valid Grafana JSON: unique panel ids, every panel placed and on the Prometheus datasource variable', () => {
    expect(dashboard.uid).toBe('parley-overview');
    const ids = dashboard.panels.map((p) => p.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const p of dashboard.panels) {
      expect(p.gridPos, p.title).toBeDefined();
      if (p.type !== 'row') {
        expect(p.datasource, p.title).toEqual({ type: 'prometheus', uid: '${datasource}' });
        expect(p.targets?.length, p.title).toBeGreaterThan(0);
      }
    }
    expect(dashboard.templating.list.map((v) => v.name)).toEqual(['datasource', 'scenario']);
  });

  it('the alerts are a PrometheusRule with the required ones, each with a severity, a summary and a duration', () => {
    expect(rules.kind).toBe('PrometheusRule');
    const all = rules.spec.groups.flatMap((g) => g.rules);
    for (const a of ['ParleyOutboxStuck', 'ParleyConsumerLag', 'ParleyDeadLetters', 'ParleyAgentTimeouts', 'ParleyAuthFailureSpike']) expect(all.map((r) => r.alert)).toContain(a);
    for (const r of all) {
      expect(['critical', 'warning', 'info'], r.alert).toContain(r.labels?.severity);
      expect(r.annotations?.summary, r.alert).toBeTruthy();
      expect(r.for, r.alert).toMatch(/^\d+[smh]$/);
    }
  });

  it('every metric an expression reads exists in the scrape with samples, and every label it groups or filters by is a label of those metrics', () => {
    const all = series(scrape);
    const byName = new Map<string, Series[]>();
    for (const s of all) byName.set(s.name, [...(byName.get(s.name) ?? []), s]);
    expect(EXPRESSIONS.length).toBeGreaterThan(30);
    for (const { where, expr } of EXPRESSIONS) {
      expect(balanced(expr), `${where}: balanced brackets in ${expr}`).toBe(true);
      const names = metricsOf(expr);
      expect(names.length, `${where} reads a metric`).toBeGreaterThan(0);
      const labels = new Set<string>();
      for (const n of names) {
        const samples = byName.get(n);
        expect(samples !== undefined && samples.length > 0, `${where}: ${n} has samples in /metrics`).toBe(true);
        for (const s of samples ?? []) for (const l of Object.keys(s.labels)) labels.add(l);
      }
      // `job` and `pod` are Prometheus's target labels, not the process's.
      for (const l of labelsOf(expr).filter((x) => x !== 'job' && x !== 'pod')) expect(labels.has(l), `${where}: label ${l} on ${names.join(', ')}`).toBe(true);
    }
  });
});
