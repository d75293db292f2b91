import { randomBytes } from 'node:crypto';
import { InMemorySpanExporter } from '@opentelemetry/sdk-trace';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger, installTracingTo, type Tracing } from '@parley/runtime';
import { FIGURE_8, ancestry, fromReadableSpans, orphans, waitFor, type TestSpan } from '@parley/testkit';
import { startParley, type EmbeddedParley } from '../src/embedded';

// One execute, every service in this process (the embedded mode): the spans the SDK's
// in-memory exporter receives form one trace, from the caller's traceparent through the
// gateway, the gRPC calls, the NATS request to the agent, the outbox relay and every
// consumer of the events the execute caused.
let parley: EmbeddedParley;
let exporter: InMemorySpanExporter;
let tracing: Tracing;

beforeAll(async () => {
  exporter = new InMemorySpanExporter();
  tracing = installTracingTo(exporter, 'parley-embedded-test');
  parley = await startParley({ port: 0, log: createLogger({ level: 'silent' }) });
});

afterAll(async () => {
  await parley?.stop();
  await tracing?.shutdown();
});

describe('tracing in one process', () => {
  it('one execute with `other` is one connected trace across gateway, gRPC, the agent, the relay and the consumers', async () => {
    const traceId = randomBytes(16).toString('hex');
    const callerSpan = randomBytes(8).toString('hex');
    const res = await fetch(`${parley.url}/rpc`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${parley.devKey}`, traceparent: `00-${traceId}-${callerSpan}-01` },
      body: JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'execute', params: { ...FIGURE_8, client_id: 'tracing-client' } }),
    });
    const body = (await res.json()) as { result?: unknown; error?: unknown };
    expect(body.error).toBeUndefined();
    await parley.execution.drainOutbox();

    const ofTrace = (): TestSpan[] => fromReadableSpans(exporter.getFinishedSpans()).filter((s) => s.traceId === traceId);
    // Every durable consumer of payload.executed and other.captured has processed its event.
    const spans = await waitFor('the consumers of the events to finish', async () => {
      const s = ofTrace();
      const groups = new Set(s.filter((x) => x.kind === 'consumer' && x.name.startsWith('process parley.v1.flight_booking.')).map((x) => String(x.attributes['messaging.consumer.group.name'])));
      return ['parley-registry-usage', 'parley-evolution-executions', 'parley-semantic-pool'].every((g) => groups.has(g)) ? s : undefined;
    });

    // Connected: each span's parent is in the trace, except the root's, which is the caller's span.
    expect(orphans(spans, callerSpan)).toEqual([]);
    const named = (name: string, kind?: TestSpan['kind']) => {
      const s = spans.find((x) => x.name === name && (kind === undefined || x.kind === kind));
      expect(s, `span ${name}${kind ? ` (${kind})` : ''}`).toBeDefined();
      return s as TestSpan;
    };
    const http = named('POST /rpc', 'server');
    expect(http.parentSpanId).toBe(callerSpan);
    expect(http.attributes['http.route']).toBe('/rpc');
    expect(http.attributes['http.response.status_code']).toBe(200);

    const jsonrpc = named('execute', 'server');
    expect(jsonrpc.parentSpanId).toBe(http.spanId);
    expect(jsonrpc.attributes).toMatchObject({ 'rpc.system.name': 'jsonrpc', 'rpc.method': 'execute', 'jsonrpc.request.id': '7', 'parley.scenario': 'flight_booking' });

    const grpcClient = named('parley.v1.ExecutionService/Execute', 'client');
    const grpcServer = named('parley.v1.ExecutionService/Execute', 'server');
    expect(grpcClient.parentSpanId).toBe(jsonrpc.spanId);
    expect(grpcServer.parentSpanId).toBe(grpcClient.spanId);
    expect(grpcClient.attributes).toMatchObject({ 'rpc.system.name': 'grpc', 'rpc.response.status_code': 'OK', 'server.address': '127.0.0.1' });

    const dispatch = named('send parley.v1.flight_booking.execute.skyways-air', 'producer');
    const served = named('process parley.v1.flight_booking.execute.skyways-air', 'consumer');
    const agent = named('execute flight_booking', 'internal');
    expect(ancestry(spans, dispatch)).toContain('parley.v1.ExecutionService/Execute');
    expect(served.parentSpanId).toBe(dispatch.spanId);
    expect(served.attributes).toMatchObject({ 'messaging.system': 'nats', 'messaging.consumer.group.name': 'skyways-air' });
    expect(agent.parentSpanId).toBe(served.spanId);
    expect(agent.attributes['parley.agent']).toBe('skyways-air');

    // The relay publishes in the trace of the transaction that wrote the rows (the Execute server span).
    const published = named('send parley.v1.flight_booking.payload.executed', 'producer');
    expect(published.parentSpanId).toBe(grpcServer.spanId);
    const captured = named('send parley.v1.flight_booking.other.captured', 'producer');
    expect(captured.parentSpanId).toBe(grpcServer.spanId);
    for (const s of spans.filter((x) => x.kind === 'consumer' && x.name === 'process parley.v1.flight_booking.payload.executed')) {
      expect(s.parentSpanId).toBe(published.spanId);
    }
    const pool = spans.find((x) => x.attributes['messaging.consumer.group.name'] === 'parley-semantic-pool');
    expect(pool?.parentSpanId).toBe(captured.spanId);
  });

  it('an MCP tools/call continues the context the client put in params._meta and links the HTTP span', async () => {
    const traceId = randomBytes(16).toString('hex');
    const clientSpan = randomBytes(8).toString('hex');
    const res = await fetch(`${parley.url}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${parley.devKey}` },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 'call-1',
        method: 'tools/call',
        params: { name: 'skyways-air__flight_booking', arguments: FIGURE_8.payload, _meta: { traceparent: `00-${traceId}-${clientSpan}-01` } },
      }),
    });
    expect(res.status).toBe(200);
    const spans = await waitFor('the tools/call span', async () => {
      const s = fromReadableSpans(exporter.getFinishedSpans()).filter((x) => x.traceId === traceId);
      return s.some((x) => x.name === 'tools/call skyways-air__flight_booking') && s.some((x) => x.name === 'execute flight_booking') ? s : undefined;
    });
    const mcp = spans.find((x) => x.name === 'tools/call skyways-air__flight_booking') as TestSpan;
    expect(mcp.kind).toBe('server');
    expect(mcp.parentSpanId).toBe(clientSpan);
    expect(mcp.attributes).toMatchObject({ 'mcp.method.name': 'tools/call', 'gen_ai.tool.name': 'skyways-air__flight_booking', 'gen_ai.operation.name': 'execute_tool', 'jsonrpc.request.id': 'call-1' });
    expect(mcp.attributes['error.type']).toBeUndefined();
    // The HTTP request's span is another trace (the client sent no traceparent header): linked, not the parent.
    const httpSpan = fromReadableSpans(exporter.getFinishedSpans()).find((x) => x.name === 'POST /mcp' && x.spanId === mcp.links[0]?.spanId);
    expect(httpSpan).toBeDefined();
    const agent = spans.find((x) => x.name === 'execute flight_booking') as TestSpan;
    expect(ancestry(spans, agent)).toContain('tools/call skyways-air__flight_booking');
  });

  it('a failed JSON-RPC call marks its span with the error type', async () => {
    const traceId = randomBytes(16).toString('hex');
    await fetch(`${parley.url}/rpc`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${parley.devKey}`, traceparent: `00-${traceId}-${randomBytes(8).toString('hex')}-01` },
      body: JSON.stringify({ jsonrpc: '2.0', id: 8, method: 'execute', params: { schema_id: 'flight_booking_v1', payload: { origin: 'PEK' } } }),
    });
    const span = await waitFor('the execute span', async () => fromReadableSpans(exporter.getFinishedSpans()).find((x) => x.traceId === traceId && x.name === 'execute'));
    expect(span.attributes).toMatchObject({ 'rpc.response.status_code': '-32011', 'error.type': '-32011', 'parley.error.type': 'payload_invalid' });
  });
});
