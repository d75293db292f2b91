import { describe, expect, it } from 'vitest';
import { ConfigError } from '@parley/runtime';
import { embeddedTransport } from '../src/embedded-services';

// PARLEY_EMBEDDED_TRANSPORT: how the one-process mode's services call each other's gRPC contracts.
describe('embeddedTransport', () => {
  it('is inproc by default, and as given or set', () => {
    expect(embeddedTransport(undefined, {})).toBe('inproc');
    expect(embeddedTransport(undefined, { PARLEY_EMBEDDED_TRANSPORT: '' })).toBe('inproc');
    expect(embeddedTransport(undefined, { PARLEY_EMBEDDED_TRANSPORT: 'grpc' })).toBe('grpc');
    expect(embeddedTransport(undefined, { PARLEY_EMBEDDED_TRANSPORT: 'inproc' })).toBe('inproc');
    expect(embeddedTransport('grpc', { PARLEY_EMBEDDED_TRANSPORT: 'inproc' })).toBe('grpc');
  });

  it('refuses anything else with a ConfigError naming the variable, bounded in length', () => {
    for (const bad of ['GRPC', 'http', '__proto__', 'constructor', 'a\u0000b', 'x'.repeat(1024 * 1024)]) {
      let err: unknown;
      try {
        embeddedTransport(undefined, { PARLEY_EMBEDDED_TRANSPORT: bad });
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(ConfigError);
      expect((err as Error).message).toMatch(/^PARLEY_EMBEDDED_TRANSPORT must be inproc or grpc/);
      expect((err as Error).message.length).toBeLessThan(200);
    }
  });
});
