import { createNatsBus, createSubjects, type Bus, type NatsBusOptions, type Stoppable, type Subjects } from '@parley/events';
import {
  decodeDispatchRequest,
  type DispatchRequest,
  encodeDispatch,
  scenarioId,
  validateAgentName,
  AGENT_NAME_PATTERN,
  type JsonObject,
  type SchemaTemplate,
} from '@parley/protocol';
import { createParleyClient } from '@parley/client';
import { AN_AGENT_NAME_PATTERN, MAX_AN_AGENT_NAME_LENGTH, type NegotiationType, type TaskNotification } from '@parley/an';
import { createTaskRuntime, type NegotiationCall, type NegotiationResult, type ServeTasksOptions, type TaskHandler, type TaskUpdate } from './tasks';

export type {
  AssignedTask,
  NegotiationCall,
  NegotiationResult,
  ProposalToEvaluate,
  ServeTasksOptions,
  TaskAccepted,
  TaskContext,
  TaskHandler,
  TaskUpdate,
  VerdictReply,
} from './tasks';

/**
 * What a server agent imports. An agent serves scenarios: for each, it joins
 * the NATS queue group `<agent>` on `<prefix>.v1.<scenario>.execute.<agent>`,
 * so every replica of the agent shares the load of that scenario and a busy
 * scenario scales by adding replicas.
 *
 *   const agent = await createAgent({ name: 'acme-air', natsUrl: 'nats://127.0.0.1:4222' });
 *   await agent.serve('flight_booking', async (payload) => ({ status: 'confirmed', ... }));
 *
 * Over TLS, with the agent's own NATS user and its gateway API key (what the
 * deployments do; `nats: natsFromEnv(process.env)` reads the same from the env):
 *
 *   createAgent({ name: 'acme-air', apiKey, nats: { servers: 'tls://nats:4222', tls: { ca }, user: 'acme-air', pass } });
 *
 * Payloads reach the handler validated, with defaults applied (Parley's
 * execution service does what draft-zhou §3.1 asks of the server agent).
 */
export interface ExecutionContext {
  execution_id: string;
  schema_id: string;
  scenario_id: string;
  client_id: string;
  /** When the caller stops waiting. */
  deadline: Date;
  /**
   * The client's idempotency key, when it sent one. Parley may then dispatch the
   * same execution_id again (a retry after an answer was lost); the SDK answers a
   * repeated execution_id with the first answer without calling the handler again
   * (in this replica's memory: an agent with several replicas and side effects
   * dedupes by execution_id in its own store).
   */
  idempotency_key?: string;
}

export type ScenarioHandler = (payload: JsonObject, ctx: ExecutionContext) => Promise<JsonObject> | JsonObject;

/** Throw this from a handler to report a business failure with a code (e.g. `sold_out`). */
export class AgentFailure extends Error {
  override readonly name = 'AgentFailure';
  constructor(
    message: string,
    readonly code?: string,
  ) {
    super(message);
  }
}

/**
 * How an agent connects to NATS: where, TLS and its credentials. The shape
 * `natsFromEnv(env)` of @parley/runtime returns (NATS_URL, NATS_TLS with the
 * PARLEY_TLS_* material, NATS_USER / NATS_PASSWORD), so a deployed agent does
 *
 *   createAgent({ name, nats: natsFromEnv(process.env) })
 *
 * like the services do for their own connection.
 */
export interface AgentNatsOptions {
  /** Where to connect (`nats://` or `tls://` URLs); falls back to `natsUrl`. */
  servers?: string | string[];
  /**
   * TLS (PEM contents): the server is verified against `ca`; `cert`/`key` are
   * presented when the server asks for a client certificate.
   */
  tls?: NatsBusOptions['tls'];
  /** Per-agent credentials (server `authorization.users`): both or neither. */
  user?: string;
  pass?: string;
  /** Token authentication, instead of user/pass. */
  token?: string;
}

export interface AgentOptions {
  name: string;
  /** A NATS server to connect to; or pass `bus` (the embedded mode's in-process bus). */
  natsUrl?: string;
  /** The NATS connection with TLS and credentials (`natsFromEnv(env)`); `nats.servers` wins over `natsUrl`. Ignored with `bus`. */
  nats?: AgentNatsOptions;
  bus?: Bus;
  /** An API key of this agent at the gateway: register() sends it as `Authorization: Bearer <apiKey>`. */
  apiKey?: string;
  /** Subject prefix (default `parley`, or the PARLEY_SUBJECT_PREFIX the deployment uses). */
  prefix?: string;
  onError?: (e: unknown, scenario: string) => void;
  /** How long notify / negotiate / readData wait for the execution service (default 5000 ms). */
  requestTimeoutMs?: number;
  /**
   * How long an answer to a dispatch that carried an idempotency key is kept to
   * answer the same execution_id again (default 24 h, Parley's key lifetime), and
   * how many are kept (default 10 000, oldest first out).
   */
  replay?: { ttlMs?: number; max?: number; now?: () => number };
}

export interface Agent {
  readonly name: string;
  serve(scenario: string, handler: ScenarioHandler): Promise<Stoppable>;
  /** Registers this agent and publishes its templates through a Parley gateway. Idempotent. */
  register(gatewayUrl: string, profile: AgentProfile, schemas: PublishedSchema[]): Promise<void>;
  /**
   * AN tasks (draft 004 §5.2-5.4): executes the tasks assigned to this agent.
   * The agent's replicas share `<prefix>.v1.task.<agent>` as the queue group
   * `<agent>`; the handler returns a sync task's result or accepts an async
   * one (`ctx.accept()`) and reports later with `notify`. The options add
   * negotiation verdicts, a profile for CapabilityRequest and cancellation.
   */
  serveTasks(handler: TaskHandler, opts?: ServeTasksOptions): Promise<Stoppable>;
  /** taskResultNotify: reports a status change of a task this agent executes; throws the typed error (e.g. illegal_transition). */
  notify(taskId: string, update: TaskUpdate): Promise<TaskNotification>;
  /** FeasibilityNegotiate / FulfillmentNegotiate from this agent: a proposal, or a verdict on the other party's open round. */
  negotiate(type: NegotiationType, call: NegotiationCall): Promise<NegotiationResult>;
  /** The data of one data param of a task this agent is a party of. */
  readData(taskId: string, paramId: string): Promise<string>;
  close(): Promise<void>;
}

export interface AgentProfile {
  scenarios: string[];
  description?: string;
  domain?: string;
  tags?: string[];
  version?: string;
}

export interface PublishedSchema {
  template: SchemaTemplate;
  responseSchema?: JsonObject;
  language?: string;
}

export async function createAgent(opts: AgentOptions): Promise<Agent> {
  // A zhou server agent's name is its schema namespace ([a-z][a-z0-9_-]*); an AN agent (draft 004 §5.1) that only
  // serves tasks may have a profile name such as `TMF-Acme-IP-v1`. serve() and register() need the former.
  const anOnly = typeof opts.name === 'string' && opts.name.length <= MAX_AN_AGENT_NAME_LENGTH && AN_AGENT_NAME_PATTERN.test(opts.name) && !AGENT_NAME_PATTERN.test(opts.name);
  if (!anOnly) validateAgentName(opts.name, 'name');
  const subjects: Subjects = createSubjects(opts.prefix ?? 'parley');
  // A header value: visible ASCII only (no spaces, no line breaks).
  if (opts.apiKey !== undefined && !/^[\x21-\x7e]+$/.test(opts.apiKey)) throw new Error('createAgent apiKey must be a non-empty token of visible ASCII characters');
  const owned = !opts.bus;
  let bus: Bus;
  if (opts.bus) bus = opts.bus;
  else bus = await createNatsBus({ ...natsConnection(opts), subjects, name: `parley-agent-${opts.name}` });
  const served: Stoppable[] = [];
  const tasks = createTaskRuntime({
    name: opts.name,
    bus,
    subjects,
    ...(opts.requestTimeoutMs !== undefined ? { timeoutMs: opts.requestTimeoutMs } : {}),
    // Only an AgentFailure's message is shown to the sender; anything else may carry internals.
    failure: (e) => (e instanceof AgentFailure ? (e.code ? { message: e.message, code: e.code } : { message: e.message }) : { message: 'the agent failed to execute the task' }),
  });

  const replays = replayCache(opts.replay);

  return {
    name: opts.name,
    async serve(scenario, handler) {
      if (anOnly) validateAgentName(opts.name, 'name');
      const sid = scenarioId(scenario);
      const s = await bus.serve(subjects.execute(sid, opts.name), opts.name, async (body) => {
        let req;
        try {
          req = decodeDispatchRequest(body);
        } catch (e) {
          return encodeDispatch({ ok: false, error: { message: 'malformed dispatch request', code: 'bad_request' } });
        }
        const run = async (r: DispatchRequest): Promise<Uint8Array> => {
          try {
            const result = await handler(r.payload, {
              execution_id: r.execution_id,
              schema_id: r.schema_id,
              scenario_id: r.scenario_id,
              client_id: r.client_id,
              deadline: new Date(r.deadline),
              ...(r.idempotency_key !== undefined ? { idempotency_key: r.idempotency_key } : {}),
            });
            if (typeof result !== 'object' || result === null || Array.isArray(result)) {
              return encodeDispatch({ ok: false, error: { message: 'handler returned a non-object result', code: 'bad_result' } });
            }
            return encodeDispatch({ ok: true, result });
          } catch (e) {
            opts.onError?.(e, sid);
            const code = e instanceof AgentFailure ? e.code : undefined;
            // Only an AgentFailure's message is shown to clients; anything else may carry internals.
            const message = e instanceof AgentFailure ? e.message : 'the agent failed to execute the payload';
            return encodeDispatch({ ok: false, error: code ? { message, code } : { message } });
          }
        };
        // Without a key every dispatch is a new execution; with one, the same execution_id may come again.
        return typeof req.idempotency_key === 'string' ? replays.answer(`${sid}/${req.execution_id}`, () => run(req)) : run(req);
      });
      served.push(s);
      return s;
    },
    async register(gatewayUrl, profile, schemas) {
      if (anOnly) validateAgentName(opts.name, 'name');
      const client = createParleyClient(gatewayUrl, opts.apiKey !== undefined ? { headers: { authorization: `Bearer ${opts.apiKey}` } } : {});
      await client.registerAgent({ name: opts.name, ...profile });
      for (const s of schemas) {
        await client.publishSchema({
          agent: opts.name,
          template: s.template,
          ...(s.language ? { language: s.language } : {}),
          ...(s.responseSchema ? { response_schema: s.responseSchema } : {}),
        });
      }
    },
    async serveTasks(handler, serveOpts) {
      const s = await tasks.serveTasks(handler, serveOpts);
      served.push(s);
      return s;
    },
    notify: (taskId, update) => tasks.notify(taskId, update),
    negotiate: (type, call) => tasks.negotiate(type, call),
    readData: (taskId, paramId) => tasks.readData(taskId, paramId),
    async close() {
      for (const s of served.splice(0)) await s.stop();
      if (owned) await bus.close();
    },
  };
}

/** The connection options of createNatsBus from `nats` and `natsUrl`. */
function natsConnection(opts: AgentOptions): Pick<NatsBusOptions, 'servers' | 'tls' | 'user' | 'pass' | 'token'> {
  const n = opts.nats ?? {};
  const servers = n.servers ?? opts.natsUrl;
  if (servers === undefined || servers === '' || (Array.isArray(servers) && servers.length === 0)) throw new Error('createAgent needs natsUrl (or nats.servers) or bus');
  if ((n.user === undefined) !== (n.pass === undefined)) throw new Error(`createAgent nats.${n.user === undefined ? 'user' : 'pass'} is required when nats.${n.user === undefined ? 'pass' : 'user'} is set`);
  return {
    servers,
    ...(n.tls ? { tls: n.tls } : {}),
    ...(n.user !== undefined && n.pass !== undefined ? { user: n.user, pass: n.pass } : {}),
    ...(n.token !== undefined ? { token: n.token } : {}),
  };
}

/**
 * The answers to dispatches that carried an idempotency key, by execution_id:
 * a repeat gets the first answer (or waits for it while the first still runs),
 * so a retry that Parley had to dispatch again books nothing twice in this
 * replica. Bounded by count and age.
 */
function replayCache(o: AgentOptions['replay'] = {}): { answer(id: string, run: () => Promise<Uint8Array>): Promise<Uint8Array> } {
  const ttlMs = o.ttlMs ?? 24 * 3_600_000;
  const max = o.max ?? 10_000;
  const now = o.now ?? Date.now;
  // Map keeps insertion order: the oldest entry is first.
  const answers = new Map<string, { at: number; reply: Promise<Uint8Array> }>();
  return {
    answer(id, run) {
      const t = now();
      for (const [k, v] of answers) {
        if (answers.size <= max && t - v.at < ttlMs) break;
        answers.delete(k);
      }
      const hit = answers.get(id);
      if (hit && t - hit.at < ttlMs) return hit.reply.then((b) => b.slice());
      const reply = run();
      answers.set(id, { at: t, reply });
      return reply.then((b) => b.slice());
    },
  };
}
