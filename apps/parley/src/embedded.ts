import type { Agent } from '@parley/agent-sdk';
import { createJwtVerifier, mintApiKey, parseApiKey, parseJwtIssuers, type Authenticator, type JwtIssuer } from '@parley/auth';
import {
  AgentProfileServiceService,
  ApiKeyServiceService,
  DeadLetterServiceService,
  EventSubscriptionServiceService,
  EvolutionServiceService,
  ExecutionServiceService,
  NegotiationServiceService,
  RegistryServiceService,
  SemanticPoolServiceService,
  TaskServiceService,
  type GrpcTransport,
} from '@parley/contracts';
import { createEmbedderFromEnv, type Embedder } from '@parley/embeddings';
import { createMemoryBus, createNatsBus, createSubjects, type Bus, type Subjects } from '@parley/events';
import type { RunningEvolution } from '@parley/evolution-service';
import { EXAMPLE_SCENARIOS, registerExampleAgent, startExampleAgent } from '@parley/example-agents';
import type { RunningExecution } from '@parley/execution';
import { gatewayHttpDeps, startGateway, type Backends } from '@parley/gateway';
import { startNegotiation } from '@parley/negotiation';
import type { EvolverConfig, SemanticPoolConfig } from '@parley/pool';
import { apiKeysViaRegistry, createAuthenticator, createLogger, createMetrics, eventFlowFromEnv, fetchJwks, generateServiceToken, systemClock, type Clock, type EventFlowConfig, type GatewayHttpConfig, type HealthState, type Logger, type Metrics } from '@parley/runtime';
import type { RunningSemanticPool } from '@parley/semantic-pool';
import { createPgliteDb, openDb, type Db } from '@parley/storage';
import { createVectorIndexFromEnv, type VectorIndex } from '@parley/vectors';
import { embeddedTransport, grpcClients, startEmbeddedExecution, startEmbeddedRegistry, startSelfEvolution, type EmbeddedIdentity, type ServiceCommon } from './embedded-services';

/**
 * Every Parley service in one process. The services are the same code as the
 * separate processes, and they still talk to each other through their gRPC
 * contracts and over the bus; only the adapters change: the in-process gRPC
 * transport instead of HTTP/2 on loopback (unless `transport` is `grpc`),
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
  /**
   * How the services call each other's gRPC contracts: `inproc` (the server's handlers in this process,
   * every contract kept) or `grpc` (HTTP/2 on loopback). Default PARLEY_EMBEDDED_TRANSPORT, else `inproc`.
   */
  transport?: GrpcTransport;
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
  /** How the services call each other (EmbeddedOptions.transport). */
  transport: GrpcTransport;
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

/**
 * Identity (draft-zhou §7 authentication): the services' shared token is made per process; the development key is
 * PARLEY_DEV_KEY or made here, and holds every role as the principal `dev`.
 */
function embeddedIdentity(opts: EmbeddedOptions, clock: Clock): EmbeddedIdentity {
  const tenant = opts.tenant ?? process.env['PARLEY_TENANT'] ?? 'default';
  const devKey = opts.devKey ?? process.env['PARLEY_DEV_KEY'] ?? mintApiKey().key;
  if (!parseApiKey(devKey)) throw new Error('PARLEY_DEV_KEY must be an API key (pk_<16 hex>_<43 base64url>): make one with `parley keys mint`');
  const issuersEnv = process.env['PARLEY_JWT_ISSUERS'];
  const issuers = opts.jwtIssuers ?? (issuersEnv ? parseJwtIssuers(issuersEnv) : undefined);
  const jwt = issuers?.length ? createJwtVerifier({ issuers, tenant, clock, fetchJwks }) : undefined;
  return { tenant, serviceToken: generateServiceToken(), devKey, cacheMs: opts.authCacheMs ?? 2000, jwt };
}

/** The gateway's options beside its backends: HTTP settings, rate limit, port and body size as given or read. */
function gatewayHttpOptions(opts: EmbeddedOptions) {
  return {
    ...(opts.http ? { ...gatewayHttpDeps(opts.http), loopbackPlain: true } : {}),
    ...(opts.rateLimit !== undefined ? { rateLimit: opts.rateLimit } : {}),
    // rateLimit: null (benchmarks, tests driving load as one principal) turns off the in-flight bound too.
    ...(opts.rateLimit === null ? { maxInFlightPerPrincipal: 0 } : {}),
    ...(opts.host ? { host: opts.host } : {}),
    port: opts.port ?? 8080,
    maxBodyBytes: opts.maxBodyBytes ?? opts.http?.maxBodyBytes ?? 1024 * 1024,
  };
}

/** Starts the example agents and registers them through the gateway, as an outside server agent would. */
async function seedExampleAgents(bus: Bus, subjects: Subjects, devKey: string, gatewayUrl: string): Promise<Agent[]> {
  const agents: Agent[] = [];
  for (const scenario of EXAMPLE_SCENARIOS) {
    const agent = await startExampleAgent(scenario, { bus, prefix: subjects.prefix, apiKey: devKey });
    await registerExampleAgent(agent, scenario, gatewayUrl);
    agents.push(agent);
  }
  return agents;
}

/**
 * The wiring: storage and the bus, identity, the services in dependency order (registry, negotiation,
 * execution, the self-evolution pair), the gateway over gRPC clients to each, then the example agents.
 * `stop` ends them in the reverse order, the gateway first so no request starts during shutdown.
 */
export async function startParley(opts: EmbeddedOptions = {}): Promise<EmbeddedParley> {
  const log = opts.log ?? createLogger({ level: 'info' });
  const clock = opts.clock ?? systemClock;
  const subjects = createSubjects(opts.prefix ?? 'parley');
  const db = opts.databaseUrl ? await openDb(opts.databaseUrl, { applicationName: 'parley-embedded' }) : await createPgliteDb(opts.dataDir);
  // The event flow's limits as the separate services read them (PARLEY_STREAM_MAX_*, PARLEY_*_MAX_ATTEMPTS).
  const eventFlow = embeddedEventFlow(eventFlowFromEnv(process.env), db.kind === 'pglite');
  const bus = opts.natsUrl ? await createNatsBus({ servers: opts.natsUrl, retention: eventFlow.retention, subjects, name: 'parley-embedded' }) : createMemoryBus({ subjects });
  const metrics = opts.metrics === null ? undefined : (opts.metrics ?? createMetrics());
  const withMetrics = metrics ? { metrics } : {};
  // One bus for every service: its durable consumers' lag is read on scrape.
  metrics?.watchConsumers(() => bus.consumerLag?.() ?? Promise.resolve([]));
  const common: ServiceCommon = { db, bus, subjects, clock, eventFlow, grpcHost: '127.0.0.1', grpcPort: 0, ...withMetrics };
  const id = embeddedIdentity(opts, clock);
  const transport = embeddedTransport(opts.transport);
  const clients = grpcClients(common.grpcHost, id.serviceToken, transport);
  const { grpc } = clients;

  const registry = await startEmbeddedRegistry(common, log, id);
  // Every other service checks API keys at the registry, as the separate processes do.
  const apiKeysClient = grpc(ApiKeyServiceService, registry.port, 3000);
  const authenticator =
    opts.authenticator ?? createAuthenticator({ tenant: id.tenant, clock, serviceToken: id.serviceToken, cacheMs: id.cacheMs, apiKeys: apiKeysViaRegistry(apiKeysClient.api), ...(id.jwt ? { jwt: id.jwt } : {}) });
  const registryClient = grpc(RegistryServiceService, registry.port);
  const negotiation = await startNegotiation({ ...common, registry: registryClient.api, log: log.child({ service: 'negotiation' }), authenticator });
  const negotiationClient = grpc(NegotiationServiceService, negotiation.port);
  const timeoutMs = opts.executeTimeoutMs ?? 5000;
  const execution = await startEmbeddedExecution(common, log, negotiationClient.api, authenticator, timeoutMs);
  const embedder = opts.embedder ?? createEmbedderFromEnv(process.env);
  const index = opts.index ?? createVectorIndexFromEnv(process.env);
  const { semanticPool, evolution } = await startSelfEvolution(common, log, { embedder, index, negotiation: negotiationClient.api, authenticator, given: opts.evolution });

  const backends: Backends = {
    apiKeys: apiKeysClient.api,
    registry: registryClient.api,
    profiles: grpc(AgentProfileServiceService, registry.port).api,
    negotiation: negotiationClient.api,
    execution: grpc(ExecutionServiceService, execution.port, timeoutMs + 5000).api,
    tasks: grpc(TaskServiceService, execution.port, timeoutMs + 5000).api,
    eventSubscriptions: grpc(EventSubscriptionServiceService, execution.port).api,
    pool: grpc(SemanticPoolServiceService, semanticPool.port).api,
    evolution: grpc(EvolutionServiceService, evolution.port).api,
    // Dead letters (draft-zhou §6.2 event flow): every service serves DeadLetterService on its gRPC port.
    deadLetters: new Map([
      ['registry', grpc(DeadLetterServiceService, registry.port).api],
      ['negotiation', grpc(DeadLetterServiceService, negotiation.port).api],
      ['execution', grpc(DeadLetterServiceService, execution.port).api],
      ['semantic-pool', grpc(DeadLetterServiceService, semanticPool.port).api],
      ['evolution', grpc(DeadLetterServiceService, evolution.port).api],
    ] as const),
  };
  const health: HealthState = { shuttingDown: false, checks: { database: () => db.query('SELECT 1').then(() => true), bus: () => bus.healthy() } };
  const gateway = await startGateway({ embedder, authenticator, clock, backends, health, log: log.child({ service: 'gateway' }), ...gatewayHttpOptions(opts), ...withMetrics });
  const agents = (opts.seed ?? true) ? await seedExampleAgents(bus, subjects, id.devKey, gateway.loopbackUrl) : [];

  return {
    url: gateway.url,
    loopbackUrl: gateway.loopbackUrl,
    devKey: id.devKey,
    serviceToken: id.serviceToken,
    tenant: id.tenant,
    transport,
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
      clients.close();
      await bus.close();
      await db.close();
    },
  };
}

/** On PGlite the relays and webhook deliverers poll every 10 s unless PARLEY_OUTBOX_POLL_MS says otherwise. */
export const PGLITE_POLL_MS = 10_000;

/**
 * The event flow's figures for one process. PGlite is this process's own database: every row an outbox or a
 * webhook queue gets is written here, and each writer nudges its relay or deliverer after its commit (a start
 * publishes what a crash left), so the 1 s poll that covers another replica's rows on PostgreSQL finds nothing
 * here. It was 7 statements a second at rest; every 10 s it remains the safety net.
 */
export function embeddedEventFlow(flow: EventFlowConfig, pglite: boolean, env: NodeJS.ProcessEnv = process.env): EventFlowConfig {
  return pglite && !env['PARLEY_OUTBOX_POLL_MS'] ? { ...flow, outboxPollMs: PGLITE_POLL_MS } : flow;
}
