// The services of the one-process mode (embedded.ts), each started as its separate
// process starts it: the same code, gRPC on a loopback port the OS picks (called in
// process by default: embeddedTransport), the figures given or read from the environment the same way. What differs from the
// separate processes is named where it happens (development defaults).
import type { Authenticator, JwtVerifier } from '@parley/auth';
import { createGrpcClient, type GrpcClient, type GrpcTransport, type NegotiationApi } from '@parley/contracts';
import type { Embedder } from '@parley/embeddings';
import { loadWordNetLexicon } from '@parley/embeddings';
import type { Bus, Subjects } from '@parley/events';
import { evolverConfigFromEnv, startEvolution, type RunningEvolution } from '@parley/evolution-service';
import { startExecution, type RunningExecution } from '@parley/execution';
import { createLlmFromEnv } from '@parley/llm';
import type { EvolverConfig, SemanticPoolConfig } from '@parley/pool';
import { startRegistry, type RunningRegistry } from '@parley/registry';
import { ConfigError, type Clock, type EventFlowConfig, type Logger, type Metrics } from '@parley/runtime';
import { poolConfigFromEnv, rawFragmentsFromEnv, startSemanticPool, type RunningSemanticPool } from '@parley/semantic-pool';
import type { Db } from '@parley/storage';
import type { VectorIndex } from '@parley/vectors';

/** What every service of the process shares: storage, the bus, the clock, the event flow's limits, metrics. */
export interface ServiceCommon {
  db: Db;
  bus: Bus;
  subjects: Subjects;
  clock: Clock;
  eventFlow: EventFlowConfig;
  grpcHost: string;
  grpcPort: 0;
  metrics?: Metrics;
}

/**
 * How the process's services call each other (PARLEY_EMBEDDED_TRANSPORT): `inproc` (the default) calls the
 * server's own handlers in this process with every gRPC contract kept (libs/contracts grpc.ts); `grpc` goes
 * over HTTP/2 on loopback as separate processes do. Either way each service still listens on its gRPC port.
 */
export function embeddedTransport(given: GrpcTransport | undefined, env: Record<string, string | undefined> = process.env): GrpcTransport {
  if (given !== undefined) return given;
  const v = env['PARLEY_EMBEDDED_TRANSPORT'];
  if (v === undefined || v === '' || v === 'inproc') return 'inproc';
  if (v === 'grpc') return 'grpc';
  throw new ConfigError(`PARLEY_EMBEDDED_TRANSPORT must be inproc or grpc (got "${v.slice(0, 100)}")`);
}

/** The gRPC clients the process makes to its own services, with the services' token; closed together at stop. */
export function grpcClients(host: string, serviceToken: string, transport: GrpcTransport = 'grpc') {
  const clients: GrpcClient<never>[] = [];
  return {
    grpc<S extends Parameters<typeof createGrpcClient>[0]>(def: S, port: number, deadlineMs?: number) {
      const c = createGrpcClient(def, `${host}:${port}`, { credential: serviceToken, transport, ...(deadlineMs !== undefined ? { deadlineMs } : {}) });
      clients.push(c as unknown as GrpcClient<never>);
      return c;
    },
    close(): void {
      for (const c of clients) c.close();
    },
  };
}

/** Identity (draft-zhou §7 authentication) as the process holds it. */
export interface EmbeddedIdentity {
  tenant: string;
  serviceToken: string;
  devKey: string;
  cacheMs: number;
  jwt?: JwtVerifier | undefined;
}

/** The registry, holding API keys: the development key is bootstrapped with every role as the principal `dev`. */
export function startEmbeddedRegistry(common: ServiceCommon, log: Logger, id: EmbeddedIdentity): Promise<RunningRegistry> {
  return startRegistry({
    ...common,
    log: log.child({ service: 'registry' }),
    auth: {
      tenant: id.tenant,
      serviceToken: id.serviceToken,
      cacheMs: id.cacheMs,
      ...(id.jwt ? { jwt: id.jwt } : {}),
      bootstrap: [{ key: id.devKey, principal: 'dev', roles: ['operator', 'server_agent', 'client_agent'], agents: ['*'], scenarios: ['*'], description: "the embedded mode's development key (PARLEY_DEV_KEY)" }],
    },
  });
}

/** Execution (draft-zhou §3.2), with the one-process mode's development defaults for audits and webhooks. */
export function startEmbeddedExecution(common: ServiceCommon, log: Logger, negotiation: NegotiationApi, authenticator: Authenticator, timeoutMs: number): Promise<RunningExecution> {
  const env = process.env;
  return startExecution({
    ...common,
    negotiation,
    log: log.child({ service: 'execution' }),
    timeoutMs,
    authenticator,
    // Safe retries of execute: PARLEY_IDEMPOTENCY_TTL_MS as in the separate process (default 24 h).
    ...(env['PARLEY_IDEMPOTENCY_TTL_MS'] ? { idempotencyTtlMs: Number(env['PARLEY_IDEMPOTENCY_TTL_MS']) } : {}),
    // Audit samples store patch-key values (draft-zhou §7, sensitive data at rest: only where enabled): every scenario in the one-process
    // development mode unless AUDIT_SCENARIOS says otherwise.
    auditScenarios: (env['AUDIT_SCENARIOS'] ?? '*').split(',').map((x) => x.trim()).filter(Boolean),
    // Webhook URL policy: PARLEY_WEBHOOK_ALLOW as in the separate process; a development default that allows loopback receivers.
    // The deliverers look for due deliveries no nudge announced as often as the relays (embedded.ts embeddedEventFlow).
    tasks: { webhooks: { allow: env['PARLEY_WEBHOOK_ALLOW'] || 'http://127.0.0.1:*,http://localhost:*,http://[::1]:*,https://127.0.0.1:*,https://localhost:*,https://[::1]:*', pollMs: common.eventFlow.outboxPollMs } },
  });
}

export interface SelfEvolutionOptions {
  embedder: Embedder;
  index: VectorIndex;
  negotiation: NegotiationApi;
  authenticator: Authenticator;
  /** The figures as given (EmbeddedOptions.evolution), else from the environment. */
  given?: { pool?: SemanticPoolConfig; evolver?: EvolverConfig; tickMs?: number; heatSampleMs?: number } | undefined;
}

/** Schema self-evolution (draft-zhou §6.2): the pool feeds on other.captured, the evolver on pool.matured. */
export async function startSelfEvolution(common: ServiceCommon, log: Logger, o: SelfEvolutionOptions): Promise<{ semanticPool: RunningSemanticPool; evolution: RunningEvolution }> {
  const env = process.env;
  const semanticPool = await startSemanticPool({
    ...common,
    embedder: o.embedder,
    index: o.index,
    log: log.child({ service: 'semantic-pool' }),
    // The §6.2.1 figures as given, else from the environment as the separate process reads them (PARLEY_HEAT_THRESHOLD, …).
    config: o.given?.pool ?? poolConfigFromEnv(env),
    ...(o.given?.heatSampleMs !== undefined ? { heatSampleMs: o.given.heatSampleMs } : {}),
    // zhou §7: with PARLEY_DATA_KEY (or PARLEY_STORE_RAW_FRAGMENTS=false) as in the separate process;
    // otherwise raw fragments are sealed with a key made up at start.
    ...(env['PARLEY_DATA_KEY'] || env['PARLEY_STORE_RAW_FRAGMENTS'] === 'false' ? { raw: rawFragmentsFromEnv(env) } : {}),
    authenticator: o.authenticator,
  });
  const llm = createLlmFromEnv(env, await loadWordNetLexicon());
  const evolution = await startEvolution({
    ...common,
    negotiation: o.negotiation,
    log: log.child({ service: 'evolution' }),
    // As given, else from the environment as the separate process reads it (PARLEY_APPROVAL=manual holds every patch, …).
    config: o.given?.evolver ?? evolverConfigFromEnv(env),
    induce: (input) => llm.inducer.induce(input),
    judge: llm.judge ? { id: llm.judge.id, judge: (i) => (llm.judge as NonNullable<typeof llm.judge>).judge(i) } : null,
    ...(o.given?.tickMs !== undefined ? { tickMs: o.given.tickMs } : {}),
    authenticator: o.authenticator,
  });
  return { semanticPool, evolution };
}
