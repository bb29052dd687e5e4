// A balancer behind a real OAuth stack (oidc-provider in front of a v2 SDK server that checks JWTs): without
// credentials it shows as auth-gated, apart from down, with the challenge and metadata on the node page;
// registered through the form with OAuth client credentials it turns modern.
import { expect, test } from '@playwright/test';
import {
  startAuthorizationServer,
  startOAuthPeer,
  type RunningAuthorizationServer,
  type RunningOAuthPeer,
} from '@/lib/peers/oauth';
import { apiPost, screenshotPath, startApp, type RunningApp } from './support/app';

const SECRET = 'e2e-client-secret-never-shown';
let app: RunningApp | null = null;
let as: RunningAuthorizationServer | null = null;
let peer: RunningOAuthPeer | null = null;

test.beforeAll(async () => {
  as = await startAuthorizationServer({ clientId: 'erawatch', clientSecret: SECRET, scope: 'mcp:read' });
  peer = await startOAuthPeer({ issuer: as.issuer, name: 'guarded-search' });
  app = await startApp({ E2E_OAUTH_SECRET: SECRET });
});

test.afterEach(async () => {
  const testInfo = test.info();
  if (testInfo.status !== testInfo.expectedStatus && app) {
    await testInfo.attach('server log', { body: app.log(), contentType: 'text/plain' });
  }
});

test.afterAll(async () => {
  await app?.stop();
  await peer?.stop();
  await as?.stop();
});

test('auth-gated without credentials, modern with OAuth client credentials from the form', async ({
  page,
}) => {
  if (!app || !peer || !as) throw new Error('set-up failed');
  const created = await apiPost(app, '/api/v1/balancers', {
    name: 'guarded-no-token',
    publicUrl: peer.url,
    nodeUrls: [peer.url],
    samplesPerCycle: 1,
    intervalMs: 3_000,
    timeoutMs: 1_000,
    legacyProbeTimeoutMs: 500,
  });
  expect(created.status).toBe(201);
  const { id } = (await created.json()) as { id: string };

  await page.goto(`${app.url}/balancers/${id}`);
  await expect(page.getByTestId('balancer-status')).toHaveText('Auth-gated', { timeout: 30_000 });
  await expect(page.getByTestId('node-verdict')).toHaveText('Auth-gated');
  await expect(page.getByTestId('group-auth-gated')).toContainText('auth_required');
  await expect(page.getByTestId('group-unavailable')).toHaveCount(0);
  await expect(page.getByTestId('gate')).toContainText('cannot judge 1 auth-gated node');
  await expect(page.getByTestId('gate')).toContainText('Cannot judge');
  await page.screenshot({ path: screenshotPath('balancer-auth-gated'), fullPage: true });

  await page.getByTestId('node-row').getByRole('link').first().click();
  await expect(page).toHaveURL(/\/nodes\//);
  const auth = page.getByTestId('auth-evidence');
  await expect(auth.getByTestId('auth-challenge')).toContainText('error=invalid_token');
  await expect(auth.getByTestId('auth-challenge')).toContainText('resource_metadata=');
  await expect(auth.getByTestId('auth-metadata')).toContainText(peer.url);
  await expect(auth.getByTestId('auth-metadata')).toContainText('matches the URL');
  await expect(auth.getByTestId('auth-metadata')).toContainText(`authorization servers: ${as.issuer}`);
  await page.screenshot({ path: screenshotPath('node-auth-gated'), fullPage: true });

  await page.goto(`${app.url}/balancers/new`);
  await page.getByLabel('Name', { exact: true }).fill('guarded-with-token');
  await page.getByLabel('Public URL', { exact: true }).fill(peer.url);
  await page.getByLabel('Node URLs').fill(peer.url);
  await page.getByLabel('Interval (ms)').fill('3000');
  await page.getByLabel('Timeout (ms)', { exact: true }).fill('1000');
  await page.getByLabel('Legacy timeout (ms)').fill('500');
  await page.getByLabel(/OAuth client credentials/).check();
  await page.getByLabel('Client ID').fill('erawatch');
  await page.getByLabel('Client secret').fill('env:E2E_OAUTH_SECRET');
  await page.getByLabel('Issuer').fill(as.issuer);
  await page.getByLabel('Scope').fill('mcp:read');
  await page.screenshot({ path: screenshotPath('form-oauth'), fullPage: true });
  await page.getByRole('button', { name: 'Register balancer' }).click();
  await expect(page).toHaveURL(/\/balancers\/bal_/);
  await expect(page.getByTestId('node-verdict')).toHaveText('Modern 2026-07-28', { timeout: 30_000 });
  await expect(page.getByTestId('balancer-status')).toHaveText('Uniform');
  expect(await page.content()).not.toContain(SECRET);
});
