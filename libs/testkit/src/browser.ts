import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext } from 'playwright-core';
import { isCI } from './infra';

/**
 * Real headless Chromium for browser tests: Debian's chromium package
 * (scripts/ensure-chromium.sh installs it; `npm test` runs that when it is
 * missing), driven by playwright-core, never Playwright's own browser download.
 * PARLEY_CHROMIUM names another binary.
 */
export function chromiumPath(): string | undefined {
  const p = process.env.PARLEY_CHROMIUM ?? '/usr/bin/chromium';
  return existsSync(p) ? p : undefined;
}

/** Whether browser suites run: they fail under CI without Chromium, and skip loudly elsewhere. */
export function browserAvailable(suite: string): boolean {
  if (chromiumPath()) return true;
  if (isCI()) return true; // the suite runs and fails, naming the missing browser
  const warning = `\n[parley] !!! ${suite}: no Chromium at ${process.env.PARLEY_CHROMIUM ?? '/usr/bin/chromium'} (run scripts/ensure-chromium.sh): the browser tests are SKIPPED; with CI set they fail instead.\n`;
  process.stderr.write(warning);
  console.warn(warning);
  return false;
}

export interface Browser {
  context: BrowserContext;
  close(): Promise<void>;
}

/** Headless Chromium with a fresh profile (its own --user-data-dir, removed on close). */
export async function launchChromium(): Promise<Browser> {
  const executablePath = chromiumPath();
  if (!executablePath) throw new Error(`no Chromium at ${process.env.PARLEY_CHROMIUM ?? '/usr/bin/chromium'}: run scripts/ensure-chromium.sh`);
  const profile = mkdtempSync(join(tmpdir(), 'parley-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath,
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    viewport: { width: 1360, height: 900 },
  });
  return {
    context,
    async close() {
      await context.close().catch(() => {});
      rmSync(profile, { recursive: true, force: true });
    },
  };
}
