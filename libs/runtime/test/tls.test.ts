/**
 * TLS material from the environment (draft-zhou §7, "protect this data in transit"):
 * PARLEY_TLS_CERT/_KEY/_CA all or none, and the NATS connection settings derived from them.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError, natsFromEnv, tlsFromEnv } from '@parley/runtime';

const dir = mkdtempSync(join(tmpdir(), 'parley-tls-'));
const pemFile = (name: string, label: string) => {
  const p = join(dir, name);
  writeFileSync(p, `-----BEGIN ${label}-----\nAAAA\n-----END ${label}-----\n`);
  return p;
};
const cert = pemFile('server.crt', 'CERTIFICATE');
const key = pemFile('server.key', 'PRIVATE KEY');
const ca = pemFile('ca.crt', 'CERTIFICATE');
const all = { PARLEY_TLS_CERT: cert, PARLEY_TLS_KEY: key, PARLEY_TLS_CA: ca };

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('tlsFromEnv', () => {
  it('is null when none of the variables is set (or they are empty)', () => {
    expect(tlsFromEnv({})).toBeNull();
    expect(tlsFromEnv({ PARLEY_TLS_CERT: '', PARLEY_TLS_KEY: '', PARLEY_TLS_CA: '' })).toBeNull();
  });

  it('reads the three files when all are set', () => {
    const t = tlsFromEnv(all);
    expect(t?.cert.toString()).toContain('BEGIN CERTIFICATE');
    expect(t?.key.toString()).toContain('BEGIN PRIVATE KEY');
    expect(t?.ca.toString()).toContain('BEGIN CERTIFICATE');
  });

  it.each(['PARLEY_TLS_CERT', 'PARLEY_TLS_KEY', 'PARLEY_TLS_CA'] as const)('names %s when only it is missing', (name) => {
    const env: Record<string, string> = { ...all };
    delete env[name];
    expect(() => tlsFromEnv(env)).toThrow(ConfigError);
    expect(() => tlsFromEnv(env)).toThrow(new RegExp(`^${name} is required`));
  });

  it('names the variable of an unreadable or non-PEM file', () => {
    expect(() => tlsFromEnv({ ...all, PARLEY_TLS_KEY: join(dir, 'missing.key') })).toThrow(/PARLEY_TLS_KEY cannot be read/);
    const junk = join(dir, 'junk.crt');
    writeFileSync(junk, 'not a certificate');
    expect(() => tlsFromEnv({ ...all, PARLEY_TLS_CA: junk })).toThrow(/PARLEY_TLS_CA is not a PEM file/);
  });
});

describe('natsFromEnv', () => {
  it('is the plain URL by default', () => {
    expect(natsFromEnv({ NATS_URL: 'nats://nats:4222' })).toEqual({ servers: 'nats://nats:4222' });
    expect(() => natsFromEnv({})).toThrow(/NATS_URL is required/);
  });

  it('uses the TLS material with NATS_TLS=true or a tls:// URL, and requires it then', () => {
    const withTls = natsFromEnv({ ...all, NATS_URL: 'tls://nats:4222' });
    expect(withTls.tls?.ca).toContain('BEGIN CERTIFICATE');
    expect(withTls.tls?.key).toContain('BEGIN PRIVATE KEY');
    expect(natsFromEnv({ ...all, NATS_URL: 'nats://nats:4222', NATS_TLS: 'true' }).tls).toBeDefined();
    // TLS material alone (for gRPC) does not switch NATS to TLS.
    expect(natsFromEnv({ ...all, NATS_URL: 'nats://nats:4222' }).tls).toBeUndefined();
    expect(() => natsFromEnv({ NATS_URL: 'tls://nats:4222' })).toThrow(/requires PARLEY_TLS_CERT/);
    expect(() => natsFromEnv({ NATS_URL: 'nats://nats:4222', NATS_TLS: 'yes' })).toThrow(/NATS_TLS must be true or false/);
  });

  it('passes per-service credentials, both or neither', () => {
    expect(natsFromEnv({ NATS_URL: 'nats://n', NATS_USER: 'registry', NATS_PASSWORD: 's3cret' })).toEqual({ servers: 'nats://n', user: 'registry', pass: 's3cret' });
    expect(() => natsFromEnv({ NATS_URL: 'nats://n', NATS_USER: 'registry' })).toThrow(/NATS_PASSWORD is required/);
    expect(() => natsFromEnv({ NATS_URL: 'nats://n', NATS_PASSWORD: 'x' })).toThrow(/NATS_USER is required/);
  });
});
