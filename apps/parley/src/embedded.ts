import { createJwtVerifier, mintApiKey, parseApiKey, parseJwtIssuers, type Authenticator, type JwtIssuer } from '@parley/auth';
import {
  AgentProfileServiceService,
  ApiKeyServiceService,
  EventSubscriptionServiceService,
  DeadLetterServiceService,
  EvolutionServiceService,
  ExecutionServiceService,
  NegotiationServiceService,
  RegistryServiceService,
  SemanticPoolServiceService,
  TaskServiceService,
  createGrpcClient,
  type GrpcClient,
} from '@parley/contracts';
import { evolverConfigFromEnv, startEvolution, type RunningEvolution } from '@parley/evolution-service';
import { createLlmFromEnv } from '@parley/llm';
import type { EvolverConfig, SemanticPoolConfig } from '@parley/pool';
import { poolConfigFromEnv, rawFragmentsFromEnv, startSemanticPool, type RunningSemanticPool } from '@parley/semantic-pool';
import { createVectorIndexFromEnv, type VectorIndex } from '@parley/vectors';
import { EXAMPLE_SCENARIOS, registerExampleAgent, startExampleAgent } from '@parley/example-agents';
import { startExecution, type RunningExecution } from '@parley/execution';
import { createEmbedderFromEnv, type Embedder, loadWordNetLexicon } from '@parley/embeddings';
import { createMemoryBus, createNatsBus, createSubjects, type Bus, type Subjects } from '@parley/events';
import { gatewayHttpDeps, startGateway } from '@parley/gateway';
import { startNegotiation } from '@parley/negotiation';
import { startRegistry } from '@parley/registry';
import { apiKeysViaRegistry, createAuthenticator, eventFlowFromEnv, fetchJwks, createLogger, generateServiceToken, systemClock, type Clock, type HealthState, type Logger } from '@parley/runtime';
import { createMetrics, type GatewayHttpConfig, type Metrics } from '@parley/runtime';
import { createPgliteDb, openDb, type Db } from '@parley/storage';
import type { Agent } from '@parley/agent-sdk';

/**
 * Every Parley service in one process. The services are the same code as the
 * separate processes, and they still talk to each other over gRPC (on loopback
 * ports the OS picks) and over the bus; only the adapters change:
 * PGlite instead of PostgreSQL and the in-process bus instead of NATS, unless
 * `databaseUrl` / `natsUrl` name real ones.
 */
export interface EmbeddedOptions {
  port?: number;
  host?: string;
  /** postgres://… to use a server; default PGlite (in memory, or in `dataDir`). */
  databaseUrl?: string;
  dataDir?: string;
  /** nats://… to use NATS JetStream; default the in-process bus. */
  natsUrl?: string;
  prefix?: string;
  /** Start the example agents and publish the seeded scenarios (default true). */
  seed?: boolean;
  executeTimeoutMs?: number;
  maxBodyBytes?: number;
  clock?: Clock;
  log?: Logger;
  /** Embedder for the semantic pool and MCP tool selection (default from PARLEY_EMBEDDER: the offline one). */
  embedder?: Embedder;
  /** Vector index of the semantic pool (default from QDRANT_URL: the embedded one). */
  index?: VectorIndex;
  /** Schema self-evolution (draft-zhou §6.2): pool and evolver figures, lifecycle tick period (default 60 s). */
  evolution?: { pool?: SemanticPoolConfig; evolver?: EvolverConfig; tickMs?: number; heatSampleMs?: number };
  /**
   * The development API key (draft-zhou §7 authentication): every role (operator, server agent for every
   * name and scenario, client agent) as the principal `dev`. Default PARLEY_DEV_KEY,
   * else one made at start (and printed by `npm start`).
   */
  devKey?: string;
  /** This deployment's tenant (default PARLEY_TENANT, else `default`). */
  tenant?: string;
  /** How long a verified credential is trusted before it is checked again (default 2000 ms). */
  authCacheMs?: number;
  /** JWT issuers (libs/auth JwtIssuer; default from PARLEY_JWT_ISSUERS). */
  jwtIssuers?: JwtIssuer[];
  /** The gateway's per-principal rate limit (default 50/s, burst 100; null: off, and so is the bound on requests in flight per principal). */
  rateLimit?: { ratePerSecond: number; burst: number } | null;
  /**
   * The gateway's HTTP settings as the separate gateway reads them (libs/runtime gatewayHttpFromEnv:
   * MAX_BODY_BYTES, MAX_BATCH, RATE_LIMIT_*, PARLEY_MAX_INFLIGHT_PER_PRINCIPAL, PARLEY_HTTP_*_TIMEOUT_MS,
   * PARLEY_TLS_* for HTTPS, PUBLIC_URL, PARLEY_ALLOWED_HOSTS); `rateLimit` and `maxBodyBytes`, when given, win.
   */
  http?: GatewayHttpConfig;
  /**
   * Replaces the authenticator of the gateway and every service (default: API keys at
   * the registry, JWTs, the service token). For benchmarks that measure the cost of
   * authentication against a baseline; never needed to run Parley.
   */
  authenticator?: Authenticator;
  /**
   * The process's Prometheus metrics, shared by every service and served at the
   * gateway's GET /metrics (default: made here; null: none, as PARLEY_METRICS=off).
   */
  metrics?: Metrics | null;
}

export interface EmbeddedParley {
  url: string;
  /** Plain HTTP on 127.0.0.1 when the gateway serves HTTPS (the process's own calls); else url. */
  loopbackUrl: string;
  /** The development API key (all roles, principal `dev`): `Authorization: Bearer <devKey>`. */
  devKey: string;
  /** The services' shared credential, made at start (role `service`; tests use it to call the gRPC API). */
  serviceToken: string;
  tenant: string;
  /** The services' gRPC ports on 127.0.0.1 (every call needs credentials, as through the gateway). */
  grpcPorts: { registry: number; negotiation: number; execution: number; semanticPool: number; evolution: number };
  /** Which embedder the semantic pool and MCP tool selection use. */
  embedderId: string;
  port: number;
  db: Db;
  bus: Bus;
  subjects: Subjects;
  execution: RunningExecution;
  semanticPool: RunningSemanticPool;
  evolution: RunningEvolution;
  agents: Agent[];
  /** The metrics every service records into (absent when turned off). */
  metrics?: Metrics;
  stop(): Promise<void>;
}

export async function startParley(opts: EmbeddedOptions = {}): Promise<EmbeddedParley> {
  const log = opts.log ?? createLogger({ level: 'info' });
  const clock = opts.clock ?? systemClock;
  const subjects = createSubjects(opts.prefix ?? 'parley');
  const db = opts.databaseUrl ? await openDb(opts.databaseUrl, { applicationName: 'parley-embedded' }) : await createPgliteDb(opts.dataDir);
  // The event flow's limits as the separate services read them (PARLEY_STREAM_MAX_*, PARLEY_*_MAX_ATTEMPTS).
  const eventFlow = eventFlowFromEnv(process.env);
  const bus = opts.natsUrl
    ? await createNatsBus({ servers: opts.natsUrl, retention: eventFlow.retention, subjects, name: 'parley-embedded' })
    : createMemoryBus({ subjects });
  const grpcHost = '127.0.0.1';
  const metrics = opts.metrics === null ? undefined : (opts.metrics ?? createMetrics());
  const withMetrics = metrics ? { metrics } : {};
  // One bus for every service: its durable consumers' lag is read on scrape.
  metrics?.watchConsumers(() => bus.consumerLag?.() ?? Promise.resolve([]));
  const clients: GrpcClient<never>[] = [];
  const client = <S,>(c: S): S => {
    clients.push(c as unknown as GrpcClient<never>);
    return c;
  };

  // Identity (draft-zhou §7 authentication): the services' shared token is made per process; the development key is
  // PARLEY_DEV_KEY or made here, and holds every role as the principal `dev`.
  const tenant = opts.tenant ?? process.env['PARLEY_TENANT'] ?? 'default';
  const serviceToken = generateServiceToken();
  const devKey = opts.devKey ?? process.env['PARLEY_DEV_KEY'] ?? mintApiKey().key;
  if (!parseApiKey(devKey)) throw new Error('PARLEY_DEV_KEY must be an API key (pk_<16 hex>_<43 base64url>): make one with `parley keys mint`');
  const issuersEnv = process.env['PARLEY_JWT_ISSUERS'];
  const issuers = opts.jwtIssuers ?? (issuersEnv ? parseJwtIssuers(issuersEnv) : undefined);
  const jwt = issuers?.length ? createJwtVerifier({ issuers, tenant, clock, fetchJwks }) : undefined;
  const cacheMs = opts.authCacheMs ?? 2000;
  const registry = await startRegistry({
    db,
    bus,
    subjects,
    clock,
    log: log.child({ service: 'registry' }),
    eventFlow,
    grpcHost,
    grpcPort: 0,
    ...withMetrics,
    auth: {
      tenant,
      serviceToken,
      cacheMs,
      ...(jwt ? { jwt } : {}),
      bootstrap: [
        {
          key: devKey,
          principal: 'dev',
          roles: ['operator', 'server_agent', 'client_agent'],
          agents: ['*'],
          scenarios: ['*'],
          description: 'the embedded mode\'s development key (PARLEY_DEV_KEY)',
        },
      ],
    },
  });
  const grpc = <S extends Parameters<typeof createGrpcClient>[0]>(def: S, port: number, deadlineMs?: number) =>
    client(createGrpcClient(def, `${grpcHost}:${port}`, { credential: serviceToken, ...(deadlineMs !== undefined ? { deadlineMs } : {}) }));
  // Every other service checks API keys at the registry, as the separate processes do.
  const apiKeysClient = grpc(ApiKeyServiceService, registry.port, 3000);
  const authenticator =
    opts.authenticator ?? createAuthenticator({ tenant, clock, serviceToken, cacheMs, apiKeys: apiKeysViaRegistry(apiKeysClient.api), ...(jwt ? { jwt } : {}) });
  const registryClient = grpc(RegistryServiceService, registry.port);
  const profilesClient = grpc(AgentProfileServiceService, registry.port);
  const negotiation = await startNegotiation({
    db,
    bus,
    subjects,
    registry: registryClient.api,
    clock,
    log: log.child({ service: 'negotiation' }),
    eventFlow,
    grpcHost,
    grpcPort: 0,
    authenticator,
    ...withMetrics,
  });
  const negotiationClient = grpc(NegotiationServiceService, negotiation.port);
  const timeoutMs = opts.executeTimeoutMs ?? 5000;
  const execution = await startExecution({
    db,
    bus,
    subjects,
    negotiation: negotiationClient.api,
    clock,
    log: log.child({ service: 'execution' }),
    eventFlow,
    timeoutMs,
    grpcHost,
    grpcPort: 0,
    authenticator,
    // Safe retries of execute: PARLEY_IDEMPOTENCY_TTL_MS as in the separate process (default 24 h).
    ...(process.env['PARLEY_IDEMPOTENCY_TTL_MS'] ? { idempotencyTtlMs: Number(process.env['PARLEY_IDEMPOTENCY_TTL_MS']) } : {}),
    ...withMetrics,
    // Audit samples store patch-key values (draft-zhou §7, sensitive data at rest: only where enabled): every scenario in the one-process
    // development mode unless AUDIT_SCENARIOS says otherwise.
    auditScenarios: (process.env['AUDIT_SCENARIOS'] ?? '*').split(',').map((x) => x.trim()).filter(Boolean),
    // Webhook URL policy: PARLEY_WEBHOOK_ALLOW as in the separate process; a development default that allows loopback receivers.
    tasks: { webhooks: { allow: process.env['PARLEY_WEBHOOK_ALLOW'] || 'http://127.0.0.1:*,http://localhost:*,http://[::1]:*,https://127.0.0.1:*,https://localhost:*,https://[::1]:*' } },
  });
  const executionClient = grpc(ExecutionServiceService, execution.port, timeoutMs + 5000);
  const tasksClient = grpc(TaskServiceService, execution.port, timeoutMs + 5000);
  const eventSubscriptionsClient = grpc(EventSubscriptionServiceService, execution.port);
  const health: HealthState = {
    shuttingDown: false,
    checks: { database: () => db.query('SELECT 1').then(() => true), bus: () => bus.healthy() },
  };
  const embedder = opts.embedder ?? createEmbedderFromEnv(process.env);
  const index = opts.index ?? createVectorIndexFromEnv(process.env);
  // Schema self-evolution (draft-zhou §6.2): the pool feeds on other.captured, the evolver on pool.matured.
  const semanticPool = await startSemanticPool({
    db,
    bus,
    subjects,
    embedder,
    index,
    clock,
    log: log.child({ service: 'semantic-pool' }),
    eventFlow,
    // The §6.2.1 figures as given, else from the environment as the separate process reads them (PARLEY_HEAT_THRESHOLD, …).
    config: opts.evolution?.pool ?? poolConfigFromEnv(process.env),
    ...(opts.evolution?.heatSampleMs !== undefined ? { heatSampleMs: opts.evolution.heatSampleMs } : {}),
    // zhou §7: with PARLEY_DATA_KEY (or PARLEY_STORE_RAW_FRAGMENTS=false) as in the separate process;
    // otherwise raw fragments are sealed with a key made up at start.
    ...(process.env['PARLEY_DATA_KEY'] || process.env['PARLEY_STORE_RAW_FRAGMENTS'] === 'false' ? { raw: rawFragmentsFromEnv(process.env) } : {}),
    grpcHost,
    grpcPort: 0,
    authenticator,
    ...withMetrics,
  });
  const poolClient = grpc(SemanticPoolServiceService, semanticPool.port);
  const llm = createLlmFromEnv(process.env, await loadWordNetLexicon());
  const evolution = await startEvolution({
    db,
    bus,
    subjects,
    negotiation: negotiationClient.api,
    clock,
    log: log.child({ service: 'evolution' }),
    eventFlow,
    // As given, else from the environment as the separate process reads it (PARLEY_APPROVAL=manual holds every patch, …).
    config: opts.evolution?.evolver ?? evolverConfigFromEnv(process.env),
    induce: (input) => llm.inducer.induce(input),
    judge: llm.judge ? { id: llm.judge.id, judge: (i) => (llm.judge as NonNullable<typeof llm.judge>).judge(i) } : null,
    ...(opts.evolution?.tickMs !== undefined ? { tickMs: opts.evolution.tickMs } : {}),
    grpcHost,
    grpcPort: 0,
    authenticator,
    ...withMetrics,
  });
  const evolutionClient = grpc(EvolutionServiceService, evolution.port);
  const gateway = await startGateway({
    embedder,
    authenticator,
    ...(opts.http ? { ...gatewayHttpDeps(opts.http), loopbackPlain: true } : {}),
    ...(opts.rateLimit !== undefined ? { rateLimit: opts.rateLimit } : {}),
    // rateLimit: null (benchmarks, tests driving load as one principal) turns off the in-flight bound too.
    ...(opts.rateLimit === null ? { maxInFlightPerPrincipal: 0 } : {}),
    clock,
    backends: {
      apiKeys: apiKeysClient.api,
      registry: registryClient.api,
      profiles: profilesClient.api,
      negotiation: negotiationClient.api,
      execution: executionClient.api,
      tasks: tasksClient.api,
      eventSubscriptions: eventSubscriptionsClient.api,
      pool: poolClient.api,
      evolution: evolutionClient.api,
      // Dead letters (draft-zhou §6.2 event flow): every service serves DeadLetterService on its gRPC port.
      deadLetters: new Map([
        ['registry', grpc(DeadLetterServiceService, registry.port).api],
        ['negotiation', grpc(DeadLetterServiceService, negotiation.port).api],
        ['execution', grpc(DeadLetterServiceService, execution.port).api],
        ['semantic-pool', grpc(DeadLetterServiceService, semanticPool.port).api],
        ['evolution', grpc(DeadLetterServiceService, evolution.port).api],
      ] as const),
    },
    health,
    log: log.child({ service: 'gateway' }),
    ...(opts.host ? { host: opts.host } : {}),
    port: opts.port ?? 8080,
    maxBodyBytes: opts.maxBodyBytes ?? opts.http?.maxBodyBytes ?? 1024 * 1024,
    ...withMetrics,
  });

  const agents: Agent[] = [];
  if (opts.seed ?? true) {
    for (const scenario of EXAMPLE_SCENARIOS) {
      const agent = await startExampleAgent(scenario, { bus, prefix: subjects.prefix, apiKey: devKey });
      await registerExampleAgent(agent, scenario, gateway.loopbackUrl);
      agents.push(agent);
    }
  }

  return {
    url: gateway.url,
    loopbackUrl: gateway.loopbackUrl,
    devKey,
    serviceToken,
    tenant,
    grpcPorts: { registry: registry.port, negotiation: negotiation.port, execution: execution.port, semanticPool: semanticPool.port, evolution: evolution.port },
    embedderId: embedder.id,
    port: gateway.port,
    db,
    bus,
    subjects,
    execution,
    semanticPool,
    evolution,
    agents,
    ...withMetrics,
    async stop() {
      health.shuttingDown = true;
      await gateway.stop();
      for (const a of agents) await a.close();
      await evolution.stop();
      await semanticPool.stop();
      await execution.stop();
      await negotiation.stop();
      await registry.stop();
      for (const c of clients) c.close();
      await bus.close();
      await db.close();
    },
  };
}

