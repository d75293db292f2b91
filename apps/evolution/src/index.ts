import type { Authenticator } from '@parley/auth';
import { EvolutionServiceService, bindDeadLetters, bindService, startGrpcServer, type EvolutionApi, type NegotiationApi } from '@parley/contracts';
import { EventType, consumeIdempotently, createOutboxRelay, serviceEventFlow, type Bus, type DeadLetterOffice, type Stoppable, type Subjects } from '@parley/events';
import type { Lexicon } from '@parley/evolution';
import type { EvolverConfig, InduceFn } from '@parley/pool';
import type { Clock, EvolutionScenarioFigures, EventFlowConfig, Logger, Metrics } from '@parley/runtime';
import { migrate, type Db } from '@parley/storage';
import { createEvolutionService, type AuditJudgeFn, type EvolutionService, type PreparedMatured } from './service';

export { createEvolutionService, patchDocument, type AuditJudgeFn, type EvolutionService, type EvolutionServiceDeps } from './service';
export { evolverConfigFromEnv } from './env';

export interface EvolutionDeps {
  db: Db;
  bus: Bus;
  subjects: Subjects;
  negotiation: NegotiationApi;
  clock: Clock;
  log: Logger;
  config?: EvolverConfig;
  induce?: InduceFn;
  /** The rule inducer's lexicon when no `induce` is given (libs/embeddings loadWordNetLexicon); default none. */
  lexicon?: Lexicon;
  judge?: { id: string; judge: AuditJudgeFn } | null;
  /** How often the §6.2.3 lifecycle runs (default 60 s; 0 = only when `tick()` is called). */
  tickMs?: number;
  grpcHost?: string;
  grpcPort: number;
  /** Serve gRPC over TLS (PEM cert/key/ca, e.g. tlsFromEnv); default insecure. */
  grpcTls?: { cert: Buffer | string; key: Buffer | string; ca: Buffer | string } | null;
  /** Authenticates every gRPC call (draft-zhou §7): operators only (libs/auth POLICY). */
  authenticator: Authenticator;
  /** Dead-letter limits (PARLEY_OUTBOX_MAX_ATTEMPTS, PARLEY_CONSUMER_MAX_ATTEMPTS); retention (PARLEY_OUTBOX_RETENTION_MS, PARLEY_PROCESSED_RETENTION_MS, PARLEY_DEAD_LETTER_RETENTION_MS, PARLEY_RETENTION_SWEEP_MS); the relay's poll (PARLEY_OUTBOX_POLL_MS). */
  eventFlow?: Partial<Pick<EventFlowConfig, 'outboxMaxAttempts' | 'consumerMaxAttempts' | 'outboxRetentionMs' | 'processedRetentionMs' | 'deadLetterRetentionMs' | 'retentionSweepMs' | 'outboxPollMs'>>;
  /** Redelivery delay after a failed delivery (default 1000 ms). */
  retryDelayMs?: number;
  /** Prometheus metrics of the process (libs/runtime metrics.ts); optional. */
  metrics?: Metrics;
}

export interface RunningEvolution {
  port: number;
  api: EvolutionApi;
  service: EvolutionService;
  /** The service's dead letters (operators: DeadLetterService on the same gRPC port). */
  deadLetters: DeadLetterOffice;
  /** Runs the lifecycle now (tests drive time with their clock). */
  tick(): Promise<number>;
  drainOutbox(): Promise<void>;
  stop(): Promise<void>;
}

export async function startEvolution(deps: EvolutionDeps): Promise<RunningEvolution> {
  await migrate(deps.db, 'evolution');
  // Dead letters (zhou §6.2 event flow): an input the evolver cannot apply is set aside after its attempts, never
  // logged in evolution.inputs, and the inputs after it are applied.
  const flow = serviceEventFlow({ db: deps.db, schema: 'evolution', subjects: deps.subjects, now: () => deps.clock.now(), logger: deps.log, ...deps.eventFlow, outbox: true, bus: deps.bus, metrics: deps.metrics });
  const relay = createOutboxRelay({
    db: deps.db,
    schema: 'evolution',
    bus: deps.bus,
    ...flow.relay,
    onError: (e: unknown) => {
      deps.metrics?.outboxFailed('evolution');
      deps.log.warn('outbox publish failed; will retry', { error: String(e) });
    },
    ...(deps.metrics ? { onPublished: (p: { lagSeconds: number }) => deps.metrics?.outboxPublished('evolution', p.lagSeconds) } : {}),
  });
  const service = createEvolutionService({
    db: deps.db,
    subjects: deps.subjects,
    negotiation: deps.negotiation,
    clock: deps.clock,
    log: deps.log,
    ...(deps.config ? { config: deps.config } : {}),
    ...(deps.induce ? { induce: deps.induce } : {}),
    ...(deps.lexicon ? { lexicon: deps.lexicon } : {}),
    judge: deps.judge ?? null,
    onOutboxWrite: () => relay.nudge(),
  });
  await service.rebuild();
  relay.start();
  const retry = deps.retryDelayMs !== undefined ? { retryDelayMs: deps.retryDelayMs } : {};
  const guarded = {
    bus: deps.bus,
    db: deps.db,
    schema: 'evolution',
    ...flow.consumer,
    ...retry,
    // Memory follows the committed log (see service.ts).
    serialize: <T>(w: () => Promise<T>) => service.serialize(w),
    onRollback: async (e: unknown) => {
      deps.log.warn('evolution transaction failed; rebuilding from the log', { error: String(e) });
      await service.rebuild();
    },
  };
  const consumers: Stoppable[] = [];
  consumers.push(
    await consumeIdempotently(
      {
        ...guarded,
        durable: `${deps.subjects.prefix}-evolution-matured`,
        // Matured and grown clusters in one consumer, so a cluster's growth is applied after its first induction.
        filterSubjects: [deps.subjects.eventAllScenarios(EventType.PoolMatured), deps.subjects.eventAllScenarios(EventType.PoolGrown)],
        // Negotiation and the inducer are called before the transaction opens.
        prepare: async (event) => (event.type === EventType.PoolMatured || event.type === EventType.PoolGrown ? service.prepareMatured(event) : null),
      },
      async (event, tx, prepared) => {
        if (event.type === EventType.PoolMatured || event.type === EventType.PoolGrown) await service.onMatured(event, tx, prepared as PreparedMatured);
      },
    ),
  );
  consumers.push(
    await consumeIdempotently(
      {
        ...guarded,
        durable: `${deps.subjects.prefix}-evolution-executions`,
        filterSubjects: [deps.subjects.eventAllScenarios(EventType.PayloadExecuted)],
        // Most executions touch no patch key's counters (draft-zhou §6.2.3): they cost no transaction.
        concerns: (event) => event.type === EventType.PayloadExecuted && service.concernsExecution(event),
      },
      async (event, tx) => {
        if (event.type === EventType.PayloadExecuted) await service.onExecuted(event, tx);
      },
    ),
  );
  consumers.push(
    await consumeIdempotently({ bus: deps.bus, db: deps.db, schema: 'evolution', ...flow.consumer, ...retry, durable: `${deps.subjects.prefix}-evolution-audits`, filterSubjects: [deps.subjects.eventAllScenarios(EventType.AuditSampled)] }, async (event, tx) => {
      if (event.type !== EventType.AuditSampled) return;
      const judgeNext = await service.onAuditSampled(event, tx);
      // The LLM judge runs after the commit; a failure leaves the sample pending for operators.
      if (judgeNext) setImmediate(() => void service.judgePending(judgeNext).catch((e: unknown) => deps.log.warn('audit judge failed; sample left to operators', { sample: judgeNext, error: String(e) })));
    }),
  );
  const every = deps.tickMs ?? 60_000;
  const timer = every > 0 ? setInterval(() => void service.tick().catch((e: unknown) => deps.log.warn('lifecycle tick failed', { error: String(e) })), every) : undefined;
  timer?.unref();
  const server = await startGrpcServer({
    ...(deps.grpcHost ? { host: deps.grpcHost } : {}),
    port: deps.grpcPort,
    ...(deps.grpcTls ? { tls: deps.grpcTls } : {}),
    services: [
      bindService(EvolutionServiceService, service.api, { authenticator: deps.authenticator, ...(deps.metrics ? { observe: deps.metrics.grpc } : {}) }),
      bindDeadLetters('evolution', flow.office, deps.authenticator),
    ],
  });
  // Metrics read on scrape: the outbox and pending audits by SQL, patches and keys from memory (zhou §6.2.2, §6.2.3).
  const unwatch = deps.metrics
    ? [deps.metrics.watchOutbox('evolution', deps.db, 'evolution'), deps.metrics.watchAudits(deps.db), deps.metrics.watchEvolution(() => evolutionFigures(service))]
    : [];
  flow.pruner.start();
  deps.log.info('evolution serving', { grpc_port: server.port, approval: service.evolver().approval, judge: deps.judge?.id ?? 'operators only', tick_ms: every });
  return {
    port: server.port,
    api: service.api,
    service,
    deadLetters: flow.office,
    tick: () => service.tick(),
    drainOutbox: () => relay.drain(),
    async stop() {
      await flow.pruner.stop();
      for (const u of unwatch) u();
      if (timer) clearInterval(timer);
      await server.stop();
      for (const c of consumers) await c.stop();
      await Promise.race([relay.drain().catch(() => {}), new Promise((r) => setTimeout(r, 3000).unref())]);
      await relay.stop().catch(() => {});
    },
  };
}

/** Per scenario: patches by status and patch keys by lifecycle state, from the evolver's memory. */
export function evolutionFigures(service: EvolutionService): EvolutionScenarioFigures[] {
  const by = new Map<string, { patches: Map<string, number>; keys: Map<string, number> }>();
  const bump = (m: Map<string, number>, k: string) => m.set(k, (m.get(k) ?? 0) + 1);
  for (const sc of service.evolver().scenarios) by.set(sc, { patches: new Map(), keys: new Map() });
  for (const r of service.evolver().patches()) {
    const sc = r.patch.scenario;
    let f = by.get(sc);
    if (!f) by.set(sc, (f = { patches: new Map(), keys: new Map() }));
    bump(f.patches, r.status);
    if (r.status === 'active') for (const k of r.patch.new_keys) bump(f.keys, k.lifecycle.state);
  }
  return [...by].map(([scenario, f]) => ({ scenario, patches: Object.fromEntries(f.patches), keys: Object.fromEntries(f.keys) }));
}
