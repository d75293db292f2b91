import type { AddressInfo } from 'node:net';
import type { HealthState, Logger } from '@parley/runtime';
import { createGatewayServer } from './http';
import type { Backends } from './rpc';

export { METHODS, errorResponse, handleOne, type Backends } from './rpc';
export { createGatewayServer } from './http';

export interface GatewayDeps {
  backends: Backends;
  health: HealthState;
  log: Logger;
  host?: string;
  port: number;
  maxBodyBytes: number;
}

export interface RunningGateway {
  port: number;
  url: string;
  stop(): Promise<void>;
}

export async function startGateway(deps: GatewayDeps): Promise<RunningGateway> {
  const server = createGatewayServer({ backends: deps.backends, health: deps.health, log: deps.log, maxBodyBytes: deps.maxBodyBytes });
  server.keepAliveTimeout = 65_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(deps.port, deps.host ?? '0.0.0.0', () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  deps.log.info('gateway listening', { port, max_body_bytes: deps.maxBodyBytes });
  return {
    port,
    url: `http://127.0.0.1:${port}`,
    stop: () =>
      new Promise<void>((resolve) => {
        deps.health.shuttingDown = true;
        server.close(() => resolve());
        server.closeIdleConnections();
      }),
  };
}
