// The balancer's History panel with real peers (a modern, a dual-era and a legacy node: an era split): the
// state band and the stacked chart render, the range picker keeps its choice in the URL across a reload, the
// node page's probe counts name their period, and the events page shows relative times and filters by node.
// Screenshots at 360 px and 1440 px.
import { expect, test, type Page } from '@playwright/test';
import { startPeer, type RunningPeer } from '@/lib/peers/spawn';
import { apiPost, startApp, type RunningApp } from './support/app';

let app: RunningApp;
const peers: RunningPeer[] = [];
const SHOTS = process.env.ERAWATCH_SHOTS_DIR ?? '/tmp/erawatch-history-shots';

test.beforeAll(async () => {
  app = await startApp();
  peers.push(await startPeer('v2-modern', { name: 'search', version: '2.0.0' }));
  peers.push(await startPeer('v2-dual', { name: 'search', version: '2.0.0' }));
  peers.push(await startPeer('v1-stateful', { name: 'search', version: '1.0.0' }));
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

async function shoot(page: Page, name: string, width: number): Promise<void> {
  await page.setViewportSize({ width, height: 900 });
  await page.getByTestId('history').scrollIntoViewIfNeeded();
  await page.screenshot({ path: `${SHOTS}/${name}-${width}.png`, fullPage: true });
  await page.getByTestId('history').screenshot({ path: `${SHOTS}/${name}-panel-${width}.png` });
}

test('the history band and picker render, and the URL keeps the range', async ({ page }) => {
  test.setTimeout(240_000);
  const res = await apiPost(app, '/api/v1/balancers', {
    name: 'search',
    publicUrl: peers[0]?.url,
    nodeUrls: peers.map((p) => p.url),
    allowLegacy: true,
    // The audit asks the dual-era node's legacy side too, so it is counted as dual-era.
    auditLegacy: true,
    intervalMs: 5_000,
    timeoutMs: 1_500,
    legacyProbeTimeoutMs: 1_500,
    samplesPerCycle: 0,
  });
  const body = await res.text();
  expect(res.status, body).toBe(201);
  const { id } = JSON.parse(body) as { id: string };

  await page.goto(`${app.url}/balancers/${id}`);
  const history = page.getByTestId('history');
  await expect(history.getByRole('img', { name: /State and nodes per client era/ })).toBeVisible({
    timeout: 60_000,
  });
  // The era split is on the band, and the chart counts the dual-era node apart.
  await expect(history.locator('[data-band="era-split"]').first()).toBeAttached();
  await expect(history.getByTestId('history-dualEra')).toHaveText('Dual-era: 1');
  await expect(history.getByTestId('history-legacy')).toHaveText('Legacy: 1');
  await expect(history.getByTestId('history-changes')).toContainText('Era-split');
  await expect(history.getByTestId('history-period')).toContainText('the last hour');
  const picker = history.getByRole('group', { name: 'History range' });
  await expect(picker.getByRole('button', { name: '1 h' })).toHaveAttribute('aria-pressed', 'true');
  await shoot(page, 'history-1h', 1440);

  await picker.getByRole('button', { name: '6 h' }).click();
  await expect(page).toHaveURL(/[?&]range=6h/);
  await expect(history).toHaveAttribute('data-range', '6h');
  await expect(history.getByTestId('history-period')).toContainText('the last 6 hours');
  await page.reload();
  await expect(page.getByTestId('history')).toHaveAttribute('data-range', '6h');
  await expect(
    page.getByRole('group', { name: 'History range' }).getByRole('button', { name: '6 h' }),
  ).toHaveAttribute('aria-pressed', 'true');
  await expect(page.getByTestId('history').locator('[data-band="era-split"]').first()).toBeAttached();
  await shoot(page, 'history-6h', 360);
  await shoot(page, 'history-6h', 1440);

  await picker.getByRole('button', { name: '7 d' }).click();
  await expect(page).toHaveURL(/[?&]range=7d/);
  await expect(history.getByTestId('history-period')).toContainText('the last 7 days');

  // The node page: the same picker, and probe counts that say which period they cover.
  await page.goto(`${app.url}/balancers/${id}?range=15m`);
  await page
    .getByRole('link', { name: peers[2]?.url ?? '' })
    .first()
    .click();
  await expect(page).toHaveURL(/\/nodes\//);
  const activity = page.getByTestId('node-activity');
  await expect(activity.getByTestId('range-probes')).toContainText('in the last hour');
  await activity.getByRole('button', { name: '15 min' }).click();
  await expect(page).toHaveURL(/[?&]range=15m/);
  await expect(activity.getByTestId('range-probes')).toContainText(
    /\d+ probes, \d+ failed, in the last 15 minutes/,
  );
  await expect(page.getByTestId('span-probes')).toContainText('since its fingerprint last changed');
  await page.setViewportSize({ width: 360, height: 900 });
  await page.screenshot({ path: `${SHOTS}/node-activity-360.png`, fullPage: true });
  await activity.screenshot({ path: `${SHOTS}/node-activity-panel-360.png` });

  // A node goes down: its own event, for the events page's node filter.
  await peers[2]?.stop();
  const nodeEvents = async () => {
    const r = await fetch(`${app.url}/api/v1/events?balancerId=${id}&type=node.unavailable`);
    return ((await r.json()) as { items: unknown[] }).items.length;
  };
  await expect.poll(nodeEvents, { timeout: 60_000 }).toBeGreaterThan(0);

  // The events page: relative time beside UTC (the exact time on hover), and a filter by node in the URL.
  await page.goto(`${app.url}/events?balancerId=${id}`);
  const first = page.getByTestId('event-row').first();
  await expect(first.getByTestId('when-relative')).toHaveText(/ago$/);
  await expect(first.getByTestId('when')).toHaveAttribute(
    'title',
    /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}\.\d{3} UTC$/,
  );
  const nodeRow = page
    .getByTestId('event-row')
    .filter({ has: page.getByTestId('filter-node') })
    .first();
  await nodeRow.getByTestId('filter-node').click();
  await expect(page).toHaveURL(/[?&]nodeId=/);
  const nodeId = new URL(page.url()).searchParams.get('nodeId');
  await expect(page.locator('#ev-node')).toHaveValue(nodeId ?? '');
  const rows = page.getByTestId('event-row');
  await expect(rows.first()).toBeVisible();
  for (const link of await rows.locator('td:nth-child(4) a').all()) {
    await expect(link).toHaveAttribute('href', `/nodes/${nodeId}`);
  }
  await page.setViewportSize({ width: 1440, height: 900 });
  await page.screenshot({ path: `${SHOTS}/events-node-1440.png`, fullPage: true });
});
