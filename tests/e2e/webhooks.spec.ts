// Create a webhook endpoint in the UI, send a test event to a real receiver on loopback, see the delivery
// in the log; then the other screens (events, settings with a token shown once) for their screenshots.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect, test } from '@playwright/test';
import { screenshotPath, startApp, type RunningApp } from './support/app';

let app: RunningApp;
let receiver: http.Server;
const received: Array<{ headers: http.IncomingHttpHeaders; body: string }> = [];

test.beforeAll(async () => {
  app = await startApp({ ERAWATCH_POLLER: 'off' });
  receiver = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => {
      body += c.toString();
    });
    req.on('end', () => {
      received.push({ headers: req.headers, body });
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
});

test.afterEach(async () => {
  const testInfo = test.info();
  if (testInfo.status !== testInfo.expectedStatus && app) {
    await testInfo.attach('server log', { body: app.log(), contentType: 'text/plain' });
  }
});

test.afterAll(async () => {
  await new Promise<void>((resolve) => (receiver ? receiver.close(() => resolve()) : resolve()));
  await app?.stop();
});

test('create a webhook, send a test event, see the delivery in the log', async ({ page }) => {
  const port = (receiver.address() as AddressInfo).port;
  const name = `hook-${Date.now().toString(36)}`;
  await page.goto(`${app.url}/webhooks`);
  await page.getByText('Add a webhook endpoint').click();
  await page.getByLabel('Name').fill(name);
  await page.getByLabel('URL').fill(`http://127.0.0.1:${port}/hook`);
  await page.getByLabel('Balancer diverged').check();
  await page.getByRole('button', { name: 'Add endpoint' }).click();

  await expect(page.getByTestId('secret-once')).toContainText('whsec_');
  const endpoint = page.locator(`[data-testid="webhook"][data-name="${name}"]`);
  await expect(endpoint).toContainText('balancer.diverged');
  await endpoint.getByRole('button', { name: 'Send test event' }).click();

  const row = endpoint.getByTestId('delivery-row').first();
  await expect(row).toHaveAttribute('data-status', 'succeeded');
  await expect(row).toContainText('HTTP 204');
  await expect(row).toContainText('Delivered');
  expect(received).toHaveLength(1);
  expect(received[0]?.headers['webhook-signature']).toMatch(/^v1,/);
  await page.screenshot({ path: screenshotPath('webhooks'), fullPage: true });

  // Redeliver queues the same delivery again; the worker sends it with the same webhook-id.
  await row.getByRole('button', { name: 'Redeliver' }).click();
  await expect.poll(() => received.length, { timeout: 30_000 }).toBe(2);
  await expect(row).toHaveAttribute('data-status', 'succeeded');
  await expect(endpoint.getByTestId('delivery-row')).toHaveCount(1);

  // Disable and enable again.
  await endpoint.getByRole('button', { name: 'Disable' }).click();
  await expect(endpoint.getByText('Disabled', { exact: true })).toBeVisible();
  await endpoint.getByRole('button', { name: 'Enable' }).click();
  await expect(endpoint.getByText('Enabled', { exact: true })).toBeVisible();
  expect(received[1]?.headers['webhook-id']).toBe(received[0]?.headers['webhook-id']);
});

test('a webhook URL that is not http(s) is refused at its field', async ({ page }) => {
  await page.goto(`${app.url}/webhooks`);
  await page.getByText('Add a webhook endpoint').click();
  await page.getByLabel('Name').fill('refused-hook');
  await page.getByLabel('URL').fill('ftp://127.0.0.1/hook');
  await page.getByRole('button', { name: 'Add endpoint' }).click();
  await expect(page.getByTestId('error-wh-url')).toContainText('must be an http:// or https:// URL');
  await expect(page.locator('[data-testid="webhook"][data-name="refused-hook"]')).toHaveCount(0);
});

test('settings: a token is shown once, then listed by prefix and revocable', async ({ page }) => {
  const name = `ci-${Date.now().toString(36)}`;
  await page.goto(`${app.url}/settings`);
  await page.getByLabel('Name').fill(name);
  await page.getByLabel('Scope').selectOption('write');
  await page.getByRole('button', { name: 'Create token' }).click();
  const once = page.getByTestId('token-once');
  await expect(once).toBeVisible();
  const token = (await once.locator('.secret').textContent()) ?? '';
  expect(token.length).toBeGreaterThan(20);
  const row = page.locator(`[data-testid="token-row"][data-name="${name}"]`);
  await expect(row).toContainText('Active');
  await expect(row).not.toContainText(token);
  await page.screenshot({ path: screenshotPath('settings'), fullPage: true });

  // The token works against the API until it is revoked.
  const ok = await fetch(`${app.url}/api/v1/balancers`, { headers: { authorization: `Bearer ${token}` } });
  expect(ok.status).toBe(200);
  page.once('dialog', (d) => void d.accept());
  await row.getByRole('button', { name: 'Revoke' }).click();
  await expect(row).toContainText('Revoked');
  const refused = await fetch(`${app.url}/api/v1/balancers`, {
    headers: { authorization: `Bearer ${token}` },
  });
  expect(refused.status).toBe(401);
});

test('settings: a token’s expiry is chosen and shown; an admin revokes one person’s tokens at once', async ({
  page,
}) => {
  const name = `exp-${Date.now().toString(36)}`;
  await page.goto(`${app.url}/settings`);
  await page.getByLabel('Name').fill(name);
  await page.getByLabel('Expires').selectOption({ label: 'in 30 days' });
  const before = Date.now();
  await page.getByRole('button', { name: 'Create token' }).click();
  const once = page.getByTestId('token-once');
  await expect(once).toBeVisible();
  const token = (await once.locator('.secret').textContent()) ?? '';
  const listed = (await (await fetch(`${app.url}/api/v1/tokens`)).json()) as {
    items: Array<{ name: string; expiresAt: number | null }>;
  };
  const expiresAt = listed.items.find((t) => t.name === name)?.expiresAt ?? 0;
  expect(expiresAt).toBeGreaterThanOrEqual(before + 30 * 86_400_000);
  expect(expiresAt).toBeLessThanOrEqual(Date.now() + 30 * 86_400_000);
  const row = page.locator(`[data-testid="token-row"][data-name="${name}"]`);
  await expect(row).toContainText(`${new Date(expiresAt).toISOString().slice(0, 16).replace('T', ' ')} UTC`);
  await expect(row).toContainText('Active');

  // One person's tokens (here local mode's), revoked at once.
  await page.getByLabel('Person', { exact: true }).selectOption({ label: 'local mode' });
  page.once('dialog', (d) => void d.accept());
  await page.getByTestId('revoke-owner-tokens').click();
  await expect(row).toContainText('Revoked');
  const refused = await fetch(`${app.url}/api/v1/balancers`, {
    headers: { authorization: `Bearer ${token}` },
  });
  expect(refused.status).toBe(401);
});

test('events: the empty log says what will appear', async ({ page }) => {
  await page.goto(`${app.url}/events`);
  await expect(page.getByRole('heading', { name: 'No events yet' })).toBeVisible();
  await page.screenshot({ path: screenshotPath('events-empty'), fullPage: true });
  await page.getByLabel('Time').selectOption('1h');
  await expect(page).toHaveURL(/within=1h/);
  await expect(page.getByRole('heading', { name: 'No events match this filter' })).toBeVisible();
});
