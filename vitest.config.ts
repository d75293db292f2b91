import { defineConfig } from 'vitest/config';

/**
 * Two projects:
 * - unit: pure and in-process tests (PGlite, the in-process bus), no services needed;
 * - integration: `*.int.test.ts`, against real PostgreSQL and NATS JetStream
 *   (testcontainers where a container runtime exists, the running services
 *   otherwise; see libs/testkit). With CI set they fail, never skip, when the
 *   services are unreachable.
 */
export default defineConfig({
  test: {
    // expect.poll waits 1 s by default: too short for work that crosses NATS and PostgreSQL on a loaded 2-core machine.
    expect: { poll: { timeout: 5_000 } },
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          // tools/lint: repository-wide rules (function length) that fail CI like any test.
          include: ['libs/*/test/**/*.test.ts', 'apps/*/test/**/*.test.ts', 'tools/**/*.test.ts'],
          exclude: ['**/*.int.test.ts', '**/node_modules/**'],
          testTimeout: 20_000,
          // Several suites start every service in one process (PGlite migrations, gRPC servers, the seeded agents)
          // in beforeAll: on a loaded 2-core machine that can take longer than vitest's 10 s default.
          hookTimeout: 60_000,
        },
      },
      {
        extends: true,
        test: {
          name: 'integration',
          include: ['libs/*/test/**/*.int.test.ts', 'apps/*/test/**/*.int.test.ts', 'e2e/**/*.int.test.ts'],
          globalSetup: ['tools/vitest/global-setup.ts'],
          testTimeout: 60_000,
          hookTimeout: 90_000,
        },
      },
    ],
  },
});
