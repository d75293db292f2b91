import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ReadableSpan } from '@opentelemetry/sdk-trace';

/**
 * Traces in tests: spans from the SDK's in-memory exporter and from a tiny
 * OTLP/HTTP receiver (the `http/json` protocol) in one shape, and the checks
 * the tracing tests make on them.
 */
export interface TestSpan {
  traceId: string;
  spanId: string;
  /** Empty for a root span. */
  parentSpanId: string;
  name: string;
  kind: 'internal' | 'server' | 'client' | 'producer' | 'consumer';
  /** The resource's service.name (which process made it). */
  service: string;
  attributes: Record<string, string | number | boolean>;
  links: { traceId: string; spanId: string }[];
}

const KINDS = ['internal', 'server', 'client', 'producer', 'consumer'] as const;

export function fromReadableSpans(spans: readonly ReadableSpan[]): TestSpan[] {
  return spans.map((s) => ({
    traceId: s.spanContext().traceId,
    spanId: s.spanContext().spanId,
    parentSpanId: s.parentSpanContext?.spanId ?? '',
    name: s.name,
    kind: KINDS[s.kind] ?? 'internal',
    service: String(s.resource.attributes['service.name'] ?? ''),
    attributes: Object.fromEntries(Object.entries(s.attributes).filter((e): e is [string, string | number | boolean] => ['string', 'number', 'boolean'].includes(typeof e[1]))),
    links: s.links.map((l) => ({ traceId: l.context.traceId, spanId: l.context.spanId })),
  }));
}

interface OtlpValue {
  stringValue?: string;
  intValue?: string | number;
  doubleValue?: number;
  boolValue?: boolean;
}
interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind?: number;
  attributes?: { key: string; value: OtlpValue }[];
  links?: { traceId: string; spanId: string }[];
}
interface OtlpExport {
  resourceSpans?: { resource?: { attributes?: { key: string; value: OtlpValue }[] }; scopeSpans?: { spans?: OtlpSpan[] }[] }[];
}

const valueOf = (v: OtlpValue): string | number | boolean => v.stringValue ?? (v.intValue !== undefined ? Number(v.intValue) : undefined) ?? v.doubleValue ?? v.boolValue ?? '';

/** OTLP/JSON ids are hex; some encoders send base64: normalise to lower-case hex. */
function hexId(id: string | undefined, bytes: number): string {
  if (!id) return '';
  if (new RegExp(`^[0-9a-fA-F]{${bytes * 2}}$`).test(id)) return id.toLowerCase();
  return Buffer.from(id, 'base64').toString('hex');
}

export function fromOtlpJson(body: OtlpExport): TestSpan[] {
  const out: TestSpan[] = [];
  for (const rs of body.resourceSpans ?? []) {
    const service = String(valueOf(rs.resource?.attributes?.find((a) => a.key === 'service.name')?.value ?? {}));
    for (const ss of rs.scopeSpans ?? []) {
      for (const s of ss.spans ?? []) {
        out.push({
          traceId: hexId(s.traceId, 16),
          spanId: hexId(s.spanId, 8),
          parentSpanId: hexId(s.parentSpanId, 8),
          name: s.name,
          // OTLP SpanKind: 1 internal, 2 server, 3 client, 4 producer, 5 consumer.
          kind: KINDS[Math.max(0, (s.kind ?? 1) - 1)] ?? 'internal',
          service,
          attributes: Object.fromEntries((s.attributes ?? []).map((a) => [a.key, valueOf(a.value)])),
          links: (s.links ?? []).map((l) => ({ traceId: hexId(l.traceId, 16), spanId: hexId(l.spanId, 8) })),
        });
      }
    }
  }
  return out;
}

/** A receiver for OTLP/HTTP with JSON bodies (OTEL_EXPORTER_OTLP_PROTOCOL=http/json) at `<url>/v1/traces`. */
export interface OtlpReceiver {
  /** The base URL for OTEL_EXPORTER_OTLP_ENDPOINT. */
  url: string;
  spans(): TestSpan[];
  close(): Promise<void>;
}

export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const spans: TestSpan[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (req.method !== 'POST' || req.url !== '/v1/traces') {
        res.writeHead(404).end();
        return;
      }
      try {
        spans.push(...fromOtlpJson(JSON.parse(Buffer.concat(chunks).toString('utf8')) as OtlpExport));
        res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      } catch {
        res.writeHead(400).end();
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    spans: () => [...spans],
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/**
 * The spans of one trace whose parent is neither another span of the trace
 * nor `rootParent` (the caller's own span id): empty when the trace is connected.
 */
export function orphans(spans: readonly TestSpan[], rootParent = ''): TestSpan[] {
  const ids = new Set(spans.map((s) => s.spanId));
  return spans.filter((s) => s.parentSpanId !== rootParent && !ids.has(s.parentSpanId));
}

/** The chain of span names from `span` up to the root of its trace. */
export function ancestry(spans: readonly TestSpan[], span: TestSpan): string[] {
  const byId = new Map(spans.map((s) => [s.spanId, s]));
  const out: string[] = [];
  for (let s: TestSpan | undefined = span; s; s = byId.get(s.parentSpanId)) out.push(s.name);
  return out;
}
