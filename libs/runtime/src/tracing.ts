import { context, propagation, trace, type TextMapPropagator } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { CompositePropagator, W3CBaggagePropagator, W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter as OtlpJsonExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as OtlpProtoExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { detectResources, envDetector, resourceFromAttributes } from '@opentelemetry/resources';
import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  BatchSpanProcessor,
  ConsoleSpanExporter,
  ParentBasedSampler,
  SimpleSpanProcessor,
  TraceIdRatioBasedSampler,
  TracerProvider,
  type Sampler,
  type SpanExporter,
  type SpanProcessor,
} from '@opentelemetry/sdk-trace';
import { ATTR_SERVICE_NAME, ATTR_SERVICE_VERSION } from '@opentelemetry/semantic-conventions';
import { ConfigError, envInt, envOptional } from './config';

type Env = Record<string, string | undefined>;

/**
 * OpenTelemetry tracing for a Parley process. The libraries create spans with
 * `@opentelemetry/api` alone (a no-op until a provider is registered); a
 * process's entry point turns the SDK on with `startTracingFromEnv`, from the
 * standard `OTEL_*` variables, and it is **off by default**:
 *
 * - on when `OTEL_TRACES_EXPORTER` names an exporter (`otlp`, `console`; a
 *   comma-separated list), or, when it is unset, when an OTLP endpoint is set
 *   (`OTEL_EXPORTER_OTLP_ENDPOINT` or `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`);
 *   off with `OTEL_TRACES_EXPORTER=none` or `OTEL_SDK_DISABLED=true`;
 * - OTLP over HTTP: `OTEL_EXPORTER_OTLP_TRACES_PROTOCOL` /
 *   `OTEL_EXPORTER_OTLP_PROTOCOL` `http/protobuf` (default) or `http/json`; the
 *   exporter reads the endpoint, headers, timeout, compression and certificate
 *   variables itself (`grpc` is refused: run an OpenTelemetry Collector's
 *   OTLP/HTTP receiver, which every collector has);
 * - `OTEL_SERVICE_NAME` (default `parley-<service>`), `OTEL_RESOURCE_ATTRIBUTES`;
 * - `OTEL_TRACES_SAMPLER` (`parentbased_always_on` default, `always_on`,
 *   `always_off`, `traceidratio`, `parentbased_traceidratio`,
 *   `parentbased_always_off`) with `OTEL_TRACES_SAMPLER_ARG`;
 * - `OTEL_PROPAGATORS` (`tracecontext,baggage` default; `none`);
 * - `OTEL_BSP_SCHEDULE_DELAY`, `OTEL_BSP_MAX_QUEUE_SIZE`,
 *   `OTEL_BSP_MAX_EXPORT_BATCH_SIZE`, `OTEL_BSP_EXPORT_TIMEOUT`.
 *
 * One provider per process: a second install replaces the first (tests,
 * benchmarks).
 */
export interface Tracing {
  /** Whether spans are recorded and exported. */
  readonly enabled: boolean;
  /** What is exported where, for the start log. */
  readonly description: string;
  forceFlush(): Promise<void>;
  /** Exports what is buffered and unregisters the SDK. */
  shutdown(): Promise<void>;
}

const OFF: Tracing = { enabled: false, description: 'off', forceFlush: async () => {}, shutdown: async () => {} };

let current: { provider: TracerProvider; manager: AsyncLocalStorageContextManager } | undefined;

/** Registers a provider with these processors (and the W3C propagators) for the whole process. */
export function installTracing(opts: {
  processors: SpanProcessor[];
  serviceName: string;
  sampler?: Sampler;
  propagator?: TextMapPropagator | null;
  /** Resource attributes besides service.name (OTEL_RESOURCE_ATTRIBUTES is read by startTracingFromEnv). */
  attributes?: Record<string, string>;
  description?: string;
}): Tracing {
  uninstall();
  const manager = new AsyncLocalStorageContextManager();
  manager.enable();
  context.setGlobalContextManager(manager);
  const propagator = opts.propagator === undefined ? new CompositePropagator({ propagators: [new W3CTraceContextPropagator(), new W3CBaggagePropagator()] }) : opts.propagator;
  if (propagator) propagation.setGlobalPropagator(propagator);
  const provider = new TracerProvider({
    resource: resourceFromAttributes({ [ATTR_SERVICE_NAME]: opts.serviceName, [ATTR_SERVICE_VERSION]: PARLEY_VERSION, ...opts.attributes }),
    ...(opts.sampler ? { sampler: opts.sampler } : {}),
    spanProcessors: opts.processors,
  });
  trace.setGlobalTracerProvider(provider);
  const me = { provider, manager };
  current = me;
  return {
    enabled: true,
    description: opts.description ?? 'custom processors',
    forceFlush: () => provider.forceFlush(),
    async shutdown() {
      await provider.forceFlush().catch(() => {});
      await provider.shutdown().catch(() => {});
      if (current === me) uninstall();
    },
  };
}

/** Test and benchmark helper: every span to `exporter` as it ends (SimpleSpanProcessor). */
export function installTracingTo(exporter: SpanExporter, serviceName = 'parley'): Tracing {
  return installTracing({ processors: [new SimpleSpanProcessor({ exporter })], serviceName, description: 'in-process exporter' });
}

function uninstall(): void {
  if (!current) return;
  trace.disable();
  propagation.disable();
  context.disable();
  current = undefined;
}

const PARLEY_VERSION = '0.1.0';

/** Tracing as the OTEL_* variables say (see `Tracing`); `service` names the process (`gateway`, `execution`, …). */
export function startTracingFromEnv(env: Env, service: string): Tracing {
  if ((envOptional(env, 'OTEL_SDK_DISABLED') ?? '').toLowerCase() === 'true') return OFF;
  const explicit = envOptional(env, 'OTEL_TRACES_EXPORTER');
  const endpoint = envOptional(env, 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT') ?? envOptional(env, 'OTEL_EXPORTER_OTLP_ENDPOINT');
  const names = (explicit ?? (endpoint ? 'otlp' : 'none'))
    .split(',')
    .map((s) => s.trim().toLowerCase())
    .filter(Boolean);
  if (names.length === 0 || names.every((n) => n === 'none')) return OFF;
  const exporters: { exporter: SpanExporter; what: string }[] = [];
  for (const n of names) {
    if (n === 'none') continue;
    if (n === 'console') exporters.push({ exporter: new ConsoleSpanExporter(), what: 'console' });
    else if (n === 'otlp') {
      const protocol = (envOptional(env, 'OTEL_EXPORTER_OTLP_TRACES_PROTOCOL') ?? envOptional(env, 'OTEL_EXPORTER_OTLP_PROTOCOL') ?? 'http/protobuf').toLowerCase();
      if (protocol === 'http/protobuf') exporters.push({ exporter: new OtlpProtoExporter(), what: `otlp http/protobuf ${endpoint ?? 'http://localhost:4318'}` });
      else if (protocol === 'http/json') exporters.push({ exporter: new OtlpJsonExporter(), what: `otlp http/json ${endpoint ?? 'http://localhost:4318'}` });
      else throw new ConfigError(`OTEL_EXPORTER_OTLP_PROTOCOL "${protocol}" is not supported: use http/protobuf or http/json (a collector's OTLP/HTTP receiver)`);
    } else throw new ConfigError(`OTEL_TRACES_EXPORTER "${n}" is not supported: use otlp, console or none`);
  }
  const bsp = {
    scheduledDelayMillis: envInt(env, 'OTEL_BSP_SCHEDULE_DELAY', 5000, { min: 0 }),
    maxQueueSize: envInt(env, 'OTEL_BSP_MAX_QUEUE_SIZE', 2048, { min: 1 }),
    maxExportBatchSize: envInt(env, 'OTEL_BSP_MAX_EXPORT_BATCH_SIZE', 512, { min: 1 }),
    exportTimeoutMillis: envInt(env, 'OTEL_BSP_EXPORT_TIMEOUT', 30_000, { min: 1 }),
  };
  if (bsp.maxExportBatchSize > bsp.maxQueueSize) bsp.maxExportBatchSize = bsp.maxQueueSize;
  const fromEnv = detectResources({ detectors: [envDetector] }).attributes;
  const attributes: Record<string, string> = {};
  for (const [k, v] of Object.entries(fromEnv)) if (typeof v === 'string') attributes[k] = v;
  const serviceName = attributes[ATTR_SERVICE_NAME] ?? `parley-${service}`;
  return installTracing({
    processors: exporters.map((e) => new BatchSpanProcessor({ exporter: e.exporter, ...bsp })),
    serviceName,
    sampler: samplerFromEnv(env),
    propagator: propagatorFromEnv(env),
    attributes: { ...attributes, [ATTR_SERVICE_NAME]: serviceName },
    description: exporters.map((e) => e.what).join(', '),
  });
}

function samplerFromEnv(env: Env): Sampler {
  const name = (envOptional(env, 'OTEL_TRACES_SAMPLER') ?? 'parentbased_always_on').toLowerCase();
  const argRaw = envOptional(env, 'OTEL_TRACES_SAMPLER_ARG');
  const ratio = (): number => {
    if (argRaw === undefined) return 1;
    const r = Number(argRaw);
    if (!Number.isFinite(r) || r < 0 || r > 1) throw new ConfigError(`OTEL_TRACES_SAMPLER_ARG must be a number between 0 and 1, got "${argRaw}"`);
    return r;
  };
  switch (name) {
    case 'always_on':
      return new AlwaysOnSampler();
    case 'always_off':
      return new AlwaysOffSampler();
    case 'traceidratio':
      return new TraceIdRatioBasedSampler(ratio());
    case 'parentbased_always_on':
      return new ParentBasedSampler({ root: new AlwaysOnSampler() });
    case 'parentbased_always_off':
      return new ParentBasedSampler({ root: new AlwaysOffSampler() });
    case 'parentbased_traceidratio':
      return new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(ratio()) });
    default:
      throw new ConfigError(`OTEL_TRACES_SAMPLER "${name}" is not supported`);
  }
}

function propagatorFromEnv(env: Env): TextMapPropagator | null {
  const names = (envOptional(env, 'OTEL_PROPAGATORS') ?? 'tracecontext,baggage').split(',').map((s) => s.trim().toLowerCase()).filter(Boolean);
  if (names.includes('none')) return null;
  const list: TextMapPropagator[] = [];
  for (const n of names) {
    if (n === 'tracecontext') list.push(new W3CTraceContextPropagator());
    else if (n === 'baggage') list.push(new W3CBaggagePropagator());
    else throw new ConfigError(`OTEL_PROPAGATORS "${n}" is not supported: use tracecontext, baggage or none`);
  }
  return new CompositePropagator({ propagators: list });
}
