import type { Authenticator } from '@parley/auth';
import { SemanticPoolServiceService, bindDeadLetters, bindService, startGrpcServer, type SemanticPoolApi } from '@parley/contracts';
import type { Embedder } from '@parley/embeddings';
import { EventType, appendedToOutbox, consumeIdempotently, createOutboxRelay, serviceEventFlow, type Bus, type DeadLetterOffice, type Stoppable, type Subjects } from '@parley/events';
import type { SemanticPoolConfig } from '@parley/pool';
import { scenarioId } from '@parley/protocol';
import { ephemeralSealer, type Clock, type EventFlowConfig, type Logger, type Metrics, type PoolScenarioFigures } from '@parley/runtime';
import { afterCommit, migrate, type Db } from '@parley/storage';
import type { VectorIndex } from '@parley/vectors';
import { DEFAULT_RAW_RETENTION_MS, createPoolService, type PoolService, type RawFragmentsPolicy } from './service';

export { DEFAULT_RAW_RETENTION_MS, createPoolService, type PoolService, type PoolServiceDeps, type RawFragmentsPolicy } from './service';
export { poolConfigFromEnv, rawFragmentsFromEnv } from './env';

export interface SemanticPoolDeps {
  db: Db;
  bus: Bus;
  subjects: Subjects;
  embedder: Embedder;
  index: VectorIndex;
  clock: Clock;
  log: Logger;
  config?: SemanticPoolConfig;
  /** Scenario ids this replica owns (default all): scale the pool per scenario. */
  scenarios?: readonly string[];
  /** How often heat is sampled for the operator's heat-over-time view (default 1 h; 0 = never). */
  heatSampleMs?: number;
  /**
   * Raw fragments at rest (zhou §7): sealed with `sealer`, or not stored (sealer
   * null), deleted after `retentionMs` (default 30 days). Left out (embedded
   * mode): sealed with a key made up at start, logged as ephemeral; raw text
   * stored by an earlier run is then unreadable to operators.
   */
  raw?: { sealer: RawFragmentsPolicy['sealer']; retentionMs?: number };
  /** How often raw text past its retention is deleted (default 1 h; 0 = never, e.g. tests that call purgeRawText). */
  rawPurgeMs?: number;
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

export interface RunningSemanticPool {
  port: number;
  api: SemanticPoolApi;
  service: PoolService;
  /** The pool's dead letters (operators: DeadLetterService on the same gRPC port). */
  deadLetters: DeadLetterOffice;
  drainOutbox(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * Starts the pool: migrates `pool`, rebuilds memory from the input log, then
 * consumes `other.captured` (durable, idempotent by event id) and the patch
 * events that say what became of matured clusters.
 */
export async function startSemanticPool(deps: SemanticPoolDeps): Promise<RunningSemanticPool> {
  await migrate(deps.db, 'pool');
  const raw: RawFragmentsPolicy = deps.raw
    ? { sealer: deps.raw.sealer, retentionMs: deps.raw.retentionMs ?? DEFAULT_RAW_RETENTION_MS }
    : { sealer: ephemeralSealer(), retentionMs: DEFAULT_RAW_RETENTION_MS };
  if (!deps.raw) deps.log.warn('raw fragments are sealed with an ephemeral key made up at start: set PARLEY_DATA_KEY to read them after a restart (zhou §7)', { kid: raw.sealer?.kid });
  // Dead letters (zhou §6.2 event flow): a fragment the pool cannot take (an embedder that throws on it) is set
  // aside after its attempts, never folded into the log, and the fragments after it are processed.
  const flow = serviceEventFlow({ db: deps.db, schema: 'pool', subjects: deps.subjects, now: () => deps.clock.now(), logger: deps.log, ...deps.eventFlow, outbox: true, bus: deps.bus, metrics: deps.metrics, service: 'semantic-pool' });
  const relay = createOutboxRelay({
    db: deps.db,
    schema: 'pool',
    bus: deps.bus,
    ...flow.relay,
    onError: (e: unknown) => {
      deps.metrics?.outboxFailed('semantic-pool');
      deps.log.warn('outbox publish failed; will retry', { error: String(e) });
    },
    ...(deps.metrics ? { onPublished: (p: { lagSeconds: number }) => deps.metrics?.outboxPublished('semantic-pool', p.lagSeconds) } : {}),
  });
  const service = await createPoolService({
    db: deps.db,
    subjects: deps.subjects,
    embedder: deps.embedder,
    index: deps.index,
    clock: deps.clock,
    log: deps.log,
    ...(deps.config ? { config: deps.config } : {}),
    ...(deps.scenarios ? { scenarios: deps.scenarios } : {}),
    raw,
  });
  await service.secureStoredRawText();
  await service.purgeRawText();
  await service.rebuild();
  relay.start();
  const capturedSubjects = deps.scenarios
    ? deps.scenarios.map((s) => deps.subjects.event(scenarioId(s), EventType.OtherCaptured))
    : [deps.subjects.eventAllScenarios(EventType.OtherCaptured)];
  const owner = deps.scenarios ? `-${deps.scenarios.map((s) => scenarioId(s)).sort().join('-')}`.slice(0, 80) : '';
  const consumers: Stoppable[] = [];
  consumers.push(
    await consumeIdempotently(
      {
        bus: deps.bus,
        db: deps.db,
        schema: 'pool',
        ...flow.consumer,
        ...(deps.retryDelayMs !== undefined ? { retryDelayMs: deps.retryDelayMs } : {}),
        durable: `${deps.subjects.prefix}-semantic-pool${owner}`,
        filterSubjects: capturedSubjects,
        // Memory follows the committed log: one batch at a time, and a failed
        // transaction (commit included) folds the log again before the redelivery.
        serialize: (w) => service.serialize(w),
        onRollback: async (e) => {
          deps.log.warn('pool transaction failed; rebuilding from the log', { error: String(e) });
          await service.rebuild();
        },
        // A delivery's processed marks and its fragments go to the log in one statement (a failed call is taken
        // one event at a time; events found applied before are taken with their marks read first).
        applyMarked: async (batch, db, marks) => {
          const appended = await service.onOtherCapturedMarked(
            batch.flatMap(({ event }) => (event.type === EventType.OtherCaptured ? [event] : [])),
            batch.map(({ event }) => event.id),
            db,
            marks,
          );
          if (appended) setImmediate(() => relay.nudge());
        },
      },
      async (event, tx) => {
        if (event.type !== EventType.OtherCaptured) return;
        await service.onOtherCaptured(event, tx);
        // The relay runs after the commit the consumer makes, when it appended events (a pattern matured).
        if (appendedToOutbox(tx)) afterCommit(tx, () => relay.nudge());
      },
    ),
  );
  consumers.push(
    await consumeIdempotently(
      {
        bus: deps.bus,
        db: deps.db,
        schema: 'pool',
        ...flow.consumer,
        durable: `${deps.subjects.prefix}-semantic-pool-outcomes${owner}`,
        filterSubjects: [deps.subjects.eventAllScenarios(EventType.PatchPublished)],
        // The mutex before the transaction, as the captured consumer takes them: the other order deadlocks on a
        // one-connection database (PGlite), where this transaction would wait for the mutex a captured unit
        // holds while that unit waits for the connection.
        serialize: (w) => service.serialize(w),
        onRollback: async (e) => {
          deps.log.warn('pool outcome transaction failed; rebuilding from the log', { error: String(e) });
          await service.rebuild();
        },
      },
      (event, tx) => service.onPatchEvent(event, tx),
    ),
  );
  const every = deps.heatSampleMs ?? 3_600_000;
  const timer = every > 0 ? setInterval(() => void service.sampleHeat().catch((e: unknown) => deps.log.warn('heat sampling failed', { error: String(e) })), every) : undefined;
  timer?.unref();
  // zhou §7: raw text is kept for the retention period only.
  const purgeEvery = deps.rawPurgeMs ?? 3_600_000;
  const purgeTimer = purgeEvery > 0 ? setInterval(() => void service.purgeRawText().catch((e: unknown) => deps.log.warn('raw fragment retention sweep failed', { error: String(e) })), purgeEvery) : undefined;
  purgeTimer?.unref();
  const server = await startGrpcServer({
    ...(deps.grpcHost ? { host: deps.grpcHost } : {}),
    port: deps.grpcPort,
    ...(deps.grpcTls ? { tls: deps.grpcTls } : {}),
    services: [
      bindService(SemanticPoolServiceService, service.api, { authenticator: deps.authenticator, ...(deps.metrics ? { observe: deps.metrics.grpc } : {}) }),
      bindDeadLetters('semantic-pool', flow.office, deps.authenticator),
    ],
  });
  // Metrics read on scrape: the outbox by SQL, the pool's figures from its memory (zhou §6.2.1).
  const unwatch = deps.metrics
    ? [deps.metrics.watchOutbox('semantic-pool', deps.db, 'pool'), deps.metrics.watchPool(() => poolFigures(service, deps.clock.now().getTime()), service.pool().config.heat_threshold)]
    : [];
  flow.pruner.start();
  deps.log.info('semantic pool serving', {
    grpc_port: server.port,
    embedder: deps.embedder.id,
    ...(deps.embedder.description ? { embedder_description: deps.embedder.description } : {}),
    similarity_threshold: service.pool().config.similarity_threshold,
    index: deps.index.kind,
    scenarios: deps.scenarios ?? 'all',
    raw_fragments: raw.sealer ? { sealed_with: raw.sealer.kid, ephemeral_key: raw.sealer.ephemeral, retention_days: raw.retentionMs / 86_400_000 } : 'not stored',
  });
  return {
    port: server.port,
    api: service.api,
    service,
    deadLetters: flow.office,
    drainOutbox: () => relay.drain(),
    async stop() {
      await flow.pruner.stop();
      for (const u of unwatch) u();
      if (timer) clearInterval(timer);
      if (purgeTimer) clearInterval(purgeTimer);
      await server.stop();
      for (const c of consumers) await c.stop();
      await Promise.race([relay.drain().catch(() => {}), new Promise((r) => setTimeout(r, 3000).unref())]);
      await relay.stop().catch(() => {});
    },
  };
}

/** Per scenario: fragments in the global pool, clusters by scope, the hottest heats, clusters past the gate. */
export function poolFigures(service: PoolService, now: number): PoolScenarioFigures[] {
  const by = new Map<string, { fragments: number; global: number; client: number; heats: number[]; triggers: number }>();
  for (const c of service.pool().clusters(now)) {
    let f = by.get(c.scenario);
    if (!f) by.set(c.scenario, (f = { fragments: 0, global: 0, client: 0, heats: [], triggers: 0 }));
    if (c.scope === 'global') {
      f.global++;
      f.fragments += c.size;
    } else f.client++;
    f.heats.push(c.heat);
    if (c.triggered) f.triggers++;
  }
  return [...by].map(([scenario, f]) => ({
    scenario,
    fragments: f.fragments,
    clusters: { global: f.global, client: f.client },
    hottest: f.heats.sort((a, b) => b - a).slice(0, 5),
    triggers: f.triggers,
  }));
}
