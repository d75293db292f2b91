import { readFileSync } from 'node:fs';

/**
 * The version of the package this file ships in: apps/cli/package.json in the repository (kept at the root
 * package.json's version, which a test checks), the published @parley/cli's own once packed.
 */
export function cliVersion(): string {
  const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version?: unknown };
  return typeof pkg.version === 'string' ? pkg.version : 'unknown';
}
