// Node names set in the register form (a name after each URL) show where the dashboard labels nodes: the
// matrix, the fingerprint groups, the timeline and the node page's title, with the URL one click away there.
// A name the API refuses is shown at its line, and nothing is saved. Real MCP SDK peers, the built app.
import { expect, test } from '@playwright/test';
import { startPeer, type RunningPeer } from '@/lib/peers/spawn';
import { apiPost, screenshotPath, startApp, type RunningApp } from './support/app';
import { seriousViolations } from './support/screens';

let app: RunningApp;
const peers: RunningPeer[] = [];

test.beforeAll(async () => {
  app = await startApp();
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
});

async function probeNow(id: string): Promise<void> {
  const res = await apiPost(app, `/api/v1/balancers/${id}/probe`, {});
  expect(res.status, await res.clone().text()).toBe(200);
}

test('names typed in the form label the nodes in the matrix, the groups, the timeline and the node page', async ({
  page,
}) => {
  test.setTimeout(300_000);
  const [m1, m2, d1] = await Promise.all([
    startPeer('v2-modern', { name: 'search-api', version: '2.0.0' }),
    startPeer('v2-modern', { name: 'search-api', version: '2.0.0' }),
    startPeer('v1-stateful', { name: 'search-api', version: '1.0.0' }),
  ]);
  peers.push(m1, m2, d1);

  await page.goto(`${app.url}/balancers/new`);
  await page.getByLabel('Name', { exact: true }).fill('named-by-form');
  await page.getByLabel('Public URL', { exact: true }).fill(m1.url);
  await page.getByLabel('Node URLs').fill(`${m1.url} search-1\n${m2.url}   search-2\n${d1.url} search-3`);
  await page.getByLabel(/^Allow legacy/).check();
  // A long interval: the cycles under test are the ones asked for below.
  await page.getByLabel('Interval (ms)').fill('600000');
  await page.getByRole('button', { name: 'Register balancer' }).click();
  await expect(page).toHaveURL(/\/balancers\/bal_[A-Za-z0-9_-]+$/);
  const id = new URL(page.url()).pathname.split('/').pop() ?? '';

  const stored = (await (await fetch(`${app.url}/api/v1/balancers/${id}`)).json()) as {
    nodeNames: Record<string, string>;
  };
  expect(stored.nodeNames).toEqual({ [m1.url]: 'search-1', [m2.url]: 'search-2', [d1.url]: 'search-3' });

  await probeNow(id);
  const rows = page.getByTestId('node-row');
  for (const name of ['search-1', 'search-2', 'search-3'])
    await expect(rows.getByRole('link', { name, exact: true })).toBeVisible();
  // No row is labelled by its URL any more.
  await expect(rows.getByRole('link', { name: m1.url })).toHaveCount(0);
  // The fingerprint groups name their nodes: the legacy one stands apart.
  const groups = page.getByTestId('partition-group');
  await expect(groups).toHaveCount(2);
  const members = groups.getByTestId('group-members');
  await expect(members).toHaveText(['search-1, search-2', 'search-3']);

  // search-3 goes down: the timeline says which node, by name.
  await d1.stop();
  await probeNow(id);
  const down = page.locator('[data-testid="timeline-event"][data-type="node.unavailable"]');
  await expect(down).toContainText('search-3');
  await page.screenshot({ path: screenshotPath('node-names-balancer'), fullPage: true });

  // The node page's title is the name; the URL is one click away.
  await rows.getByRole('link', { name: 'search-1', exact: true }).click();
  await expect(page.getByTestId('node-title')).toHaveText('search-1');
  const url = page.getByTestId('node-url');
  await expect(url).toHaveText(m1.url);
  await expect(url).toHaveAttribute('href', m1.url);
  expect(await seriousViolations(page)).toEqual([]);
  await page.screenshot({ path: screenshotPath('node-names-node'), fullPage: true });
});

test('a name the API refuses is shown at its line in the node list, and nothing is saved', async ({
  page,
}) => {
  await page.goto(`${app.url}/balancers/new`);
  await page.getByLabel('Name', { exact: true }).fill('bad-node-name');
  await page.getByLabel('Public URL', { exact: true }).fill('http://127.0.0.1:9/mcp');
  await page
    .getByLabel('Node URLs')
    .fill(`http://127.0.0.1:10/mcp ok-name\nhttp://127.0.0.1:11/mcp ${'n'.repeat(81)}`);
  await page.getByRole('button', { name: 'Register balancer' }).click();
  await expect(page.getByTestId('error-nodeUrls')).toContainText('line 2: must be at most 80 characters');
  await expect(page.getByTestId('form-error')).toContainText('The balancer was not registered');
  await expect(page).toHaveURL(/\/balancers\/new$/);
  const list = (await (await fetch(`${app.url}/api/v1/balancers?q=bad-node-name`)).json()) as {
    items: unknown[];
  };
  expect(list.items).toEqual([]);
});
