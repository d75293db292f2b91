import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { randomUUID } from 'node:crypto';
import { createAgent, type Agent, type AgentNatsOptions, type ServeTasksOptions, type TaskHandler } from '@parley/agent-sdk';
import { EventType, createNatsBus, createSubjects, taskToken, type Bus, type Stoppable, type TaskStatusData } from '@parley/events';
import { EXAMPLE_TOPOLOGY, anProfile, type AnProfileOptions, type AnRole, type Topology } from '@parley/examples';
import type { AgentProfile } from '@parley/an';
import { ParleyError, toParleyError } from '@parley/protocol';
import { createLogger, handleHealth, type HealthState, type Logger } from '@parley/runtime';
import { createGatewayRpc, type GatewayRpc } from './gateway';

/**
 * Hosts one example AN agent (draft 004 §2.1, §2.2): its profile registered
 * through the gateway's `register_profile` (§5.1), its tasks served with the
 * agent SDK (`serveTasks`: assignments, negotiation verdicts, cancellation),
 * the status notifications of its tasks read from its own
 * `<prefix>.v1.<agent>.task.status` subject on the event stream (a durable
 * JetStream consumer: it is a party of every task it sends or executes, §5.4),
 * and an HTTP port with /healthz, /readyz, `GET /state` and the role's control
 * routes (the network's alarms arrive there: `POST /alarms`).
 */
export interface RoleContext {
  readonly name: string;
  readonly profile: AgentProfile;
  readonly agent: Agent;
  readonly gateway: GatewayRpc;
  readonly log: Logger;
  readonly topology: Topology;
  /** The name of a registered agent with this skill (§4.1 discovery: `discover_profiles`), other than this one. */
  discover(skill: string, domain?: string): Promise<string>;
  /** A fresh id suffix. */
  uid(): string;
  now(): Date;
  /** Runs `fn` without waiting for it, logging a failure. */
  background(label: string, fn: () => Promise<void>): void;
}

export interface RoleImpl {
  handler: TaskHandler;
  negotiate?: ServeTasksOptions['negotiate'];
  onCancel?: (taskId: string, reason: string | undefined) => void;
  /** A status change of a task this agent sent or executes, once per (task_id, seq). */
  onStatus?: (n: TaskStatusData) => void | Promise<void>;
  /** Control routes: `'POST /alarms'` → handler of the JSON body. */
  routes?: Record<string, (body: unknown) => Promise<unknown>>;
  state(): unknown;
}

export type RoleFactory = (ctx: RoleContext) => RoleImpl;

export interface AnAgentOptions {
  natsUrl?: string;
  /** NATS with TLS and credentials (`natsFromEnv(env)`); `nats.servers` wins over `natsUrl`. */
  nats?: AgentNatsOptions;
  bus?: Bus;
  prefix?: string;
  gatewayUrl: string;
  /** The agent's gateway API key, sent as `Authorization: Bearer <apiKey>` on every gateway call. */
  apiKey?: string;
  /** HTTP port for health, state and control; 0 picks one; undefined: no HTTP server. */
  httpPort?: number;
  topology?: Topology;
  profile?: AnProfileOptions;
  log?: Logger;
}

export interface RunningAnAgent {
  readonly name: string;
  readonly role: AnRole;
  /** The HTTP port, when one was asked for. */
  readonly port?: number;
  state(): unknown;
  /** Calls a control route as the HTTP server would. */
  control(route: string, body: unknown): Promise<unknown>;
  stop(): Promise<void>;
}

/** Each status change as received, duplicates included (what `GET /state` shows as `received`). */
interface Receipt {
  task_id: string;
  seq: number;
  status: string;
  received_at: string;
}

const MAX_RECEIPTS = 5000;

export async function startAnAgent(role: AnRole, factory: RoleFactory, opts: AnAgentOptions): Promise<RunningAnAgent> {
  const profile = anProfile(role, opts.profile);
  const name = profile.name;
  const log = (opts.log ?? createLogger({ base: { service: 'an-agent' } })).child({ agent: name, role });
  const subjects = createSubjects(opts.prefix ?? 'parley');
  const ownedBus = !opts.bus;
  const servers = opts.nats?.servers ?? opts.natsUrl;
  const bus = opts.bus ?? (servers ? await createNatsBus({ ...opts.nats, servers, subjects, name: `parley-an-${role}` }) : undefined);
  if (!bus) throw new Error('startAnAgent needs natsUrl (or nats.servers) or bus');
  const agent = await createAgent({
    name,
    bus,
    prefix: opts.prefix ?? 'parley',
    ...(opts.apiKey !== undefined ? { apiKey: opts.apiKey } : {}),
    onError: (e) => log.warn('task handler failed', { error: e }),
  });
  const gateway = createGatewayRpc(opts.gatewayUrl, opts.apiKey !== undefined ? { apiKey: opts.apiKey } : {});
  const discovered = new Map<string, string>();

  const ctx: RoleContext = {
    name,
    profile,
    agent,
    gateway,
    log,
    topology: opts.topology ?? EXAMPLE_TOPOLOGY,
    async discover(skill, domain) {
      const key = `${skill}/${domain ?? ''}`;
      const hit = discovered.get(key);
      if (hit) return hit;
      const r = await gateway.call<{ profiles: Array<{ name: string }> }>('discover_profiles', { skill, ...(domain ? { domain } : {}) });
      const found = r.profiles.map((p) => p.name).find((n) => n !== name);
      if (!found) throw new ParleyError('agent_not_found', `No registered agent has skill ${skill}${domain ? ` in domain ${domain}` : ''}`, { path: 'skill', rule: 'exists' });
      discovered.set(key, found);
      return found;
    },
    uid: () => randomUUID().slice(0, 8),
    now: () => new Date(),
    background(label, fn) {
      void fn().catch((e: unknown) => log.error(`${label} failed`, { error: e, detail: e instanceof Error ? e.message : String(e) }));
    },
  };
  const impl = factory(ctx);

  const stoppables: Stoppable[] = [];
  const receipts: Receipt[] = [];
  const processed = new Set<string>();
  let registered = false;
  let server: Server | undefined;
  let port: number | undefined;
  const health: HealthState = {
    shuttingDown: false,
    checks: { bus: () => bus.healthy(), registered: async () => registered },
  };

  try {
    stoppables.push(
      await agent.serveTasks(impl.handler, {
        profile,
        ...(impl.negotiate ? { negotiate: impl.negotiate } : {}),
        ...(impl.onCancel ? { onCancel: impl.onCancel } : {}),
        onError: (e, taskId) => log.warn('task failed', { task_id: taskId, error: e }),
      }),
    );
    stoppables.push(
      await bus.consume({ durable: `an-agent-${taskToken(name)}`, filterSubjects: [subjects.taskStatus(name)], retryDelayMs: 500 }, async (e) => {
        if (e.type !== EventType.TaskStatus) return;
        const n = e.data;
        receipts.push({ task_id: n.task_id, seq: n.seq, status: n.status, received_at: new Date().toISOString() });
        if (receipts.length > MAX_RECEIPTS) receipts.splice(0, receipts.length - MAX_RECEIPTS);
        // At least once from the stream: a redelivered (task_id, seq) is not acted on twice.
        const key = `${n.task_id}#${n.seq}`;
        if (processed.has(key)) return;
        processed.add(key);
        try {
          await impl.onStatus?.(n);
        } catch (err) {
          log.error('status handling failed', { task_id: n.task_id, seq: n.seq, error: err });
        }
      }),
    );

    const route = async (r: string, body: unknown): Promise<unknown> => {
      const fn = impl.routes?.[r];
      if (!fn) throw new ParleyError('method_not_found', `No route ${r}`, { path: 'route', rule: 'known_route' });
      return fn(body);
    };
    if (opts.httpPort !== undefined) {
      server = createServer((req, res) => void serveHttp(req, res, health, impl, route, receipts, log));
      await new Promise<void>((resolve, reject) => {
        server!.once('error', reject);
        server!.listen(opts.httpPort, '0.0.0.0', () => resolve());
      });
      const addr = server.address();
      port = typeof addr === 'object' && addr ? addr.port : opts.httpPort;
    }

    // The gateway may come up after the agent: register until it answers.
    for (let attempt = 1; ; attempt++) {
      try {
        await gateway.call('register_profile', { profile });
        registered = true;
        break;
      } catch (e) {
        const err = toParleyError(e);
        if (attempt >= 120 || (err.type !== 'unavailable' && err.type !== 'internal')) throw e;
        if (attempt === 1 || attempt % 10 === 0) log.warn('profile registration failed, retrying', { attempt, error: err.message });
        await new Promise((r) => setTimeout(r, 500));
      }
    }
    log.info('AN agent serving', { agent: name, role, http_port: port ?? null });

    return {
      name,
      role,
      ...(port !== undefined ? { port } : {}),
      state: () => ({ agent: name, role, ...(impl.state() as object), received: [...receipts] }),
      control: route,
      async stop() {
        health.shuttingDown = true;
        if (server) await new Promise<void>((r) => server!.close(() => r()));
        for (const s of stoppables.splice(0).reverse()) await s.stop().catch(() => {});
        await agent.close();
        if (ownedBus) await bus.close();
      },
    };
  } catch (e) {
    server?.close();
    for (const s of stoppables.splice(0).reverse()) await s.stop().catch(() => {});
    await agent.close().catch(() => {});
    if (ownedBus) await bus.close().catch(() => {});
    throw e;
  }
}

async function serveHttp(
  req: IncomingMessage,
  res: ServerResponse,
  health: HealthState,
  impl: RoleImpl,
  route: (r: string, body: unknown) => Promise<unknown>,
  receipts: Receipt[],
  log: Logger,
): Promise<void> {
  const path = (req.url ?? '').split('?')[0] ?? '';
  const send = (status: number, body: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  };
  try {
    if (req.method === 'GET' && (await handleHealth(health, path, res))) return;
    if (req.method === 'GET' && path === '/state') return send(200, { ...(impl.state() as object), received: receipts });
    if (req.method !== 'POST') return send(404, { error: { type: 'method_not_found', message: `no ${req.method} ${path}` } });
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const c of req) {
      size += (c as Buffer).length;
      if (size > 4 * 1024 * 1024) return send(413, { error: { type: 'body_too_large', message: 'at most 4 MiB' } });
      chunks.push(c as Buffer);
    }
    let body: unknown = {};
    const text = Buffer.concat(chunks).toString('utf8');
    if (text.trim() !== '') {
      try {
        body = JSON.parse(text);
      } catch {
        return send(400, { error: { type: 'parse_error', message: 'the body is not JSON', path: 'body', rule: 'json' } });
      }
    }
    send(200, await route(`POST ${path}`, body));
  } catch (e) {
    const err = toParleyError(e);
    if (err.type === 'internal') log.error('control route failed', { path, error: e });
    send(err.type === 'method_not_found' ? 404 : err.type === 'internal' ? 500 : 400, { error: err.toJSON() });
  }
}
