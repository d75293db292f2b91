import { mkdirSync, mkdtempSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '@parley/runtime';
import { FIGURE_8, REPO_ROOT, rpc, useKey, waitFor } from '@parley/testkit';
import { browserAvailable, launchChromium, type Browser } from '@parley/testkit/browser';
import { startParley, type EmbeddedParley } from '../src/embedded';

/**
 * The operator console end to end in real headless Chromium (Debian's chromium,
 * driven by playwright-core), against the embedded app with every patch held for
 * an operator (approval manual): sign in with an API key, watch a cluster of the
 * semantic pool appear while clients send `other`, approve the proposed patch,
 * and see the key in the template. Screenshots go to a temporary directory, or
 * to docs/ (the README's) with PARLEY_UPDATE_SCREENSHOTS=1.
 */
const run = browserAvailable('operator console in Chromium');
const SHOTS = process.env.PARLEY_UPDATE_SCREENSHOTS === '1' ? join(REPO_ROOT, 'docs') : mkdtempSync(join(tmpdir(), 'parley-console-shots-'));

describe.skipIf(!run)('operator console (/console/) in headless Chromium', () => {
  let parley: EmbeddedParley;
  let browser: Browser;
  let page: Page;
  /** The patch the pool's matured cluster led to (found by the second test, approved by the third). */
  let proposed: { patch_id: string; new_keys: { definition: { key_name: string } }[] } | undefined;

  beforeAll(async () => {
    parley = await startParley({
      port: 0,
      log: createLogger({ level: 'silent' }),
      // Every patch waits for an operator (as PARLEY_APPROVAL=manual); heat sampled often, for the chart.
      evolution: { evolver: { approval: 'manual' }, heatSampleMs: 1000, tickMs: 0 },
    });
    useKey(parley.url, parley.devKey);
    browser = await launchChromium();
    page = await browser.context.newPage();
    mkdirSync(SHOTS, { recursive: true });
  }, 90_000);

  afterAll(async () => {
    await browser?.close();
    await parley?.stop();
  });

  const shot = async (name: string) => {
    const path = join(SHOTS, `console-${name}.png`);
    await page.screenshot({ path, fullPage: true });
    expect(statSync(path).size).toBeGreaterThan(10_000);
  };

  it('refuses a bad credential, then signs in with an operator API key kept in sessionStorage', async () => {
    await page.goto(`${parley.url}/console/`);
    await page.getByTestId('login-credential').fill('pk_0123456789abcdef_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA');
    await page.getByTestId('login-submit').click();
    await expect.poll(() => page.getByTestId('login-error').textContent()).toMatch(/unauthenticated/);
    await page.getByTestId('login-credential').fill(parley.devKey);
    await shot('login');
    await page.getByTestId('login-submit').click();
    await page.getByTestId('whoami').waitFor();
    expect(await page.getByTestId('whoami').textContent()).toContain('dev');
    expect(await page.evaluate("sessionStorage.getItem('parley.console.credential')")).toBe(parley.devKey);
    await page.getByTestId('scenario-link-flight_booking').waitFor();
    await shot('scenarios');
  });

  it('shows a cluster of the semantic pool appear while clients send `other`, with its heat chart and samples', async () => {
    await page.getByTestId('scenario-link-flight_booking').click();
    await page.getByTestId('template').locator('table').waitFor();
    const phrasings = ['window seat please', 'I would like a window seat', 'a seat at the window', 'window seat, not the aisle', 'give me a window seat', 'seat by the window please'];
    let round = 0;
    // Clients (the operator may name any) send `other` until the pool's gate opens and evolution proposes a patch.
    proposed = await waitFor(
      'a proposed patch for flight_booking',
      async () => {
        for (let i = 0; i < phrasings.length; i++) {
          const r = await rpc(parley.url, 'execute', { ...FIGURE_8, client_id: `console-client-${round}-${i}`, payload: { ...FIGURE_8.payload, other: phrasings[(i + round) % phrasings.length] } });
          expect(r.body.error).toBeUndefined();
        }
        round++;
        await parley.execution.drainOutbox();
        await parley.semanticPool.drainOutbox();
        await parley.evolution.drainOutbox();
        const p = await rpc(parley.url, 'list_patches', { scenario: 'flight_booking', status: 'proposed' });
        return p.body.result?.patches?.[0] as { patch_id: string; new_keys: { definition: { key_name: string } }[] } | undefined;
      },
      60_000,
      500,
    );
    const cluster = page.locator('[data-testid^="cluster-"]').first();
    await cluster.waitFor({ timeout: 15_000 });
    expect(await cluster.locator('svg.heat').count()).toBe(1);
    expect(await cluster.locator('ul.samples li').count()).toBeGreaterThan(0);
    const clusterText = (await cluster.textContent()) ?? '';
    expect(clusterText).toMatch(/window/);
    expect(clusterText).toMatch(/distinct clients/);
    await page.getByTestId(`patch-${proposed.patch_id}`).waitFor({ timeout: 15_000 });
    await shot('clusters');
  });

  it('approves the proposed patch with a reason, and the new key appears in the template', async () => {
    expect(proposed, 'the previous test found a proposed patch').toBeDefined();
    const key = proposed!.new_keys[0]!.definition.key_name;
    expect(await page.getByTestId(`template-key-${key}`).count(), 'not in the template while proposed').toBe(0);
    const card = page.getByTestId(`patch-${proposed!.patch_id}`);
    expect(await card.textContent()).toMatch(/proposed/);
    expect(await page.getByTestId('keys-proposed').textContent()).toContain(key);

    // Without a reason the decision is not sent.
    await page.getByTestId(`approve-${proposed!.patch_id}`).click();
    await expect.poll(() => page.getByTestId(`action-error-${proposed!.patch_id}`).textContent()).toMatch(/reason/);
    expect((await rpc(parley.url, 'get_patch', { patch_id: proposed!.patch_id })).body.result.patch.status).toBe('proposed');

    // edit_patch: wired when the gateway has it, disabled with a note while it answers method_not_found.
    const edit = await rpc(parley.url, 'edit_patch', {});
    const editAvailable = edit.body.error?.data?.type !== 'method_not_found';
    // This gateway offers it: the empty probe is refused for its params, not as an unknown method.
    expect(edit.body.error?.data).toMatchObject({ type: 'invalid_params', path: 'params.patch_id' });
    expect(await page.getByTestId(`edit-${proposed!.patch_id}`).isDisabled()).toBe(!editAvailable);
    if (!editAvailable) expect(await page.getByTestId(`edit-note-${proposed!.patch_id}`).textContent()).toMatch(/edit_patch/);
    if (editAvailable) {
      // An operator's edit from the console: {patch_id, key, description, reason}, recorded as a decision with the reason.
      await page.getByTestId(`edit-${proposed!.patch_id}`).click();
      await page.getByTestId(`edit-description-${proposed!.patch_id}`).fill('The seat the traveller prefers, one of the listed values.');
      await page.getByTestId(`reason-${proposed!.patch_id}`).fill('clearer wording for clients');
      await page.getByTestId(`edit-save-${proposed!.patch_id}`).click();
      await expect
        .poll(async () => (await rpc(parley.url, 'get_patch', { patch_id: proposed!.patch_id })).body.result.patch.new_keys[0].definition.semantic_description, { timeout: 15_000 })
        .toBe('The seat the traveller prefers, one of the listed values.');
      const edits = await rpc(parley.url, 'list_decisions', { scenario: 'flight_booking', patch_id: proposed!.patch_id });
      expect(edits.body.result.decisions.some((d: { action: string; reasons: string[] }) => d.action === 'edit' && d.reasons.includes('clearer wording for clients'))).toBe(true);
      await page.getByTestId(`patch-${proposed!.patch_id}`).waitFor({ timeout: 15_000 });
    }

    await page.getByTestId(`reason-${proposed!.patch_id}`).fill('reviewed in the console: seat preference is safe');
    await page.getByTestId(`approve-${proposed!.patch_id}`).click();
    await page.getByTestId(`template-key-${key}`).waitFor({ timeout: 20_000 });
    const template = await rpc(parley.url, 'get_schema_template', { scenario: 'flight_booking' });
    expect(template.body.result.keys.map((k: { key_name: string }) => k.key_name)).toContain(key);
    // The edit made in the console reached negotiation through the patch events, like any patch revision.
    expect(template.body.result.keys.find((k: { key_name: string }) => k.key_name === key)?.semantic_description).toBe('The seat the traveller prefers, one of the listed values.');
    const decisions = await rpc(parley.url, 'list_decisions', { scenario: 'flight_booking', patch_id: proposed!.patch_id });
    expect(decisions.body.result.decisions.some((d: { action: string; reasons: string[] }) => d.action === 'approve' && d.reasons.join(' ').includes('reviewed in the console'))).toBe(true);
    await page.getByTestId('keys-experimental').getByText(key).waitFor();
    await shot('patch-approved');
  });

  it('shows dead letters, or the note while list_dead_letters is not offered, and audits to judge', async () => {
    const dead = await rpc(parley.url, 'list_dead_letters', {});
    await page.getByTestId('nav-dead-letters').click();
    if (dead.body.error?.data?.type === 'method_not_found') await page.getByTestId('dead-letters-unavailable').waitFor();
    else await page.getByTestId('dead-letters').locator('table').waitFor();
    await page.getByTestId('nav-audits').click();
    await page.getByTestId('audits').waitFor();
    await expect.poll(async () => (await page.getByTestId('audits').textContent()) ?? '').not.toMatch(/Loading/);
    expect(await page.getByTestId('audits').locator('.error').count()).toBe(0);
  });

  it('serves its assets with a strict Content-Security-Policy and no credential in them', async () => {
    const res = await fetch(`${parley.url}/console/`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-security-policy')).toMatch(/default-src 'none'; script-src 'self'/);
    const js = await (await fetch(`${parley.url}/console/console.js`)).text();
    expect(js.length).toBeGreaterThan(1000);
    expect(js).not.toContain(parley.devKey);
    expect((await fetch(`${parley.url}/console/nope.js`)).status).toBe(404);
  });
});
