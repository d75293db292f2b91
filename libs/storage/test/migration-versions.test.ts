import { describe, expect, it } from 'vitest';
import { SERVICE_SCHEMAS, loadMigrations } from '../src/index';

// migrate() records a service's migrations by version number and skips a version it has applied: two files
// with one number (two branches adding a migration each) would leave the second one silently unapplied.
describe('migration files', () => {
  it('every service numbers its migrations uniquely', () => {
    for (const service of SERVICE_SCHEMAS) {
      const versions = loadMigrations(service).map((m) => m.version);
      const twice = versions.filter((v, i) => versions.indexOf(v) !== i);
      expect(twice, `${service}: versions used twice`).toEqual([]);
    }
  });
});
