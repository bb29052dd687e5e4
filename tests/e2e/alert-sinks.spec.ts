// Add an Alertmanager sink in the UI (a real Alertmanager on loopback) while a balancer of real SDK peers is
// split across eras: the firing alert shows on the sink, the push in its delivery log, and Alertmanager has it.
import { expect, test } from '@playwright/test';
import { startPeer, type RunningPeer } from '@/lib/peers/spawn';
import { startAlertmanager, type RunningAlertmanager } from '../support/alertmanager';
import { apiPost, screenshotPath, startApp, type RunningApp } from './support/app';

let app: RunningApp;
let am: RunningAlertmanager;
const peers: RunningPeer[] = [];

test.beforeAll(async () => {
  am = await startAlertmanager();
  app = await startApp({ ERAWATCH_PUBLIC_URL: 'http://erawatch.example.test' });
  peers.push(await startPeer('v2-modern', { name: 'pay-node', version: '2.0.0' }));
  peers.push(await startPeer('v1-stateful', { name: 'pay-node', version: '1.0.0' }));
});

test.afterEach(async () => {
  const testInfo = test.info();
  if (testInfo.status !== testInfo.expectedStatus && app) {
    await testInfo.attach('server log', { body: app.log(), contentType: 'text/plain' });
  }
});

test.afterAll(async () => {
  await Promise.all(peers.map((p) => p.stop()));
  await app?.stop();
  await am?.stop();
});

test('an Alertmanager sink added in the UI receives the era-split alert and logs the push', async ({
  page,
}) => {
  const [a, b] = peers;
  if (!a || !b) throw new Error('peers did not start');
  const res = await apiPost(app, '/api/v1/balancers', {
    name: 'payments-mcp',
    publicUrl: a.url,
    nodeUrls: [a.url, b.url],
    samplesPerCycle: 0,
    allowLegacy: true,
    // Deadlines generous enough that a loaded machine slows a probe rather than failing it.
    intervalMs: 12_000,
    timeoutMs: 3_000,
    legacyProbeTimeoutMs: 3_000,
  });
  expect(res.status).toBe(201);

  await page.goto(`${app.url}/alert-sinks`);
  await expect(page.getByRole('heading', { name: 'No alert sinks' })).toBeVisible();
  await page.getByTestId('add-alert-sink').locator('summary').click();
  await page.getByLabel('Name').fill('ops-alertmanager');
  await page.getByLabel(/Alertmanager URLs/).fill(am.url);
  await page.getByLabel('Authentication').selectOption('bearer');
  await page.getByLabel('Token').fill('env:OPS_AM_TOKEN_UNUSED');
  await page.getByLabel(/Re-send every/).fill('10');
  await page.getByRole('button', { name: 'Add Alertmanager' }).click();

  const sink = page.locator('[data-testid="alert-sink"][data-name="ops-alertmanager"]');
  await expect(sink).toContainText('bearer (env:OPS_AM_TOKEN_UNUSED)');
  await expect(sink).toContainText('re-sent every 10 s');
  // An unset env credential is a configuration error in the log, not a silent drop.
  const row = sink.getByTestId('delivery-row').first();
  await expect(row).toContainText('environment variable OPS_AM_TOKEN_UNUSED is not set', { timeout: 30_000 });

  // No auth needed by this Alertmanager: switch it off through the API, the next push goes through.
  const sinks = (await (await fetch(`${app.url}/api/v1/alert-sinks`)).json()) as {
    items: Array<{ id: string }>;
  };
  const sinkId = sinks.items[0]?.id ?? '';
  const patched = await fetch(`${app.url}/api/v1/alert-sinks/${sinkId}`, {
    method: 'PATCH',
    headers: { 'content-type': 'application/json', origin: app.url },
    body: JSON.stringify({ auth: { type: 'none' } }),
  });
  expect(patched.status).toBe(200);
  await expect(sink.getByTestId('sink-alert').first()).toHaveAttribute(
    'data-alertname',
    'ErawatchNonUniform',
  );
  await expect(sink.getByTestId('sink-alert').first()).toHaveAttribute('data-status', 'firing');
  await expect(sink.locator('[data-testid="delivery-row"][data-status="succeeded"]').first()).toContainText(
    'HTTP 200',
    { timeout: 30_000 },
  );
  await expect(sink).toContainText('1 firing');
  // The success ends the failure run the unset credential started: the sink is healthy again.
  await expect(sink.getByText('Enabled', { exact: true })).toBeVisible();
  await expect(sink.getByText('Failing', { exact: true })).toHaveCount(0);
  const inAm = await am.alerts(['balancer="payments-mcp"']);
  expect(inAm.map((x) => x.labels.alertname)).toEqual(['ErawatchNonUniform']);
  await page.screenshot({ path: screenshotPath('alert-sinks'), fullPage: true });
});
