import { describe, expect, it } from 'vitest';
import { ConfigError, gatewayHttpFromEnv } from '@parley/runtime';

// The one reading of the gateway's HTTP settings, shared by the separate gateway and npm start.
describe('gatewayHttpFromEnv', () => {
  it('has bounded defaults', () => {
    expect(gatewayHttpFromEnv({})).toEqual({
      maxBodyBytes: 1024 * 1024,
      maxBatch: 100,
      rateLimit: { ratePerSecond: 50, burst: 100 },
      maxInFlightPerPrincipal: 32,
      timeouts: { requestMs: 30_000, headersMs: 10_000, keepAliveMs: 65_000 },
      tls: null,
      allowedHosts: [],
    });
  });

  it('reads every variable; RATE_LIMIT_PER_SECOND=0 turns the limit off', () => {
    const c = gatewayHttpFromEnv({
      MAX_BODY_BYTES: '2048',
      MAX_BATCH: '10',
      RATE_LIMIT_PER_SECOND: '0',
      PARLEY_MAX_INFLIGHT_PER_PRINCIPAL: '4',
      PARLEY_HTTP_REQUEST_TIMEOUT_MS: '5000',
      PARLEY_HTTP_HEADERS_TIMEOUT_MS: '2000',
      PARLEY_HTTP_KEEPALIVE_TIMEOUT_MS: '3000',
      PUBLIC_URL: 'https://parley.example.com',
      PARLEY_ALLOWED_HOSTS: ' Parley.Internal , mcp.example.com ,',
    });
    expect(c).toMatchObject({ maxBodyBytes: 2048, maxBatch: 10, rateLimit: null, maxInFlightPerPrincipal: 4, publicUrl: 'https://parley.example.com', allowedHosts: ['parley.internal', 'mcp.example.com'] });
    expect(c.timeouts).toEqual({ requestMs: 5000, headersMs: 2000, keepAliveMs: 3000 });
  });

  it('names the variable that is wrong', () => {
    expect(() => gatewayHttpFromEnv({ PARLEY_HTTP_HEADERS_TIMEOUT_MS: '60000' })).toThrow(/PARLEY_HTTP_HEADERS_TIMEOUT_MS .* must not exceed PARLEY_HTTP_REQUEST_TIMEOUT_MS/);
    expect(() => gatewayHttpFromEnv({ PUBLIC_URL: 'parley.example.com' })).toThrow(ConfigError);
    expect(() => gatewayHttpFromEnv({ PARLEY_TLS_CERT: '/x.crt' })).toThrow(/PARLEY_TLS_KEY, PARLEY_TLS_CA are required/);
    expect(() => gatewayHttpFromEnv({ RATE_LIMIT_BURST: '0' })).toThrow(/RATE_LIMIT_BURST must be >= 1/);
  });
});
