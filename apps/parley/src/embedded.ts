import { randomBytes } from 'node:crypto';
import {
  AgentProfileServiceService,
  EvolutionServiceService,
  ExecutionServiceService,
  NegotiationServiceService,
  RegistryServiceService,
  SemanticPoolServiceService,
  TaskServiceService,
  createGrpcClient,
  type GrpcClient,
} from '@parley/contracts';
import { startEvolution, type RunningEvolution } from '@parley/evolution-service';
import { createLlmFromEnv } from '@parley/llm';
import type { EvolverConfig, SemanticPoolConfig } from '@parley/pool';
import { rawFragmentsFromEnv, startSemanticPool, type RunningSemanticPool } from '@parley/semantic-pool';
import { createVectorIndexFromEnv, type VectorIndex } from '@parley/vectors';
import { EXAMPLE_SCENARIOS, registerExampleAgent, startExampleAgent } from '@parley/example-agents';
import { startExecution, type RunningExecution } from '@parley/execution';
import { createEmbedderFromEnv, type Embedder } from '@parley/embeddings';
import { createMemoryBus, createNatsBus, createSubjects, type Bus, type Subjects } from '@parley/events';
import { startGateway } from '@parley/gateway';
import { startNegotiation } from '@parley/negotiation';
import { startRegistry } from '@parley/registry';
import { createLogger, systemClock, type Clock, type HealthState, type Logger } from '@parley/runtime';
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
  /** Bearer token for the gateway's operator methods (default PARLEY_OPERATOR_TOKEN). */
  operatorToken?: string;
}

export interface EmbeddedParley {
  url: string;
  /** The bearer token of the gateway's operator methods (approve, reject, pin, judge, raw fragments). */
  operatorToken: string;
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
  stop(): Promise<void>;
}

export async function startParley(opts: EmbeddedOptions = {}): Promise<EmbeddedParley> {
  const log = opts.log ?? createLogger({ level: 'info' });
  const clock = opts.clock ?? systemClock;
  const subjects = createSubjects(opts.prefix ?? 'parley');
  const db = opts.databaseUrl ? await openDb(opts.databaseUrl, { applicationName: 'parley-embedded' }) : await createPgliteDb(opts.dataDir);
  const bus = opts.natsUrl ? await createNatsBus({ servers: opts.natsUrl, subjects, name: 'parley-embedded' }) : createMemoryBus({ subjects });
  const grpcHost = '127.0.0.1';
  const clients: GrpcClient<never>[] = [];
  const client = <S,>(c: S): S => {
    clients.push(c as unknown as GrpcClient<never>);
    return c;
  };

  const registry = await startRegistry({ db, bus, subjects, clock, log: log.child({ service: 'registry' }), grpcHost, grpcPort: 0 });
  const registryClient = client(createGrpcClient(RegistryServiceService, `${grpcHost}:${registry.port}`));
  const profilesClient = client(createGrpcClient(AgentProfileServiceService, `${grpcHost}:${registry.port}`));
  const negotiation = await startNegotiation({ db, bus, subjects, registry: registryClient.api, clock, log: log.child({ service: 'negotiation' }), grpcHost, grpcPort: 0 });
  const negotiationClient = client(createGrpcClient(NegotiationServiceService, `${grpcHost}:${negotiation.port}`));
  const timeoutMs = opts.executeTimeoutMs ?? 5000;
  const execution = await startExecution({
    db,
    bus,
    subjects,
    negotiation: negotiationClient.api,
    clock,
    log: log.child({ service: 'execution' }),
    timeoutMs,
    grpcHost,
    grpcPort: 0,
  });
  const executionClient = client(createGrpcClient(ExecutionServiceService, `${grpcHost}:${execution.port}`, { deadlineMs: timeoutMs + 5000 }));
  const tasksClient = client(createGrpcClient(TaskServiceService, `${grpcHost}:${execution.port}`, { deadlineMs: timeoutMs + 5000 }));
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
    ...(opts.evolution?.pool ? { config: opts.evolution.pool } : {}),
    ...(opts.evolution?.heatSampleMs !== undefined ? { heatSampleMs: opts.evolution.heatSampleMs } : {}),
    // zhou §7: with PARLEY_DATA_KEY (or PARLEY_STORE_RAW_FRAGMENTS=false) as in the separate process;
    // otherwise raw fragments are sealed with a key made up at start.
    ...(process.env['PARLEY_DATA_KEY'] || process.env['PARLEY_STORE_RAW_FRAGMENTS'] === 'false' ? { raw: rawFragmentsFromEnv(process.env) } : {}),
    grpcHost,
    grpcPort: 0,
  });
  const poolClient = client(createGrpcClient(SemanticPoolServiceService, `${grpcHost}:${semanticPool.port}`));
  const llm = createLlmFromEnv(process.env);
  const evolution = await startEvolution({
    db,
    bus,
    subjects,
    negotiation: negotiationClient.api,
    clock,
    log: log.child({ service: 'evolution' }),
    ...(opts.evolution?.evolver ? { config: opts.evolution.evolver } : {}),
    induce: (input) => llm.inducer.induce(input),
    judge: llm.judge ? { id: llm.judge.id, judge: (i) => (llm.judge as NonNullable<typeof llm.judge>).judge(i) } : null,
    ...(opts.evolution?.tickMs !== undefined ? { tickMs: opts.evolution.tickMs } : {}),
    grpcHost,
    grpcPort: 0,
  });
  const evolutionClient = client(createGrpcClient(EvolutionServiceService, `${grpcHost}:${evolution.port}`));
  // Operator methods need a bearer token (draft-zhou §7); embedded mode makes one unless given.
  const operatorToken = opts.operatorToken ?? process.env['PARLEY_OPERATOR_TOKEN'] ?? randomBytes(18).toString('base64url');
  const gateway = await startGateway({
    embedder,
    operatorToken,
    backends: {
      registry: registryClient.api,
      profiles: profilesClient.api,
      negotiation: negotiationClient.api,
      execution: executionClient.api,
      tasks: tasksClient.api,
      pool: poolClient.api,
      evolution: evolutionClient.api,
    },
    health,
    log: log.child({ service: 'gateway' }),
    ...(opts.host ? { host: opts.host } : {}),
    port: opts.port ?? 8080,
    maxBodyBytes: opts.maxBodyBytes ?? 1024 * 1024,
  });

  const agents: Agent[] = [];
  if (opts.seed ?? true) {
    for (const scenario of EXAMPLE_SCENARIOS) {
      const agent = await startExampleAgent(scenario, { bus, prefix: subjects.prefix });
      await registerExampleAgent(agent, scenario, gateway.url);
      agents.push(agent);
    }
  }

  return {
    url: gateway.url,
    operatorToken,
    embedderId: embedder.id,
    port: gateway.port,
    db,
    bus,
    subjects,
    execution,
    semanticPool,
    evolution,
    agents,
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
