export { resolveInfra, exportInfra, integrationInfra, createTestDatabase, uniquePrefix, isCI, type Infra } from './infra';
