/**
 * The deployment artifacts stay buildable and keep the env contract of
 * infra/README.md: the kustomize base and overlays (built with `kubectl
 * kustomize`, offline), docker-compose.yml and the Dockerfile.
 *
 * kubectl, openssl or nats-server missing: the tests needing it fail when CI
 * is set and are skipped, loudly (on stderr), elsewhere (libs/testkit tools.ts).
 * KUBECTL=/path/to/kubectl and NATS_SERVER_BIN pick specific binaries.
 *
 * TLS (draft-zhou §7): every Parley pod mounts the Secret parley-tls and points
 * PARLEY_TLS_* at it, NATS-using pods connect over TLS as their own user, the
 * gateway is probed over HTTPS; compose does the same with scripts/gen-dev-certs.sh
 * (whose SANs must cover every name the manifests use) and infra/nats/nats.conf.
 *
 * Identity (draft-zhou §7, authenticated callers): every service takes PARLEY_SERVICE_TOKEN (the
 * services' shared credential) from the Secret parley-auth, required; the registry
 * takes PARLEY_BOOTSTRAP_OPERATOR_KEY from it, optional; every other service checks
 * API keys at the registry (REGISTRY_ADDR). dev generates parley-auth, prod does not;
 * compose gives every service the same token and the agents a key by default. The
 * old shared operator token (PARLEY_OPERATOR_TOKEN) is gone from every deployment file.
 */
import { execFile, execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { parse, parseAllDocuments } from 'yaml';
import { findExecutable, findNatsServer, toolGate } from '@parley/testkit';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');

// ---------------------------------------------------------------- the contract
const SCENARIOS = ['flight_booking', 'photo_retouch', 'fault_management'] as const;

interface AppContract {
  /** The port the readiness probe and health endpoints use: HEALTH_PORT, or PORT for the gateway. */
  healthEnv: 'HEALTH_PORT' | 'PORT';
  healthPort: number;
  /** The port its Service exposes. */
  servicePort: number;
  needs: string[];
  /** One process owns its state (schema self-evolution): 1 replica, `Recreate`, never scaled. */
  singleWriter?: true;
}

type AppName = 'registry' | 'negotiation' | 'execution' | 'semantic-pool' | 'evolution' | 'gateway';
const APPS: Record<AppName, AppContract> = {
  registry: { healthEnv: 'HEALTH_PORT', healthPort: 8081, servicePort: 50051, needs: ['DATABASE_URL', 'NATS_URL', 'GRPC_PORT', 'PARLEY_SUBJECT_PREFIX', 'LOG_LEVEL'] },
  // Consumes the patch events of evolution (draft-zhou §6.2.2).
  negotiation: { healthEnv: 'HEALTH_PORT', healthPort: 8082, servicePort: 50052, needs: ['DATABASE_URL', 'NATS_URL', 'PARLEY_SUBJECT_PREFIX', 'GRPC_PORT', 'LOG_LEVEL'] },
  execution: {
    healthEnv: 'HEALTH_PORT',
    healthPort: 8083,
    servicePort: 50053,
    needs: ['DATABASE_URL', 'NATS_URL', 'NEGOTIATION_ADDR', 'GRPC_PORT', 'EXECUTE_TIMEOUT_MS', 'PARLEY_SUBJECT_PREFIX', 'LOG_LEVEL'],
  },
  'semantic-pool': {
    healthEnv: 'HEALTH_PORT',
    healthPort: 8084,
    servicePort: 50054,
    needs: ['DATABASE_URL', 'NATS_URL', 'PARLEY_SUBJECT_PREFIX', 'GRPC_PORT', 'LOG_LEVEL'],
    singleWriter: true,
  },
  evolution: {
    healthEnv: 'HEALTH_PORT',
    healthPort: 8085,
    servicePort: 50055,
    needs: ['DATABASE_URL', 'NATS_URL', 'PARLEY_SUBJECT_PREFIX', 'NEGOTIATION_ADDR', 'GRPC_PORT', 'PARLEY_TICK_MS', 'LOG_LEVEL'],
    singleWriter: true,
  },
  gateway: {
    healthEnv: 'PORT',
    healthPort: 8080,
    servicePort: 8080,
    needs: ['NEGOTIATION_ADDR', 'EXECUTION_ADDR', 'SEMANTIC_POOL_ADDR', 'EVOLUTION_ADDR', 'MAX_BODY_BYTES', 'LOG_LEVEL'],
  },
};
const APP_NAMES = Object.keys(APPS) as AppName[];
// ---------------------------------------------------------------- identity contract (draft-zhou §7)
/** What every service reads (libs/runtime authFromEnv): PARLEY_SERVICE_TOKEN is required. */
const AUTH_NEEDS = ['PARLEY_SERVICE_TOKEN'];
/** Every service but the registry checks API keys at the registry's ApiKeyService (authenticatorFromEnv). */
const REGISTRY_CLIENTS = APP_NAMES.filter((a) => a !== 'registry');
for (const app of APP_NAMES) APPS[app].needs.push(...AUTH_NEEDS, ...(app === 'registry' ? [] : ['REGISTRY_ADDR']));
APPS.gateway.needs.push('RATE_LIMIT_PER_SECOND', 'RATE_LIMIT_BURST');
const MIN_SERVICE_TOKEN_LENGTH = 32;
/** An API key as `parley keys mint` makes it (libs/auth API_KEY_PATTERN). */
const API_KEY = /^pk_[0-9a-f]{16}_[A-Za-z0-9_-]{43}$/;
const AUTH_SECRET = /^parley-auth(-[a-z0-9]+)?$/;
/** Gone with API keys and roles: no deployment file may mention it. */
const OLD_OPERATOR_TOKEN = 'PARLEY_OPERATOR_TOKEN';
const SINGLE_WRITERS = APP_NAMES.filter((a) => APPS[a].singleWriter);
/** The gateway's gRPC backends: variable → the app whose Service it must name. */
const GATEWAY_BACKENDS: Record<string, AppName> = {
  REGISTRY_ADDR: 'registry',
  NEGOTIATION_ADDR: 'negotiation',
  EXECUTION_ADDR: 'execution',
  SEMANTIC_POOL_ADDR: 'semantic-pool',
  EVOLUTION_ADDR: 'evolution',
};
const AGENT_NEEDS = ['SCENARIO', 'NATS_URL', 'GATEWAY_URL', 'HEALTH_PORT', 'PARLEY_SUBJECT_PREFIX'];

// ---------------------------------------------------------------- TLS contract (draft-zhou §7)
interface NatsUser {
  user: string;
  /** The compose variable, the Secret parley-nats-auth key and the nats.conf variable of its password. */
  password: string;
}
/** One NATS user per service; the example agents share `agents`. */
const NATS_USERS: Record<Exclude<AppName, 'gateway'>, NatsUser> = {
  registry: { user: 'registry', password: 'REGISTRY_NATS_PASSWORD' },
  negotiation: { user: 'negotiation', password: 'NEGOTIATION_NATS_PASSWORD' },
  execution: { user: 'execution', password: 'EXECUTION_NATS_PASSWORD' },
  'semantic-pool': { user: 'semantic-pool', password: 'SEMANTIC_POOL_NATS_PASSWORD' },
  evolution: { user: 'evolution', password: 'EVOLUTION_NATS_PASSWORD' },
};
const AGENTS_NATS: NatsUser = { user: 'agents', password: 'AGENTS_NATS_PASSWORD' };
/** Names TLS clients dial (gRPC targets, NATS, the gateway): compose service names and Kubernetes Service names alike. */
const TLS_NAMES = ['registry', 'negotiation', 'execution', 'semantic-pool', 'evolution', 'gateway', 'nats'] as const;
const NATS_CONF = 'infra/nats/nats.conf';
/** The users of a nats.conf: `{ user: NAME, password: $VARIABLE }`. */
function natsConfUsers(text: string): NatsUser[] {
  return [...text.matchAll(/\{\s*user:\s*([\w-]+)\s*,\s*password:\s*\$([A-Z0-9_]+)\s*\}/g)].map((m) => ({ user: m[1]!, password: m[2]! }));
}
const byUser = (users: NatsUser[]) => [...users].sort((a, b) => a.user.localeCompare(b.user));

const openssl = findExecutable('openssl');
const natsServer = findNatsServer();
/** The checks of scripts/gen-dev-certs.sh and of the health checks over HTTPS need openssl. */
const opensslGate = toolGate('infra: dev certificates and HTTPS health checks', { openssl });
/** infra/nats/nats.conf is checked by nats-server itself (`-t`), with dev certificates. */
const natsConfGate = toolGate('infra: nats-server accepts infra/nats/nats.conf', { 'nats-server': natsServer, openssl });

/** Development certificates from scripts/gen-dev-certs.sh, made once per run in a temporary directory. */
const tmpDirs: string[] = [];
afterAll(() => {
  for (const d of tmpDirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
function genDevCerts(): string {
  const dir = mkdtempSync(join(tmpdir(), 'parley-infra-certs-'));
  tmpDirs.push(dir);
  execFileSync('bash', [join(root, 'scripts/gen-dev-certs.sh'), dir], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  return dir;
}
let devCerts: string | undefined;
const sharedDevCerts = () => (devCerts ??= genDevCerts());
/** The SANs of a certificate: `DNS:name` / `IP:address`. */
function certSans(file: string): string[] {
  const text = execFileSync(openssl!, ['x509', '-in', file, '-noout', '-text'], { encoding: 'utf8' });
  const line = /X509v3 Subject Alternative Name:[^\n]*\n\s*([^\n]+)/.exec(text)?.[1] ?? '';
  return line.split(',').map((x) => x.trim().replace(/^IP Address:/, 'IP:'));
}

const agentName = (scenario: string) => `agent-${scenario.replace(/_/g, '-')}`;

// ---------------------------------------------------------------- minimal Kubernetes types
type Labels = Record<string, string>;
interface Meta {
  name: string;
  namespace?: string;
  labels?: Labels;
}
interface Probe {
  httpGet?: { path?: string; port?: string | number; scheme?: string };
  exec?: { command?: string[] };
}
interface EnvVar {
  name: string;
  value?: string;
  valueFrom?: { secretKeyRef?: { name: string; key: string; optional?: boolean }; configMapKeyRef?: { name: string; key: string; optional?: boolean } };
}
interface Container {
  name: string;
  image?: string;
  command?: string[];
  args?: string[];
  ports?: { name?: string; containerPort: number }[];
  env?: EnvVar[];
  envFrom?: { configMapRef?: { name: string }; secretRef?: { name: string } }[];
  startupProbe?: Probe;
  readinessProbe?: Probe;
  livenessProbe?: Probe;
  volumeMounts?: { name: string; mountPath: string; readOnly?: boolean; subPath?: string }[];
  resources?: { requests?: Record<string, string>; limits?: Record<string, string> };
  securityContext?: { allowPrivilegeEscalation?: boolean; runAsNonRoot?: boolean };
}
interface Workload {
  kind: 'Deployment' | 'StatefulSet';
  metadata: Meta;
  spec: {
    replicas?: number;
    strategy?: { type?: string };
    selector: { matchLabels: Labels };
    template: { metadata: { labels: Labels }; spec: { containers: Container[]; volumes?: Volume[]; securityContext?: { runAsNonRoot?: boolean; runAsUser?: number } } };
  };
}
interface Volume {
  name: string;
  secret?: { secretName: string; defaultMode?: number };
  configMap?: { name: string };
  emptyDir?: object;
}
interface Service {
  kind: 'Service';
  metadata: Meta;
  spec: { selector?: Labels; clusterIP?: string; ports: { name?: string; port: number; targetPort?: string | number }[] };
}
interface Hpa {
  kind: 'HorizontalPodAutoscaler';
  metadata: Meta;
  spec: {
    scaleTargetRef: { kind: string; name: string };
    minReplicas?: number;
    maxReplicas: number;
    metrics?: { type: string; resource?: { name: string; target: { averageUtilization?: number } } }[];
  };
}
interface ScaledObject {
  kind: 'ScaledObject';
  apiVersion: string;
  metadata: Meta;
  spec: {
    scaleTargetRef: { apiVersion?: string; kind?: string; name: string };
    minReplicaCount: number;
    maxReplicaCount: number;
    triggers: { type: string; metadata: Record<string, string> }[];
  };
}
interface K8sObject {
  apiVersion: string;
  kind: string;
  metadata: Meta;
  data?: Record<string, string>;
}

class Manifests {
  constructor(readonly objects: K8sObject[]) {}
  all<T>(kind: string): T[] {
    return this.objects.filter((o) => o.kind === kind) as T[];
  }
  find<T>(kind: string, name: string): T | undefined {
    return this.objects.find((o) => o.kind === kind && o.metadata.name === name) as T | undefined;
  }
  get<T>(kind: string, name: string): T {
    const o = this.find<T>(kind, name);
    if (!o) throw new Error(`no ${kind} named ${name}; have: ${this.objects.map((x) => `${x.kind}/${x.metadata.name}`).join(', ')}`);
    return o;
  }
  /** Every env var name a container gets: its own env plus the keys of the ConfigMaps/Secrets it loads whole. */
  envNames(c: Container): Set<string> {
    const names = new Set((c.env ?? []).map((e) => e.name));
    for (const src of c.envFrom ?? []) {
      const ref = src.configMapRef ?? src.secretRef;
      const kind = src.configMapRef ? 'ConfigMap' : 'Secret';
      if (!ref) continue;
      for (const k of Object.keys(this.get<K8sObject>(kind, ref.name).data ?? {})) names.add(k);
    }
    return names;
  }
  /** The value of a plain env var, from the container's env or a ConfigMap it loads. */
  envValue(c: Container, name: string): string | undefined {
    const own = (c.env ?? []).find((e) => e.name === name);
    if (own) return own.value;
    for (const src of c.envFrom ?? []) {
      if (!src.configMapRef) continue;
      const v = this.get<K8sObject>('ConfigMap', src.configMapRef.name).data?.[name];
      if (v !== undefined) return v;
    }
    return undefined;
  }
}

// ---------------------------------------------------------------- kubectl
const kubectl = findExecutable('kubectl', { envVar: 'KUBECTL' });
const kubectlGate = toolGate('kustomize builds (infra/k8s)', { kubectl });

function kustomize(dir: string): Manifests {
  if (!kubectl) throw new Error(`CI is set but kubectl is not on PATH: cannot build ${dir} (set KUBECTL or install kubectl)`);
  const out = execFileSync(kubectl, ['kustomize', join(root, dir)], { encoding: 'utf8', maxBuffer: 32 * 1024 * 1024, stdio: ['ignore', 'pipe', 'pipe'] });
  const docs = parseAllDocuments(out);
  const objects: K8sObject[] = [];
  for (const d of docs) {
    if (d.errors.length > 0) throw new Error(`${dir}: kustomize output is not valid YAML: ${d.errors[0]?.message}`);
    const js: unknown = d.toJS();
    if (js) objects.push(js as K8sObject);
  }
  return new Manifests(objects);
}

// ---------------------------------------------------------------- shared checks
function readinessPort(w: Workload): number {
  const c = w.spec.template.spec.containers[0]!;
  const port = c.readinessProbe?.httpGet?.port;
  if (typeof port === 'number') return port;
  const named = (c.ports ?? []).find((p) => p.name === port);
  if (!named) throw new Error(`${w.metadata.name}: readiness probe port ${String(port)} names no container port`);
  return named.containerPort;
}

function checkParleyWorkload(w: Workload, name: string) {
  expect(w.metadata.labels?.['app.kubernetes.io/name']).toBe(name);
  expect(w.metadata.labels?.['app.kubernetes.io/part-of']).toBe('parley');
  const tpl = w.spec.template;
  expect(tpl.metadata.labels['app.kubernetes.io/part-of']).toBe('parley');
  // The selector selects this template.
  for (const [k, v] of Object.entries(w.spec.selector.matchLabels)) expect(tpl.metadata.labels[k], `${name} selector ${k}`).toBe(v);
  expect(tpl.spec.securityContext?.runAsNonRoot, `${name} runAsNonRoot`).toBe(true);
  expect(tpl.spec.containers).toHaveLength(1);
  const c = tpl.spec.containers[0]!;
  expect(c.securityContext?.allowPrivilegeEscalation, `${name} allowPrivilegeEscalation`).toBe(false);
  expect(c.readinessProbe?.httpGet?.path, `${name} readinessProbe`).toBe('/readyz');
  expect(c.livenessProbe?.httpGet?.path, `${name} livenessProbe`).toBe('/healthz');
  expect(c.resources?.requests?.cpu && c.resources.requests.memory, `${name} requests`).toBeTruthy();
  expect(c.resources?.limits?.cpu && c.resources.limits.memory, `${name} limits`).toBeTruthy();
  expect((c.envFrom ?? []).some((e) => e.configMapRef), `${name} env from the shared ConfigMap`).toBe(true);
  // `args`, so the image's ENTRYPOINT (tini) stays.
  expect(c.command, `${name} must not override the image ENTRYPOINT`).toBeUndefined();
  return c;
}

function checkAppsAndAgents(m: Manifests) {
  for (const app of APP_NAMES) {
    const contract = APPS[app];
    const d = m.get<Workload>('Deployment', app);
    const c = checkParleyWorkload(d, app);
    expect(c.args?.join(' ')).toContain(`apps/${app}/src/main.ts`);
    const env = m.envNames(c);
    for (const need of [...contract.needs, contract.healthEnv]) expect(env.has(need), `${app} gets ${need}`).toBe(true);
    expect(Number(m.envValue(c, contract.healthEnv)), `${app} ${contract.healthEnv}`).toBe(contract.healthPort);
    expect(readinessPort(d), `${app} readiness probe port`).toBe(contract.healthPort);

    const svc = m.get<Service>('Service', app);
    for (const [k, v] of Object.entries(svc.spec.selector ?? {})) expect(d.spec.template.metadata.labels[k], `${app} Service selector ${k}`).toBe(v);
    expect(Object.keys(svc.spec.selector ?? {}).length).toBeGreaterThan(0);
    expect(svc.spec.ports.map((p) => p.port)).toContain(contract.servicePort);
    if (contract.singleWriter) checkSingleWriter(d);
  }

  // Every backend address the gateway gets names that backend's Service and port.
  const gateway = m.get<Workload>('Deployment', 'gateway').spec.template.spec.containers[0]!;
  for (const [variable, app] of Object.entries(GATEWAY_BACKENDS)) expect(m.envValue(gateway, variable), `gateway ${variable}`).toBe(`${app}:${APPS[app].servicePort}`);

  const agents = m.all<Workload>('Deployment').filter((d) => d.spec.template.spec.containers[0]?.args?.join(' ').includes('apps/example-agents/src/main.ts'));
  expect(agents.map((a) => a.metadata.name).sort()).toEqual(SCENARIOS.map(agentName).sort());
  for (const scenario of SCENARIOS) {
    const d = m.get<Workload>('Deployment', agentName(scenario));
    const c = checkParleyWorkload(d, agentName(scenario));
    expect(m.envValue(c, 'SCENARIO')).toBe(scenario);
    for (const need of AGENT_NEEDS) expect(m.envNames(c).has(need), `${agentName(scenario)} gets ${need}`).toBe(true);
    expect(readinessPort(d)).toBe(Number(m.envValue(c, 'HEALTH_PORT')));
  }

  // Agents' replicas belong to the overlay's autoscaler, never to the Deployment.
  for (const scenario of SCENARIOS) expect(m.get<Workload>('Deployment', agentName(scenario)).spec.replicas, `${agentName(scenario)} replicas`).toBeUndefined();

  // Everything namespaced lands in `parley`.
  for (const o of m.objects) if (o.kind !== 'Namespace') expect(o.metadata.namespace, `${o.kind}/${o.metadata.name}`).toBe('parley');
}

/** A single writer: exactly one pod, and never two at once (the old pod is gone before the new one starts). */
function checkSingleWriter(d: Workload) {
  expect(d.spec.replicas, `${d.metadata.name} replicas`).toBe(1);
  expect(d.spec.strategy?.type, `${d.metadata.name} strategy`).toBe('Recreate');
}

/** The Secret reference of `name` in a container: never a literal value. */
function secretRef(c: Container, name: string, who: string) {
  const e = c.env?.find((x) => x.name === name);
  expect(e, `${who} ${name}`).toBeDefined();
  expect(e!.value, `${who} ${name} is not a literal`).toBeUndefined();
  const ref = e!.valueFrom?.secretKeyRef;
  expect(ref, `${who} ${name} from a Secret`).toBeDefined();
  return ref!;
}
const decoded = (m: Manifests, name: string, key: string) => Buffer.from(m.get<K8sObject>('Secret', name).data?.[key] ?? '', 'base64').toString('utf8');

/**
 * Identity (draft-zhou §7): every service takes PARLEY_SERVICE_TOKEN from the Secret parley-auth, one and the
 * same for all (so they can call each other), required; the registry alone takes the optional
 * PARLEY_BOOTSTRAP_OPERATOR_KEY from it; every other service reaches the registry's Service at
 * REGISTRY_ADDR for API keys; nothing mentions the old operator token. Returns the Secret's name.
 */
function checkIdentity(m: Manifests): string {
  const names = new Set<string>();
  for (const app of APP_NAMES) {
    const c = m.get<Workload>('Deployment', app).spec.template.spec.containers[0]!;
    const ref = secretRef(c, 'PARLEY_SERVICE_TOKEN', app);
    expect(ref.name, `${app} PARLEY_SERVICE_TOKEN Secret`).toMatch(AUTH_SECRET);
    expect(ref.key, `${app} PARLEY_SERVICE_TOKEN key`).toBe('PARLEY_SERVICE_TOKEN');
    expect(ref.optional, `${app} PARLEY_SERVICE_TOKEN is required (a service without it does not start)`).toBeFalsy();
    names.add(ref.name);

    const boot = c.env?.find((e) => e.name === 'PARLEY_BOOTSTRAP_OPERATOR_KEY');
    if (app === 'registry') {
      const b = secretRef(c, 'PARLEY_BOOTSTRAP_OPERATOR_KEY', app);
      expect(b).toEqual({ name: ref.name, key: 'PARLEY_BOOTSTRAP_OPERATOR_KEY', optional: true });
    } else {
      expect(boot, `${app} has no bootstrap operator key (the registry's alone)`).toBeUndefined();
      // API keys are checked at the registry: REGISTRY_ADDR names its Service and gRPC port.
      expect(m.envValue(c, 'REGISTRY_ADDR'), `${app} REGISTRY_ADDR`).toBe(`registry:${APPS.registry.servicePort}`);
    }
    // Optional settings: PARLEY_JWT_ISSUERS, when set, through parley-config (or an optional key).
    const jwt = c.env?.find((e) => e.name === 'PARLEY_JWT_ISSUERS');
    if (jwt) expect(jwt.value === undefined && (jwt.valueFrom?.configMapKeyRef?.optional ?? jwt.valueFrom?.secretKeyRef?.optional), `${app} PARLEY_JWT_ISSUERS optional`).toBe(true);
    const tenant = m.envValue(c, 'PARLEY_TENANT');
    if (tenant !== undefined) expect(tenant, `${app} PARLEY_TENANT`).toMatch(/^[a-z0-9][a-z0-9_.-]*$/i);
  }
  expect([...names], 'one service token for every service').toHaveLength(1);
  expect(m.find<Service>('Service', 'registry')?.spec.ports.map((p) => p.port)).toContain(APPS.registry.servicePort);
  // The agents' keys never come from parley-auth's service token.
  for (const s of SCENARIOS) {
    const c = m.get<Workload>('Deployment', agentName(s)).spec.template.spec.containers[0]!;
    expect(c.env?.some((e) => e.name === 'PARLEY_SERVICE_TOKEN' || e.valueFrom?.secretKeyRef?.key === 'PARLEY_SERVICE_TOKEN'), `${agentName(s)} never gets the service token`).toBe(false);
  }
  // The old shared operator token is gone: no env, no Secret, no ConfigMap key.
  const text = JSON.stringify(m.objects);
  expect(text.includes(OLD_OPERATOR_TOKEN), `no ${OLD_OPERATOR_TOKEN}`).toBe(false);
  expect(m.all<K8sObject>('Secret').filter((x) => x.metadata.name.startsWith('parley-operator'))).toEqual([]);
  return [...names][0]!;
}

/**
 * Every Secret/ConfigMap a workload references by name is in the build (kustomize rewrote the hashed names);
 * an `optional: true` Secret may be absent (created outside the kustomization), but when present has the key.
 */
function checkReferencesResolve(m: Manifests) {
  for (const w of [...m.all<Workload>('Deployment'), ...m.all<Workload>('StatefulSet')]) {
    for (const c of w.spec.template.spec.containers) {
      for (const e of c.env ?? []) {
        const s = e.valueFrom?.secretKeyRef;
        if (s?.optional && !m.find('Secret', s.name)) continue;
        if (s) expect(m.get<K8sObject>('Secret', s.name).data?.[s.key], `${w.metadata.name} ${e.name} -> ${s.name}/${s.key}`).toBeDefined();
      }
      for (const f of c.envFrom ?? []) if (f.configMapRef) m.get('ConfigMap', f.configMapRef.name);
    }
  }
}

/** Where a workload mounts the Secret parley-tls (read-only). */
function tlsMountPath(w: Workload): string {
  const spec = w.spec.template.spec;
  const vol = (spec.volumes ?? []).find((v) => v.secret?.secretName === 'parley-tls');
  expect(vol, `${w.metadata.name} has a volume of the Secret parley-tls`).toBeDefined();
  // 0440 or tighter: the key is not world-readable.
  expect((vol!.secret!.defaultMode ?? 0o644) & 0o007, `${w.metadata.name} parley-tls defaultMode`).toBe(0);
  const mount = (spec.containers[0]!.volumeMounts ?? []).find((vm) => vm.name === vol!.name);
  expect(mount, `${w.metadata.name} mounts parley-tls`).toBeDefined();
  expect(mount!.readOnly, `${w.metadata.name} mounts parley-tls read-only`).toBe(true);
  return mount!.mountPath;
}

/**
 * TLS on every hop: each Parley Deployment mounts parley-tls and points PARLEY_TLS_* at its keys
 * (tls.crt, tls.key, ca.crt: cert-manager's layout); NATS-using ones connect over TLS as their own
 * user with the password from parley-nats-auth; the gateway is probed over HTTPS, the health ports
 * over HTTP; the agents reach the gateway over https trusting the CA.
 */
function checkTls(m: Manifests) {
  const nats: Record<string, NatsUser> = { ...NATS_USERS, ...Object.fromEntries(SCENARIOS.map((s) => [agentName(s), AGENTS_NATS])) };
  for (const name of [...APP_NAMES, ...SCENARIOS.map(agentName)]) {
    const d = m.get<Workload>('Deployment', name);
    const c = d.spec.template.spec.containers[0]!;
    const dir = tlsMountPath(d);
    expect(m.envValue(c, 'PARLEY_TLS_CERT'), `${name} PARLEY_TLS_CERT`).toBe(`${dir}/tls.crt`);
    expect(m.envValue(c, 'PARLEY_TLS_KEY'), `${name} PARLEY_TLS_KEY`).toBe(`${dir}/tls.key`);
    expect(m.envValue(c, 'PARLEY_TLS_CA'), `${name} PARLEY_TLS_CA`).toBe(`${dir}/ca.crt`);

    const want = nats[name];
    // (Every container sees NATS_URL through parley-config; the label says who connects.)
    expect(d.metadata.labels?.['parley.dev/uses-nats'] === 'true', `${name} uses NATS`).toBe(want !== undefined);
    if (want) {
      expect(m.envValue(c, 'NATS_TLS') === 'true' || (m.envValue(c, 'NATS_URL') ?? '').startsWith('tls://'), `${name} NATS over TLS`).toBe(true);
      expect(m.envValue(c, 'NATS_USER'), `${name} NATS_USER`).toBe(want.user);
      const pw = c.env?.find((e) => e.name === 'NATS_PASSWORD');
      expect(pw?.value, `${name} NATS_PASSWORD is not a literal`).toBeUndefined();
      expect(pw?.valueFrom?.secretKeyRef?.name, `${name} NATS_PASSWORD Secret`).toMatch(/^parley-nats-auth(-[a-z0-9]+)?$/);
      expect(pw?.valueFrom?.secretKeyRef?.key, `${name} NATS_PASSWORD key`).toBe(want.password);
      expect(pw?.valueFrom?.secretKeyRef?.optional, `${name} NATS_PASSWORD is required`).toBeFalsy();
    }

    const scheme = name === 'gateway' ? 'HTTPS' : 'HTTP';
    for (const [kind, probe] of [['startup', c.startupProbe], ['readiness', c.readinessProbe], ['liveness', c.livenessProbe]] as const) {
      expect(probe?.httpGet, `${name} ${kind}Probe`).toBeDefined();
      expect(probe!.httpGet!.scheme ?? 'HTTP', `${name} ${kind}Probe scheme`).toBe(scheme);
    }
  }
  for (const s of SCENARIOS) {
    const c = m.get<Workload>('Deployment', agentName(s)).spec.template.spec.containers[0]!;
    expect(new URL(m.envValue(c, 'GATEWAY_URL')!).protocol, `${agentName(s)} GATEWAY_URL`).toBe('https:');
    expect(m.envValue(c, 'NODE_EXTRA_CA_CERTS'), `${agentName(s)} trusts the CA for the gateway`).toBe(m.envValue(c, 'PARLEY_TLS_CA'));
    // Its gateway API key: from an optional Secret, never a literal.
    const key = c.env?.find((e) => e.name === 'PARLEY_API_KEY');
    if (key) {
      expect(key.value, `${agentName(s)} PARLEY_API_KEY is not a literal`).toBeUndefined();
      expect(key.valueFrom?.secretKeyRef?.optional, `${agentName(s)} PARLEY_API_KEY from an optional Secret`).toBe(true);
    }
  }
  // The gateway's Service speaks https.
  const gw = m.get<Service>('Service', 'gateway').spec.ports.find((p) => p.port === APPS.gateway.servicePort);
  expect(gw?.name).toBe('https');
}

/** The dev NATS: TLS from parley-tls, users and passwords from nats.conf (the compose file's, verbatim) and parley-nats-auth. */
function checkNatsServerTls(m: Manifests) {
  const nats = m.get<Workload>('StatefulSet', 'nats');
  const c = nats.spec.template.spec.containers[0]!;
  const args = [...(c.command ?? []), ...(c.args ?? [])];
  const conf = args[args.indexOf('-c') + 1] ?? args[args.indexOf('--config') + 1];
  expect(conf, 'nats -c <config>').toBeDefined();
  const confMount = (c.volumeMounts ?? []).find((vm) => vm.mountPath === conf);
  expect(confMount?.subPath, 'nats config mounted as one file').toBeDefined();
  const confVolume = (nats.spec.template.spec.volumes ?? []).find((v) => v.name === confMount!.name);
  const text = m.get<K8sObject>('ConfigMap', confVolume!.configMap!.name).data![confMount!.subPath!]!;
  expect(text, 'the dev nats.conf is infra/nats/nats.conf').toBe(readFileSync(join(root, NATS_CONF), 'utf8'));

  const dir = tlsMountPath(nats);
  const env = Object.fromEntries((c.env ?? []).map((e) => [e.name, e.value]));
  expect([env.PARLEY_TLS_CERT, env.PARLEY_TLS_KEY, env.PARLEY_TLS_CA]).toEqual([`${dir}/tls.crt`, `${dir}/tls.key`, `${dir}/ca.crt`]);

  // Every user of nats.conf is a service's, and its password variable is a key of the Secret the server loads.
  expect(byUser(natsConfUsers(text))).toEqual(byUser([...Object.values(NATS_USERS), AGENTS_NATS]));
  const secretName = (c.envFrom ?? []).find((f) => f.secretRef)?.secretRef?.name;
  expect(secretName, 'nats loads the NATS passwords').toMatch(/^parley-nats-auth(-[a-z0-9]+)?$/);
  const secret = m.get<K8sObject>('Secret', secretName!).data ?? {};
  for (const u of natsConfUsers(text)) expect(Buffer.from(secret[u.password] ?? '', 'base64').toString('utf8'), `parley-nats-auth ${u.password}`).not.toBe('');
  // The services and agents use that same Secret.
  const registry = m.get<Workload>('Deployment', 'registry').spec.template.spec.containers[0]!;
  expect(registry.env?.find((e) => e.name === 'NATS_PASSWORD')?.valueFrom?.secretKeyRef?.name).toBe(secretName);
}

// ---------------------------------------------------------------- kustomize
/** Builds a kustomization once, on first use, so a missing kubectl fails each test by name. */
function lazyKustomize(dir: string): () => Manifests {
  let built: Manifests | undefined;
  return () => (built ??= kustomize(dir));
}

describe.skipIf(kubectlGate.skip)('kustomize builds (infra/k8s)', () => {
  const buildBase = lazyKustomize('infra/k8s/base');
  const buildDev = lazyKustomize('infra/k8s/overlays/dev');
  const buildProd = lazyKustomize('infra/k8s/overlays/prod');
  const buildDevCertManager = lazyKustomize('infra/k8s/overlays/dev-cert-manager');

  it('base: a Namespace, the shared ConfigMap, every app with a probed Deployment and a Service, one agent Deployment per scenario', () => {
    const base = buildBase();
    expect(base.find('Namespace', 'parley')).toBeDefined();
    expect(base.all<K8sObject>('ConfigMap').some((c) => c.metadata.name.startsWith('parley-config'))).toBe(true);
    checkAppsAndAgents(base);
  });

  it('dev overlay: adds NATS with JetStream and PostgreSQL in-cluster, wired to the apps', () => {
    const dev = buildDev();
    checkAppsAndAgents(dev);
    checkReferencesResolve(dev);

    const nats = dev.get<Workload>('StatefulSet', 'nats');
    const natsArgs = [...(nats.spec.template.spec.containers[0]?.command ?? []), ...(nats.spec.template.spec.containers[0]?.args ?? [])];
    expect(natsArgs).toContain('-js');
    expect(dev.get<Service>('Service', 'nats').spec.ports.map((p) => p.port)).toContain(4222);

    const pg = dev.get<Workload>('StatefulSet', 'postgres');
    expect(pg.spec.template.spec.containers[0]?.image).toMatch(/^postgres:16/);
    expect(dev.get<Service>('Service', 'postgres').spec.ports.map((p) => p.port)).toContain(5432);

    // The apps reach exactly those services.
    const registry = dev.get<Workload>('Deployment', 'registry').spec.template.spec.containers[0]!;
    expect(new URL(dev.envValue(registry, 'NATS_URL')!).hostname).toBe('nats');
    const dbRef = registry.env?.find((e) => e.name === 'DATABASE_URL')?.valueFrom?.secretKeyRef;
    const dbUrl = Buffer.from(dev.get<K8sObject>('Secret', dbRef!.name).data![dbRef!.key]!, 'base64').toString('utf8');
    expect(new URL(dbUrl).hostname).toBe('postgres');

    // The dev image tag.
    for (const d of dev.all<Workload>('Deployment')) expect(d.spec.template.spec.containers[0]?.image).toBe('parley:dev');

    // The semantic pool uses the in-cluster Qdrant.
    const pool = dev.get<Workload>('Deployment', 'semantic-pool').spec.template.spec.containers[0]!;
    expect(dev.envValue(pool, 'QDRANT_URL')).toBe('http://qdrant:6333');
    expect(dev.get<Service>('Service', 'qdrant').spec.ports.map((p) => p.port)).toContain(6333);
  });

  it('both overlays: semantic-pool and evolution are single writers (1 replica, Recreate); evolution\'s LLM key from an optional Secret', () => {
    for (const [name, m] of [['dev', buildDev()], ['prod', buildProd()]] as const) {
      for (const app of ['semantic-pool', 'evolution'] as const) {
        const d = m.get<Workload>('Deployment', app);
        expect(d.spec.replicas, `${name} ${app} replicas`).toBe(1);
        expect(d.spec.strategy?.type, `${name} ${app} strategy`).toBe('Recreate');
      }
      // evolution's LLM key: from an optional Secret, never a literal.
      const evolution = m.get<Workload>('Deployment', 'evolution').spec.template.spec.containers[0]!;
      const llmKey = evolution.env?.find((e) => e.name === 'PARLEY_LLM_API_KEY');
      expect(llmKey?.value, `${name} PARLEY_LLM_API_KEY is not a literal`).toBeUndefined();
      expect(llmKey?.valueFrom?.secretKeyRef?.optional, `${name} PARLEY_LLM_API_KEY from an optional Secret`).toBe(true);
    }
  });

  it('identity in every build: each service takes PARLEY_SERVICE_TOKEN from parley-auth (required), the registry its bootstrap operator key (optional), the others REGISTRY_ADDR', () => {
    for (const m of [buildBase(), buildDev(), buildProd(), buildDevCertManager()]) checkIdentity(m);
  });

  it('dev overlay: generates parley-auth (a service token of at least 32 characters, a bootstrap operator key) and the agents\' keys', () => {
    for (const dev of [buildDev(), buildDevCertManager()]) {
      const secret = checkIdentity(dev);
      expect(secret, 'generated (hashed name)').not.toBe('parley-auth');
      expect(decoded(dev, secret, 'PARLEY_SERVICE_TOKEN').length).toBeGreaterThanOrEqual(MIN_SERVICE_TOKEN_LENGTH);
      const operatorKey = decoded(dev, secret, 'PARLEY_BOOTSTRAP_OPERATOR_KEY');
      expect(operatorKey).toMatch(API_KEY);
      // Each agent registers with the dev operator key: nothing to create before `kubectl apply`.
      for (const s of SCENARIOS) {
        const c = dev.get<Workload>('Deployment', agentName(s)).spec.template.spec.containers[0]!;
        const ref = secretRef(c, 'PARLEY_API_KEY', agentName(s));
        expect(ref.optional, `${agentName(s)} PARLEY_API_KEY Secret optional`).toBe(true);
        expect(decoded(dev, ref.name, ref.key), `${agentName(s)} PARLEY_API_KEY`).toBe(operatorKey);
      }
    }
  });

  it('prod overlay: generates no parley-auth or agent keys (created outside, see its kustomization); the comments say how', () => {
    const prod = buildProd();
    expect(checkIdentity(prod)).toBe('parley-auth');
    expect(prod.all<K8sObject>('Secret').filter((x) => x.metadata.name.startsWith('parley-auth'))).toEqual([]);
    expect(prod.all<K8sObject>('Secret').filter((x) => x.metadata.name.startsWith('parley-agent-api-keys'))).toEqual([]);
    const doc = readFileSync(join(root, 'infra/k8s/overlays/prod/kustomization.yaml'), 'utf8');
    expect(doc).toContain('create secret generic parley-auth');
    expect(doc).toContain('--from-literal=PARLEY_SERVICE_TOKEN="$(openssl rand -hex 32)"');
    expect(doc).toContain('--from-literal=PARLEY_BOOTSTRAP_OPERATOR_KEY="$(npx parley keys mint)"');
  });

  it('prod overlay: backing services come from operator-managed Secrets, services run more than one replica', () => {
    const prod = buildProd();
    checkAppsAndAgents(prod);
    expect(prod.find('StatefulSet', 'postgres')).toBeUndefined();
    expect(prod.find('StatefulSet', 'nats')).toBeUndefined();
    for (const app of ['registry', 'negotiation', 'execution', 'semantic-pool', 'evolution'] as const) {
      const c = prod.get<Workload>('Deployment', app).spec.template.spec.containers[0]!;
      expect(c.env?.find((e) => e.name === 'DATABASE_URL')?.valueFrom?.secretKeyRef, `${app} DATABASE_URL`).toBeDefined();
    }
    for (const name of ['registry', 'negotiation', 'execution', 'semantic-pool', 'evolution', ...SCENARIOS.map(agentName)]) {
      const c = prod.get<Workload>('Deployment', name).spec.template.spec.containers[0]!;
      expect(c.env?.find((e) => e.name === 'NATS_URL')?.valueFrom?.secretKeyRef, `${name} NATS_URL`).toBeDefined();
    }
    for (const app of APP_NAMES.filter((a) => !APPS[a].singleWriter)) expect(prod.get<Workload>('Deployment', app).spec.replicas ?? 1, app).toBeGreaterThan(1);
  });

  it('TLS in every build: each Deployment mounts parley-tls and sets PARLEY_TLS_*, NATS over TLS with its own user, the gateway probed over HTTPS', () => {
    for (const m of [buildBase(), buildDev(), buildProd(), buildDevCertManager()]) checkTls(m);
  });

  it('dev overlay: NATS requires TLS and the users of infra/nats/nats.conf; parley-tls is created outside the kustomization', () => {
    const dev = buildDev();
    checkNatsServerTls(dev);
    // Certificates are not generated by kustomize (scripts/gen-dev-certs.sh + kubectl, or cert-manager).
    expect(dev.find('Secret', 'parley-tls')).toBeUndefined();
  });

  it('prod overlay: parley-tls and parley-nats-auth come from outside (cert-manager, your secret manager)', () => {
    const prod = buildProd();
    expect(prod.find('Secret', 'parley-tls')).toBeUndefined();
    expect(prod.all<K8sObject>('Secret').filter((s) => s.metadata.name.startsWith('parley-nats-auth'))).toEqual([]);
    const c = prod.get<Workload>('Deployment', 'registry').spec.template.spec.containers[0]!;
    expect(c.env?.find((e) => e.name === 'NATS_PASSWORD')?.valueFrom?.secretKeyRef?.name).toBe('parley-nats-auth');
  });

  it('dev-cert-manager overlay: cert-manager issues parley-tls for every Service name, server and client auth, from an Issuer in the build', () => {
    const m = buildDevCertManager();
    checkAppsAndAgents(m);
    checkReferencesResolve(m);
    checkNatsServerTls(m);
    interface Certificate extends K8sObject {
      spec: { secretName: string; dnsNames?: string[]; usages?: string[]; issuerRef: { kind?: string; name: string } };
    }
    const cert = m.all<Certificate>('Certificate').find((c) => c.spec.secretName === 'parley-tls');
    expect(cert, 'a Certificate writes parley-tls').toBeDefined();
    for (const n of TLS_NAMES) {
      expect(m.find('Service', n), `Service ${n}`).toBeDefined();
      for (const dns of [n, `${n}.parley.svc`, `${n}.parley.svc.cluster.local`]) expect(cert!.spec.dnsNames, `parley-tls dnsNames`).toContain(dns);
    }
    expect(cert!.spec.usages).toEqual(expect.arrayContaining(['server auth', 'client auth']));
    expect(m.find(cert!.spec.issuerRef.kind ?? 'Issuer', cert!.spec.issuerRef.name), 'its issuer is in the build').toBeDefined();
  });

  it.skipIf(opensslGate.skip)('scripts/gen-dev-certs.sh: the server certificate names every Service the pods dial, short and qualified', () => {
    opensslGate.assertPresent();
    const sans = certSans(join(sharedDevCerts(), 'server.crt'));
    const dev = buildDev();
    for (const n of TLS_NAMES) {
      expect(dev.find('Service', n), `Service ${n}`).toBeDefined();
      for (const dns of [n, `${n}.parley`, `${n}.parley.svc`, `${n}.parley.svc.cluster.local`]) expect(sans).toContain(`DNS:${dns}`);
    }
    // What the pods dial: the gRPC addresses and the gateway URL in parley-config, and NATS.
    const registry = dev.get<Workload>('Deployment', 'registry').spec.template.spec.containers[0]!;
    for (const v of ['REGISTRY_ADDR', 'NEGOTIATION_ADDR', 'EXECUTION_ADDR', 'SEMANTIC_POOL_ADDR', 'EVOLUTION_ADDR']) expect(sans).toContain(`DNS:${dev.envValue(registry, v)!.split(':')[0]}`);
    expect(sans).toContain(`DNS:${new URL(dev.envValue(registry, 'GATEWAY_URL')!).hostname}`);
    expect(sans).toContain(`DNS:${new URL(dev.envValue(registry, 'NATS_URL')!).hostname}`);
  });

  it('per-scenario autoscaling: prod has a KEDA ScaledObject per scenario agent on its request rate, dev the plain HPA variant, both with the bounds of infra/k8s/scaling.yaml; the base has none', () => {
    const scaling = parse(readFileSync(join(root, 'infra/k8s/scaling.yaml'), 'utf8')) as {
      prometheus: { serverAddress: string };
      defaults: Record<string, number>;
      scenarios: Record<string, { deployment: string } & Record<string, number | string>>;
    };
    expect(Object.keys(scaling.scenarios).sort()).toEqual([...SCENARIOS].sort());
    const want = (scenario: string) => ({ ...scaling.defaults, ...scaling.scenarios[scenario] }) as Record<string, number> & { deployment: string };
    const base = buildBase();
    expect(base.all('ScaledObject')).toEqual([]);
    expect(base.all('HorizontalPodAutoscaler')).toEqual([]);

    const prod = buildProd();
    expect(prod.all('HorizontalPodAutoscaler'), 'KEDA makes its own HPAs: none of ours beside it').toEqual([]);
    const scaled = prod.all<ScaledObject>('ScaledObject');
    expect(scaled.map((o) => o.spec.scaleTargetRef.name).sort()).toEqual(SCENARIOS.map(agentName).sort());
    for (const scenario of SCENARIOS) {
      const w = want(scenario);
      expect(w.deployment).toBe(agentName(scenario));
      const o = prod.get<ScaledObject>('ScaledObject', agentName(scenario));
      expect(o.apiVersion).toBe('keda.sh/v1alpha1');
      expect(o.metadata.namespace).toBe('parley');
      expect(prod.find('Deployment', o.spec.scaleTargetRef.name), 'its target exists').toBeDefined();
      expect(o.spec).toMatchObject({ minReplicaCount: w.minReplicas, maxReplicaCount: w.maxReplicas });
      expect(o.spec.maxReplicaCount).toBeGreaterThanOrEqual(o.spec.minReplicaCount);
      const t = o.spec.triggers[0]!;
      expect(t.type).toBe('prometheus');
      expect(t.metadata.serverAddress).toBe(scaling.prometheus.serverAddress);
      expect(Number(t.metadata.threshold)).toBe(w.requestsPerSecondPerReplica);
      // That scenario's executions, whatever their outcome (the metric of libs/runtime metrics.ts).
      expect(t.metadata.query).toMatch(new RegExp(`^sum\\(rate\\(parley_executions_total\\{scenario="${scenario}"\\}\\[\\d+[smh]\\]\\)\\)$`));
    }

    for (const dev of [buildDev(), buildDevCertManager()]) {
      expect(dev.all('ScaledObject')).toEqual([]);
      for (const scenario of SCENARIOS) {
        const w = want(scenario);
        const hpa = dev.get<Hpa>('HorizontalPodAutoscaler', agentName(scenario));
        expect(hpa.spec.scaleTargetRef).toMatchObject({ kind: 'Deployment', name: agentName(scenario) });
        expect(hpa.spec).toMatchObject({ minReplicas: w.minReplicas, maxReplicas: w.maxReplicas });
        expect(hpa.spec.metrics?.[0]?.resource).toMatchObject({ name: 'cpu', target: { averageUtilization: w.cpuUtilization } });
      }
    }
  });

  it('the autoscaling components are what scripts/gen-autoscaling.mjs makes of infra/k8s/scaling.yaml', () => {
    const r = spawnSync(process.execPath, [join(root, 'scripts/gen-autoscaling.mjs'), '--check'], { encoding: 'utf8' });
    expect(r.status, `${r.stdout}${r.stderr}`).toBe(0);
  });

  it('prod overlay: monitoring scrapes every pod\'s /metrics (health ports, the gateway over HTTPS) and carries the alerts and the dashboard', () => {
    const prod = buildProd();
    interface PodMonitor extends K8sObject {
      spec: { selector: { matchLabels: Labels }; podMetricsEndpoints: { port: string; path: string; scheme?: string; tlsConfig?: { ca?: { secret?: { name: string; key: string } } } }[] };
    }
    const monitors = prod.all<PodMonitor>('PodMonitor');
    const health = monitors.find((m) => m.spec.podMetricsEndpoints.some((e) => e.port === 'health'));
    expect(health?.spec.podMetricsEndpoints[0]?.path).toBe('/metrics');
    // Every Parley workload but the gateway has a `health` port its selector reaches.
    for (const d of prod.all<Workload>('Deployment')) {
      const labels = d.spec.template.metadata.labels;
      const selected = Object.entries(health!.spec.selector.matchLabels).every(([k, v]) => labels[k] === v);
      expect(selected, `${d.metadata.name} selected`).toBe(true);
      const ports = (d.spec.template.spec.containers[0]?.ports ?? []) as { name?: string }[];
      if (d.metadata.name === 'gateway') expect(ports.map((p) => p.name)).toContain('https');
      else expect(ports.map((p) => p.name), d.metadata.name).toContain('health');
    }
    const gw = monitors.find((m) => m.spec.selector.matchLabels['app.kubernetes.io/name'] === 'gateway');
    expect(gw?.spec.podMetricsEndpoints[0]).toMatchObject({ port: 'https', scheme: 'https', path: '/metrics', tlsConfig: { ca: { secret: { name: 'parley-tls', key: 'ca.crt' } } } });
    const rules = prod.get<K8sObject & { spec: { groups: { rules: { alert: string }[] }[] } }>('PrometheusRule', 'parley');
    const alerts = rules.spec.groups.flatMap((g) => g.rules.map((r) => r.alert));
    expect(alerts).toEqual(expect.arrayContaining(['ParleyOutboxStuck', 'ParleyConsumerLag', 'ParleyDeadLetters', 'ParleyAgentTimeouts', 'ParleyAuthFailureSpike']));
    const dash = prod.get<K8sObject & { metadata: Meta }>('ConfigMap', 'parley-grafana-dashboard');
    expect(dash.metadata.labels?.grafana_dashboard).toBe('1');
    expect(JSON.parse(dash.data?.['parley.json'] ?? '{}').uid).toBe('parley-overview');
  });
});

// ---------------------------------------------------------------- docker compose
interface ComposeService {
  image?: string;
  build?: string | { context?: string; dockerfile?: string };
  command?: string | string[];
  environment?: Record<string, string | number | boolean | null> | string[];
  depends_on?: string[] | Record<string, { condition?: string }>;
  deploy?: { replicas?: number | string };
  healthcheck?: { test?: string | string[] };
  volumes?: (string | { type?: string; source?: string; target?: string; read_only?: boolean })[];
}

function envOf(s: ComposeService): Record<string, string> {
  const e = s.environment ?? {};
  if (Array.isArray(e)) return Object.fromEntries(e.map((kv) => [kv.split('=')[0]!, kv.split('=').slice(1).join('=')]));
  return Object.fromEntries(Object.entries(e).map(([k, v]) => [k, v === null ? '' : String(v)]));
}
/**
 * Compose's interpolation of `value` in `env`: `${VAR}`, `${VAR:-default}` (unset or empty) and
 * `${VAR-default}` (unset), defaults nested, `$$` a literal `$`.
 */
function interpolate(value: string, env: Record<string, string>): string {
  let out = '';
  for (let i = 0; i < value.length; ) {
    if (value.startsWith('$$', i)) {
      out += '$';
      i += 2;
    } else if (value.startsWith('${', i)) {
      let depth = 0;
      let j = i;
      for (; j < value.length; j++) {
        if (value.startsWith('${', j)) {
          depth++;
          j++;
        } else if (value[j] === '}' && --depth === 0) break;
      }
      const m = /^([A-Za-z_][A-Za-z0-9_]*)(?:(:?-)([\s\S]*))?$/.exec(value.slice(i + 2, j));
      if (!m || j >= value.length) throw new Error(`cannot interpolate ${value}`);
      const [, name, op, fallback] = m;
      const v = env[name!];
      if (op === ':-') out += v !== undefined && v !== '' ? v : interpolate(fallback!, env);
      else if (op === '-') out += v !== undefined ? v : interpolate(fallback!, env);
      else out += v ?? '';
      i = j + 1;
    } else out += value[i++];
  }
  return out;
}
const commandOf = (s: ComposeService): string[] => (typeof s.command === 'string' ? s.command.split(/\s+/) : (s.command ?? []));
/** Bind mounts of a service: target → { source, readOnly }. */
function bindsOf(s: ComposeService): Record<string, { source: string; readOnly: boolean }> {
  const out: Record<string, { source: string; readOnly: boolean }> = {};
  for (const v of s.volumes ?? []) {
    if (typeof v === 'string') {
      const [source, target, mode] = v.split(':');
      if (source && target) out[target] = { source, readOnly: (mode ?? '').split(',').includes('ro') };
    } else if (v.source && v.target) out[v.target] = { source: v.source, readOnly: v.read_only === true };
  }
  return out;
}
/** Runs a compose health check (`CMD` form) on this machine with `env`; resolves to its exit code. */
function runHealthcheck(test: string | string[] | undefined, env: Record<string, string>): Promise<number> {
  expect(Array.isArray(test) && test[0] === 'CMD', 'health check in CMD form').toBe(true);
  const [cmd, ...args] = (test as string[]).slice(1);
  return new Promise((resolve, reject) => {
    const child = execFile(cmd!, args, { env: { PATH: process.env.PATH ?? '', ...env }, timeout: 10_000 }, () => undefined);
    child.on('error', reject);
    child.on('exit', (code) => resolve(code ?? -1));
  });
}
async function listen(server: Server): Promise<number> {
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const a = server.address();
  return typeof a === 'object' && a ? a.port : 0;
}
const dependsOn = (s: ComposeService): Record<string, string> =>
  Array.isArray(s.depends_on)
    ? Object.fromEntries(s.depends_on.map((n) => [n, 'service_started']))
    : Object.fromEntries(Object.entries(s.depends_on ?? {}).map(([n, d]) => [n, d.condition ?? 'service_started']));

describe('docker-compose.yml', () => {
  const compose = parse(readFileSync(join(root, 'docker-compose.yml'), 'utf8'), { merge: true }) as { services: Record<string, ComposeService> };
  const services = compose.services;

  it('runs the backing services: NATS with JetStream, PostgreSQL, Qdrant', () => {
    expect(commandOf(services.nats!)).toContain('-js');
    expect(services.nats!.healthcheck?.test).toBeDefined();
    expect(services.postgres!.image).toMatch(/^postgres:16/);
    expect(services.postgres!.healthcheck?.test).toBeDefined();
    expect(services.qdrant!.image).toMatch(/^qdrant\/qdrant/);
  });

  it('runs every app from the one image built at the repo root, with its own command and the env contract', () => {
    for (const app of APP_NAMES) {
      const s = services[app];
      expect(s, app).toBeDefined();
      const build = typeof s!.build === 'string' ? { context: s!.build } : s!.build;
      expect(build, `${app} build`).toBeDefined();
      expect(resolve(root, build!.context ?? '.'), `${app} build context`).toBe(root);
      expect(existsSync(join(root, build!.context ?? '.', build!.dockerfile ?? 'Dockerfile'))).toBe(true);
      expect(commandOf(s!).join(' ')).toContain(`apps/${app}/src/main.ts`);
      const env = envOf(s!);
      for (const need of [...APPS[app].needs, APPS[app].healthEnv]) expect(env[need], `${app} ${need}`).toBeDefined();
      expect(Number(env[APPS[app].healthEnv])).toBe(APPS[app].healthPort);
      expect(s!.healthcheck?.test, `${app} healthcheck`).toBeDefined();
      // Waits for what it connects to.
      const deps = dependsOn(s!);
      if (env.DATABASE_URL) expect(deps.postgres, `${app} waits for postgres`).toBe('service_healthy');
      if (env.NATS_URL) expect(deps.nats, `${app} waits for nats`).toBe('service_healthy');
    }
    const images = new Set(APP_NAMES.map((a) => services[a]!.image));
    expect(images.size, 'one image for all apps').toBe(1);
  });

  it('runs one example-agent service per scenario, flight_booking with 2 replicas', () => {
    const agents = Object.entries(services).filter(([, s]) => commandOf(s).join(' ').includes('apps/example-agents/src/main.ts'));
    expect(agents.map(([, s]) => envOf(s).SCENARIO).sort()).toEqual([...SCENARIOS].sort());
    for (const [name, s] of agents) {
      const env = envOf(s);
      for (const need of AGENT_NEEDS) expect(env[need], `${name} ${need}`).toBeDefined();
      const build = typeof s.build === 'string' ? { context: s.build } : s.build;
      expect(resolve(root, build?.context ?? '.'), `${name} build context`).toBe(root);
      expect(s.image).toBe(services.gateway!.image);
    }
    const flight = agents.find(([, s]) => envOf(s).SCENARIO === 'flight_booking')![1];
    expect(Number(flight.deploy?.replicas)).toBeGreaterThanOrEqual(2);
  });

  it('runs semantic-pool and evolution once each, the pool on Qdrant; the gateway reaches both', () => {
    for (const app of SINGLE_WRITERS) {
      expect(services[app], app).toBeDefined();
      expect(Number(services[app]!.deploy?.replicas ?? 1), `${app} is a single writer`).toBe(1);
    }
    const pool = services['semantic-pool']!;
    expect(new URL(envOf(pool).QDRANT_URL!).hostname).toBe('qdrant');
    expect(dependsOn(pool).qdrant, 'semantic-pool waits for qdrant').toBe('service_healthy');
    expect(dependsOn(services.evolution!).negotiation, 'evolution waits for negotiation').toBe('service_healthy');

    const gateway = envOf(services.gateway!);
    for (const [variable, app] of Object.entries(GATEWAY_BACKENDS)) expect(gateway[variable], `gateway ${variable}`).toBe(`${app}:${APPS[app].servicePort}`);
  });

  // ---------------------------------------------------------------- identity (draft-zhou §7)
  const agentServices = Object.entries(services).filter(([, s]) => commandOf(s).join(' ').includes('apps/example-agents/src/main.ts'));

  it('identity: every service gets the same PARLEY_SERVICE_TOKEN (from .env, a 64-hex development default), the others REGISTRY_ADDR at the registry', () => {
    const tokens = APP_NAMES.map((app) => envOf(services[app]!).PARLEY_SERVICE_TOKEN);
    // One expression for all, so they can call each other whatever .env says.
    expect(new Set(tokens).size, `one PARLEY_SERVICE_TOKEN for all: ${tokens.join(' | ')}`).toBe(1);
    const token = tokens[0]!;
    expect(token).toMatch(/^\$\{PARLEY_SERVICE_TOKEN:-[0-9a-f]{64}\}$/);
    expect(interpolate(token, {}).length).toBeGreaterThanOrEqual(MIN_SERVICE_TOKEN_LENGTH);
    const mine = 'f'.repeat(64);
    expect(interpolate(token, { PARLEY_SERVICE_TOKEN: mine }), 'PARLEY_SERVICE_TOKEN from .env wins').toBe(mine);
    for (const app of REGISTRY_CLIENTS) expect(envOf(services[app]!).REGISTRY_ADDR, `${app} REGISTRY_ADDR`).toBe(`registry:${APPS.registry.servicePort}`);
    for (const app of APP_NAMES.filter((a) => a !== 'registry')) expect(envOf(services[app]!).PARLEY_BOOTSTRAP_OPERATOR_KEY, `${app}: the bootstrap key is the registry's alone`).toBeUndefined();
    // The optional settings, the same expression everywhere when set.
    for (const v of ['PARLEY_TENANT', 'PARLEY_JWT_ISSUERS', 'PARLEY_AUTH_CACHE_MS']) {
      const values = new Set(APP_NAMES.map((app) => envOf(services[app]!)[v]));
      expect(values.size, `${v} the same for every service`).toBe(1);
    }
    const gateway = envOf(services.gateway!);
    expect(interpolate(gateway.RATE_LIMIT_PER_SECOND!, {})).toBe('50');
    expect(interpolate(gateway.RATE_LIMIT_BURST!, {})).toBe('100');
  });

  it('identity: the registry bootstraps an operator key (a pk_ development default); each agent uses its own key from .env, else that one', () => {
    const registry = envOf(services.registry!).PARLEY_BOOTSTRAP_OPERATOR_KEY;
    expect(registry).toMatch(/^\$\{PARLEY_BOOTSTRAP_OPERATOR_KEY:-pk_[^}]*\}$/);
    const devKey = interpolate(registry!, {});
    expect(devKey).toMatch(API_KEY);
    const operatorKey = `pk_${'0'.repeat(16)}_${'A'.repeat(43)}`;
    expect(interpolate(registry!, { PARLEY_BOOTSTRAP_OPERATOR_KEY: operatorKey })).toBe(operatorKey);

    expect(agentServices.length).toBe(SCENARIOS.length);
    const own = new Set<string>();
    for (const [name, s] of agentServices) {
      const env = envOf(s);
      const key = env.PARLEY_API_KEY!;
      const variable = /^\$\{([A-Z0-9_]+):-/.exec(key)?.[1];
      expect(variable, `${name} PARLEY_API_KEY: its own variable first`).toMatch(/^AGENT_[A-Z0-9_]+_API_KEY$/);
      own.add(variable!);
      // Development: no .env, the registry's dev key; with PARLEY_BOOTSTRAP_OPERATOR_KEY, that one.
      expect(interpolate(key, {}), `${name} falls back to the registry's dev key`).toBe(devKey);
      expect(interpolate(key, { PARLEY_BOOTSTRAP_OPERATOR_KEY: operatorKey }), `${name} follows PARLEY_BOOTSTRAP_OPERATOR_KEY`).toBe(operatorKey);
      // Production: its own server_agent key.
      const agentKey = `pk_${'1'.repeat(16)}_${'B'.repeat(43)}`;
      expect(interpolate(key, { [variable!]: agentKey, PARLEY_BOOTSTRAP_OPERATOR_KEY: operatorKey }), `${name} prefers ${variable}`).toBe(agentKey);
      // Agents are callers, never services.
      expect(env.PARLEY_SERVICE_TOKEN, `${name} has no service token`).toBeUndefined();
      expect(env.PARLEY_BOOTSTRAP_OPERATOR_KEY, name).toBeUndefined();
    }
    expect(own.size, 'one variable per agent').toBe(agentServices.length);
  });

  it('identity: docker-compose.plain.yml leaves it as docker-compose.yml sets it', () => {
    const plain = parse(readFileSync(join(root, 'docker-compose.plain.yml'), 'utf8'), { merge: true }) as { services: Record<string, ComposeService> };
    for (const [name, s] of Object.entries(services)) {
      const merged = { ...envOf(s), ...envOf(plain.services[name] ?? {}) };
      for (const v of ['PARLEY_SERVICE_TOKEN', 'REGISTRY_ADDR', 'PARLEY_BOOTSTRAP_OPERATOR_KEY', 'PARLEY_API_KEY', 'PARLEY_TENANT', 'PARLEY_JWT_ISSUERS', 'PARLEY_AUTH_CACHE_MS']) {
        expect(merged[v], `plain ${name} ${v}`).toBe(envOf(s)[v]);
      }
    }
  });

  // ---------------------------------------------------------------- TLS (the default)
  const CERTS = './infra/certs/dev';
  const natsUsing: Record<string, NatsUser> = {
    ...NATS_USERS,
    ...Object.fromEntries(Object.entries(services).filter(([, s]) => commandOf(s).join(' ').includes('apps/example-agents/src/main.ts')).map(([n]) => [n, AGENTS_NATS])),
  };

  it('TLS: the certs service runs scripts/gen-dev-certs.sh into ./infra/certs/dev; every app, agent and NATS mounts it read-only and waits for it', () => {
    const certs = services.certs!;
    expect(commandOf(certs).join(' ')).toMatch(/gen-dev-certs\.sh \/certs$/);
    expect(bindsOf(certs)['/certs']).toEqual({ source: CERTS, readOnly: false });
    const script = Object.entries(bindsOf(certs)).find(([target]) => commandOf(certs).includes(target));
    expect(script?.[1].source, 'the script it runs is the repo one').toBe('./scripts/gen-dev-certs.sh');
    for (const [name, s] of Object.entries(services)) {
      const env = envOf(s);
      if (!env.PARLEY_TLS_CERT && name !== 'nats') continue;
      const dir = Object.entries(bindsOf(s)).find(([, b]) => b.source === CERTS);
      expect(dir, `${name} mounts ${CERTS}`).toBeDefined();
      expect(dir![1].readOnly, `${name} mounts ${CERTS} read-only`).toBe(true);
      for (const v of ['PARLEY_TLS_CERT', 'PARLEY_TLS_KEY', 'PARLEY_TLS_CA']) expect(env[v]?.startsWith(`${dir![0]}/`), `${name} ${v} in the certificates`).toBe(true);
      expect(dependsOn(s).certs, `${name} waits for certs`).toBe('service_completed_successfully');
    }
    for (const app of APP_NAMES) expect(envOf(services[app]!), app).toMatchObject({ PARLEY_TLS_CERT: '/certs/server.crt', PARLEY_TLS_KEY: '/certs/server.key', PARLEY_TLS_CA: '/certs/ca.crt' });
    // Agents are clients only: the client certificate, not the services' key.
    for (const name of Object.keys(natsUsing).filter((n) => n.startsWith('agent-'))) {
      expect(envOf(services[name]!), name).toMatchObject({ PARLEY_TLS_CERT: '/certs/client.crt', PARLEY_TLS_KEY: '/certs/client.key', PARLEY_TLS_CA: '/certs/ca.crt' });
    }
  });

  it('TLS: NATS requires TLS and one user per service (infra/nats/nats.conf), each app and agent connects as its own with the same password variable', () => {
    const nats = services.nats!;
    const cmd = commandOf(nats);
    const conf = cmd[cmd.indexOf('-c') + 1];
    expect(bindsOf(nats)[conf!]).toEqual({ source: `./${NATS_CONF}`, readOnly: true });
    const text = readFileSync(join(root, NATS_CONF), 'utf8');
    expect(text).toMatch(/^tls\s*\{[^}]*cert_file:\s*\$PARLEY_TLS_CERT[^}]*key_file:\s*\$PARLEY_TLS_KEY[^}]*ca_file:\s*\$PARLEY_TLS_CA/m);
    expect(byUser(natsConfUsers(text))).toEqual(byUser([...Object.values(NATS_USERS), AGENTS_NATS]));
    const serverEnv = envOf(nats);
    for (const [name, want] of Object.entries(natsUsing)) {
      const env = envOf(services[name]!);
      expect(env.NATS_TLS === 'true' || env.NATS_URL!.startsWith('tls://'), `${name} NATS over TLS`).toBe(true);
      expect(env.NATS_USER, `${name} NATS_USER`).toBe(want.user);
      // ${VARIABLE:-dev default}, the very expression the NATS server gets.
      expect(env.NATS_PASSWORD, `${name} NATS_PASSWORD`).toMatch(new RegExp(`^\\$\\{${want.password}(:-[A-Za-z0-9_-]*)?\\}$`));
      expect(serverEnv[want.password], `nats ${want.password}`).toBe(env.NATS_PASSWORD);
    }
    // The dev overlay's NATS uses the same file.
    expect(readFileSync(join(root, 'infra/k8s/overlays/dev/nats.conf'), 'utf8'), 'infra/k8s/overlays/dev/nats.conf = infra/nats/nats.conf').toBe(text);
  });

  it.skipIf(natsConfGate.skip)('TLS: nats-server accepts infra/nats/nats.conf with the compose environment', () => {
    natsConfGate.assertPresent();
    const certs = sharedDevCerts();
    const env: Record<string, string> = { PATH: process.env.PATH ?? '' };
    for (const [k, v] of Object.entries(envOf(services.nats!))) env[k] = v.replace(/^\$\{[A-Z0-9_]+:-(.*)\}$/, '$1').replace(/^\/certs\//, `${certs}/`);
    const r = spawnSync(natsServer!, ['-c', join(root, NATS_CONF), '-t'], { env, encoding: 'utf8' });
    expect(r.status, `${r.stdout}${r.stderr}`).toBe(0);
    // An unset password stops it, naming the variable.
    const missing = spawnSync(natsServer!, ['-c', join(root, NATS_CONF), '-t'], { env: { ...env, AGENTS_NATS_PASSWORD: undefined } as never, encoding: 'utf8' });
    expect(missing.status).not.toBe(0);
    expect(`${missing.stdout}${missing.stderr}`).toContain('AGENTS_NATS_PASSWORD');
  });

  it('TLS: the gateway serves HTTPS (PUBLIC_URL https), the agents reach it over https trusting the dev CA, with an API key from the environment', () => {
    const gateway = envOf(services.gateway!);
    expect(new URL(gateway.PUBLIC_URL!.replace(/^\$\{PUBLIC_URL:-(.*)\}$/, '$1')).protocol).toBe('https:');
    for (const name of Object.keys(natsUsing).filter((n) => n.startsWith('agent-'))) {
      const env = envOf(services[name]!);
      expect(new URL(env.GATEWAY_URL!).protocol, `${name} GATEWAY_URL`).toBe('https:');
      expect(env.NODE_EXTRA_CA_CERTS, `${name} trusts the dev CA`).toBe(env.PARLEY_TLS_CA);
      expect(env.PARLEY_API_KEY, `${name} PARLEY_API_KEY from the environment (identity tests above)`).toMatch(/^\$\{[A-Z0-9_]+:-/);
    }
  });

  it.skipIf(opensslGate.skip)('TLS: the apps\' health check probes the gateway over HTTPS against the dev CA and the health ports over plain HTTP', async () => {
    opensslGate.assertPresent();
    const certs = sharedDevCerts();
    const other = genDevCerts();
    const test = services.registry!.healthcheck!.test;
    for (const app of APP_NAMES) expect(services[app]!.healthcheck?.test, `${app} uses the shared health check`).toEqual(test);
    const ok = (req: IncomingMessage, res: ServerResponse) => res.writeHead(req.url === '/readyz' ? 200 : 404).end();
    const https = createHttpsServer({ cert: readFileSync(join(certs, 'server.crt')), key: readFileSync(join(certs, 'server.key')) }, ok);
    const http = createHttpServer(ok);
    try {
      const [httpsPort, httpPort] = [await listen(https), await listen(http)];
      const tls = { PARLEY_TLS_CERT: join(certs, 'server.crt'), PARLEY_TLS_KEY: join(certs, 'server.key'), PARLEY_TLS_CA: join(certs, 'ca.crt') };
      // The gateway: PORT over HTTPS, verified against the CA.
      expect(await runHealthcheck(test, { ...tls, PORT: String(httpsPort) })).toBe(0);
      expect(await runHealthcheck(test, { ...tls, PARLEY_TLS_CA: join(other, 'ca.crt'), PORT: String(httpsPort) }), 'another CA is refused').not.toBe(0);
      expect(await runHealthcheck(test, { ...tls, PORT: String(httpPort) }), 'plain HTTP is not taken for HTTPS').not.toBe(0);
      // A back-end service: HEALTH_PORT, plain HTTP, TLS or not.
      expect(await runHealthcheck(test, { ...tls, HEALTH_PORT: String(httpPort) })).toBe(0);
      // docker-compose.plain.yml: empty PARLEY_TLS_*, the gateway on plain HTTP.
      expect(await runHealthcheck(test, { PARLEY_TLS_CERT: '', PARLEY_TLS_KEY: '', PARLEY_TLS_CA: '', PORT: String(httpPort) })).toBe(0);
    } finally {
      https.close();
      http.close();
    }
  });

  it('docker-compose.plain.yml: blanks TLS and the NATS users of every service that has them, NATS without its config, agents on http', () => {
    const plain = parse(readFileSync(join(root, 'docker-compose.plain.yml'), 'utf8'), { merge: true }) as { services: Record<string, ComposeService> };
    for (const name of Object.keys(plain.services)) expect(services[name], `${name} is a service of docker-compose.yml`).toBeDefined();
    for (const [name, s] of Object.entries(services)) {
      // (NATS reads PARLEY_TLS_* only from its config file, which plain mode does not load.)
      if (!envOf(s).PARLEY_TLS_CERT || name === 'nats') continue;
      const env = envOf(plain.services[name] ?? {});
      for (const v of ['PARLEY_TLS_CERT', 'PARLEY_TLS_KEY', 'PARLEY_TLS_CA']) expect(env[v], `plain ${name} ${v}`).toBe('');
      if (envOf(s).NATS_USER) {
        expect(env.NATS_TLS, `plain ${name} NATS_TLS`).toBe('false');
        expect(env.NATS_USER, `plain ${name} NATS_USER`).toBe('');
      }
      if (envOf(s).GATEWAY_URL) expect(new URL(env.GATEWAY_URL!).protocol, `plain ${name} GATEWAY_URL`).toBe('http:');
    }
    const cmd = commandOf(plain.services.nats!);
    expect(cmd).toContain('-js');
    expect(cmd).not.toContain('-c');
  });
});

// ---------------------------------------------------------------- Dockerfile
describe('Dockerfile', () => {
  const lines = readFileSync(join(root, 'Dockerfile'), 'utf8')
    .replace(/\\\n/g, ' ')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('#'));

  it('installs with npm ci after copying the manifests, scripts/ and proto/, and before the sources', () => {
    const npmCi = lines.findIndex((l) => /^RUN\b.*\bnpm ci\b/.test(l));
    expect(npmCi).toBeGreaterThan(0);
    const before = lines.slice(0, npmCi).join('\n');
    for (const what of ['package.json', 'package-lock.json', '.npmrc', 'scripts/', 'proto/']) expect(before, `COPY ${what} before npm ci`).toContain(what);
    expect(lines.indexOf('COPY . .'), 'COPY . . after npm ci').toBeGreaterThan(npmCi);
  });

  it('runs as a non-root user on node:20-bookworm-slim with NODE_ENV=production, the gateway by default', () => {
    expect(lines.join('\n')).toMatch(/node:20-bookworm-slim/);
    const user = lines.filter((l) => l.startsWith('USER ')).at(-1);
    expect(user).toBeDefined();
    expect(user).not.toMatch(/^USER (root|0)(:|$)/);
    expect(lines.some((l) => /^ENV .*NODE_ENV=production/.test(l))).toBe(true);
    expect(lines.filter((l) => l.startsWith('CMD ')).at(-1)).toContain('apps/gateway/src/main.ts');
  });

  it.skipIf(opensslGate.skip)('HEALTHCHECK: /healthz on HEALTH_PORT over HTTP, or the gateway\'s PORT over HTTPS when PARLEY_TLS_CERT is set', async () => {
    opensslGate.assertPresent();
    const hc = lines.find((l) => l.startsWith('HEALTHCHECK '));
    expect(hc, 'a HEALTHCHECK').toBeDefined();
    const json = /\bCMD\s+(\[.*\])\s*$/.exec(hc!)?.[1];
    expect(json, 'HEALTHCHECK CMD in exec form').toBeDefined();
    const test = ['CMD', ...(JSON.parse(json!) as string[])];
    const certs = sharedDevCerts();
    const ok = (req: IncomingMessage, res: ServerResponse) => res.writeHead(req.url === '/healthz' ? 200 : 404).end();
    const https = createHttpsServer({ cert: readFileSync(join(certs, 'server.crt')), key: readFileSync(join(certs, 'server.key')) }, ok);
    const http = createHttpServer(ok);
    try {
      const [httpsPort, httpPort] = [await listen(https), await listen(http)];
      const tls = { PARLEY_TLS_CERT: join(certs, 'server.crt'), PARLEY_TLS_KEY: join(certs, 'server.key'), PARLEY_TLS_CA: join(certs, 'ca.crt') };
      // The gateway with TLS: HTTPS on PORT.
      expect(await runHealthcheck(test, { ...tls, PORT: String(httpsPort) }), 'gateway over HTTPS').toBe(0);
      expect(await runHealthcheck(test, { ...tls, PORT: String(httpPort) }), 'plain HTTP is not taken for HTTPS').not.toBe(0);
      // The gateway without TLS (empty or unset PARLEY_TLS_*): HTTP on PORT.
      expect(await runHealthcheck(test, { PORT: String(httpPort) })).toBe(0);
      expect(await runHealthcheck(test, { PARLEY_TLS_CERT: '', PARLEY_TLS_KEY: '', PARLEY_TLS_CA: '', PORT: String(httpPort) })).toBe(0);
      // A back-end service or an agent: HEALTH_PORT over HTTP, with TLS or without.
      expect(await runHealthcheck(test, { ...tls, HEALTH_PORT: String(httpPort) })).toBe(0);
      expect(await runHealthcheck(test, { HEALTH_PORT: String(httpPort) })).toBe(0);
      // Nothing listening: unhealthy.
      await new Promise<void>((r) => http.close(() => r()));
      expect(await runHealthcheck(test, { HEALTH_PORT: String(httpPort) })).not.toBe(0);
    } finally {
      https.close();
      http.close();
    }
  });

  it('keeps local installs and generated code out of the build context', () => {
    const ignore = readFileSync(join(root, '.dockerignore'), 'utf8').split('\n').map((l) => l.trim());
    expect(ignore).toContain('**/node_modules');
    expect(ignore).toContain('libs/contracts/src/gen');
  });
});

// ---------------------------------------------------------------- every deployment file
describe('deployment files', () => {
  /** The compose files, the Dockerfile and every text file under infra/ (the git-ignored infra/certs aside). */
  function deploymentFiles(): string[] {
    const out = ['docker-compose.yml', 'docker-compose.plain.yml', 'Dockerfile', '.dockerignore'];
    const walk = (dir: string) => {
      for (const e of readdirSync(join(root, dir), { withFileTypes: true })) {
        const rel = `${dir}/${e.name}`;
        if (e.isDirectory()) {
          if (rel !== 'infra/certs') walk(rel);
        } else out.push(rel);
      }
    };
    walk('infra');
    return out;
  }

  it(`no longer mention ${OLD_OPERATOR_TOKEN} or the Secret parley-operator (draft-zhou §7: API keys with roles replace it)`, () => {
    const files = deploymentFiles();
    expect(files).toContain('infra/README.md');
    expect(files).toContain('infra/k8s/base/gateway.yaml');
    for (const f of files) {
      const text = readFileSync(join(root, f), 'utf8');
      expect(text.includes(OLD_OPERATOR_TOKEN), `${f} mentions ${OLD_OPERATOR_TOKEN}`).toBe(false);
      expect(/\bparley-operator\b/.test(text), `${f} mentions the Secret parley-operator`).toBe(false);
    }
  });
});
