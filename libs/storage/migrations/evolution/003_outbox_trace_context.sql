-- OpenTelemetry trace context of the transaction that wrote an event (W3C traceparent,
-- tracestate, baggage as a JSON object; NULL when tracing is off): the outbox relay
-- publishes the event in that trace, so one request's trace reaches every consumer of
-- the events it caused (libs/events outbox.ts, tracing.ts).
ALTER TABLE evolution.outbox ADD COLUMN trace_context text;
