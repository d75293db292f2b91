import { readFileSync } from 'node:fs';
import { ConfigError } from './config';

/**
 * TLS material for a service (draft-zhou §7, "protect this data in transit"):
 * PEM contents of its certificate, its private key and the CA that signs its
 * peers. One set serves the gateway's HTTPS, the gRPC servers and clients, and
 * (with NATS_TLS) the NATS connection. `scripts/gen-dev-certs.sh` writes a
 * development set.
 */
export interface TlsMaterial {
  cert: Buffer;
  key: Buffer;
  ca: Buffer;
}

type Env = Record<string, string | undefined>;

const TLS_VARS = ['PARLEY_TLS_CERT', 'PARLEY_TLS_KEY', 'PARLEY_TLS_CA'] as const;

/**
 * Reads PARLEY_TLS_CERT, PARLEY_TLS_KEY and PARLEY_TLS_CA (file paths): all
 * three or none. None: null (plaintext, the development default). Some, or an
 * unreadable file: a ConfigError naming the variable.
 */
export function tlsFromEnv(env: Env): TlsMaterial | null {
  const set = TLS_VARS.filter((n) => env[n] !== undefined && env[n] !== '');
  if (set.length === 0) return null;
  const missing = TLS_VARS.filter((n) => !set.includes(n));
  if (missing.length > 0) {
    throw new ConfigError(`${missing.join(', ')} ${missing.length === 1 ? 'is' : 'are'} required when ${set.join(', ')} ${set.length === 1 ? 'is' : 'are'} set (TLS takes all of PARLEY_TLS_CERT, PARLEY_TLS_KEY and PARLEY_TLS_CA, or none)`);
  }
  const read = (name: (typeof TLS_VARS)[number]): Buffer => {
    const path = env[name] as string;
    let data: Buffer;
    try {
      data = readFileSync(path);
    } catch (e) {
      throw new ConfigError(`${name} cannot be read (${path}): ${(e as Error).message}`);
    }
    if (!data.toString('utf8').includes('-----BEGIN ')) throw new ConfigError(`${name} is not a PEM file (${path})`);
    return data;
  };
  return { cert: read('PARLEY_TLS_CERT'), key: read('PARLEY_TLS_KEY'), ca: read('PARLEY_TLS_CA') };
}

/** The NATS connection settings of a service: where, TLS and its credentials (structurally NatsBusOptions' fields). */
export interface NatsConnectionEnv {
  servers: string;
  tls?: { ca: string; cert?: string; key?: string };
  user?: string;
  pass?: string;
}

/**
 * NATS_URL (required), NATS_USER / NATS_PASSWORD (per-service credentials;
 * both or none) and, when NATS_TLS=true or NATS_URL starts with tls://, the
 * PARLEY_TLS_* material for the NATS connection (then required).
 */
export function natsFromEnv(env: Env, tls: TlsMaterial | null = tlsFromEnv(env)): NatsConnectionEnv {
  const servers = env.NATS_URL;
  if (servers === undefined || servers === '') throw new ConfigError('NATS_URL is required');
  const out: NatsConnectionEnv = { servers };
  const flag = env.NATS_TLS ?? '';
  if (!['', 'true', 'false'].includes(flag)) throw new ConfigError(`NATS_TLS must be true or false (got "${flag}")`);
  const wantTls = flag === 'true' || servers.split(',').some((s) => s.trim().startsWith('tls://'));
  if (wantTls) {
    if (!tls) throw new ConfigError('NATS_TLS (or a tls:// NATS_URL) requires PARLEY_TLS_CERT, PARLEY_TLS_KEY and PARLEY_TLS_CA');
    out.tls = { ca: tls.ca.toString('utf8'), cert: tls.cert.toString('utf8'), key: tls.key.toString('utf8') };
  }
  const user = env.NATS_USER || undefined;
  const pass = env.NATS_PASSWORD || undefined;
  if ((user === undefined) !== (pass === undefined)) throw new ConfigError(`${user === undefined ? 'NATS_USER' : 'NATS_PASSWORD'} is required when ${user === undefined ? 'NATS_PASSWORD' : 'NATS_USER'} is set`);
  if (user !== undefined && pass !== undefined) {
    out.user = user;
    out.pass = pass;
  }
  return out;
}
