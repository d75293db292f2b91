import { ROOT_CONTEXT, SpanKind, SpanStatusCode, context, propagation, trace, type Context, type Span, type TextMapGetter, type TextMapSetter } from '@opentelemetry/api';

/**
 * Trace context across the bus (OpenTelemetry messaging semantic conventions):
 * a PRODUCER span `send <subject>` around every request to an agent and every
 * event publication, its context carried in the message's headers as W3C
 * `traceparent` (and `tracestate`, `baggage`); a CONSUMER span `process
 * <subject>` around every request served and every event delivered to a
 * durable consumer, the child of the context the headers carry. The outbox
 * keeps the context of the transaction that wrote an event (`trace_context`),
 * so the relay's `send` span continues the trace of the change that caused it.
 * All of it is a no-op until a process registers an SDK (libs/runtime tracing.ts).
 */
/** The tracer, asked of the global provider at each use: a provider installed (or replaced) after this module loaded is the one used. */
export const tracer = () => trace.getTracer('@parley/events');

/** Headers as a plain map (the in-process bus, the outbox's stored context). */
export type Carrier = Record<string, string>;

export const carrierGetter: TextMapGetter<Carrier> = {
  keys: (c) => Object.keys(c),
  get: (c, k) => (Object.prototype.hasOwnProperty.call(c, k) ? c[k] : undefined),
};
export const carrierSetter: TextMapSetter<Carrier> = {
  set: (c, k, v) => {
    c[k] = v;
  },
};

interface MessagingSpanOptions {
  /** The subject (messaging.destination.name). */
  subject: string;
  /** The event id (messaging.message.id). */
  messageId?: string;
  /** A queue group or durable consumer (messaging.consumer.group.name). */
  group?: string;
  /** Parent context (default: the active one). */
  parent?: Context;
}

function attributes(op: 'send' | 'process', o: MessagingSpanOptions): Record<string, string> {
  return {
    'messaging.system': 'nats',
    'messaging.operation.type': op,
    'messaging.operation.name': op,
    'messaging.destination.name': o.subject,
    ...(o.messageId !== undefined ? { 'messaging.message.id': o.messageId } : {}),
    ...(o.group !== undefined ? { 'messaging.consumer.group.name': o.group } : {}),
  };
}

/** A `send <subject>` PRODUCER span and the headers that carry its context (undefined when there is no trace). */
export function startSend(o: MessagingSpanOptions): { span: Span; carrier: Carrier | undefined } {
  const parent = o.parent ?? context.active();
  const span = tracer().startSpan(`send ${o.subject}`, { kind: SpanKind.PRODUCER, attributes: attributes('send', o) }, parent);
  if (!trace.isSpanContextValid(span.spanContext())) return { span, carrier: undefined };
  const carrier: Carrier = {};
  propagation.inject(trace.setSpan(parent, span), carrier, carrierSetter);
  return { span, carrier: Object.keys(carrier).length > 0 ? carrier : undefined };
}

/** A `process <subject>` CONSUMER span, child of the context `carrier` holds (a new trace without one). */
export function startProcess(o: MessagingSpanOptions, carrier: Carrier | undefined): { span: Span; ctx: Context } {
  const parent = carrier ? propagation.extract(ROOT_CONTEXT, carrier, carrierGetter) : ROOT_CONTEXT;
  const span = tracer().startSpan(`process ${o.subject}`, { kind: SpanKind.CONSUMER, attributes: attributes('process', o) }, parent);
  return { span, ctx: trace.setSpan(parent, span) };
}

export function endSpan(span: Span, err?: unknown, errorType?: string): void {
  if (err !== undefined) {
    const type = errorType ?? ((err as { type?: unknown }).type !== undefined ? String((err as { type?: unknown }).type) : 'error');
    span.setAttribute('error.type', type);
    span.setStatus({ code: SpanStatusCode.ERROR, message: (err instanceof Error ? err.message : String(err)).slice(0, 200) });
  }
  span.end();
}

/** The active context as a carrier (for the outbox's trace_context), or null when there is no trace. */
export function currentCarrier(): Carrier | null {
  const sc = trace.getSpanContext(context.active());
  if (!sc || !trace.isSpanContextValid(sc)) return null;
  const carrier: Carrier = {};
  propagation.inject(context.active(), carrier, carrierSetter);
  return Object.keys(carrier).length > 0 ? carrier : null;
}

/** The context a stored carrier holds (ROOT when none). */
export function contextOf(carrier: Carrier | null | undefined): Context {
  return carrier ? propagation.extract(ROOT_CONTEXT, carrier, carrierGetter) : ROOT_CONTEXT;
}
