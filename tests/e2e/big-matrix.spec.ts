// The node matrix of a 1,000-node balancer (seeded through the store, served with the poller off): search
// and group filters narrow the rows and the URL keeps them across a reload, a header click sorts, scrolling
// the window loads rows past the first page with no scroller of the matrix's own, a fingerprint group's link
// opens the matrix filtered to it, a gate reason's link opens the nodes it names, and the page passes axe and
// fits 360 px and 1440 px, light and dark.
import { expect, test, type Page } from '@playwright/test';
import { startApp, type RunningApp } from './support/app';
import { BIG_NODES, kindOf, latencyOf, nodeUrl, seedBigBalancer } from './support/big-balancer';
import { SCHEMES, WIDTHS, lookAt, overflowPx, seriousViolations, shotPath } from './support/screens';

let app: RunningApp;
let seeded: Awaited<ReturnType<typeof seedBigBalancer>>;
const LEGACY = Array.from({ length: BIG_NODES }, (_, i) => i).filter((i) => kindOf(i) === 'legacy').length;

test.beforeAll(async () => {
  seeded = await seedBigBalancer();
  app = await startApp({ ERAWATCH_DB: seeded.dbFile, ERAWATCH_POLLER: 'off' });
});

test.afterEach(async () => {
  const testInfo = test.info();
  if (testInfo.status !== testInfo.expectedStatus && app) {
    await testInfo.attach('server log', { body: app.log(), contentType: 'text/plain' });
  }
});

test.afterAll(async () => {
  await app?.stop();
  seeded?.cleanup();
});

const rows = (page: Page) => page.getByTestId('node-row');
/** The matrix is hydrated: it measured where its rows start, so its controls answer. */
const hydrated = (page: Page) =>
  expect(page.getByTestId('node-matrix')).toHaveAttribute('data-measured', 'true');
const count = (page: Page) => page.getByTestId('matrix-count');

/**
 * The unfiltered page at both widths and themes: axe, no sideways overflow, and a screenshot of the first
 * two screens (a full page of 1,000 rows would be 36,000 px tall).
 */
async function lookAtTop(page: Page, name: string): Promise<void> {
  for (const width of WIDTHS) {
    for (const scheme of SCHEMES) {
      await page.setViewportSize({ width, height: 1800 });
      await page.emulateMedia({ colorScheme: scheme });
      await expect(rows(page).first()).toBeAttached();
      await page.screenshot({ path: shotPath(`${name}-${width}-${scheme}`) });
      expect(await overflowPx(page), `${name} at ${width} px: wider than the viewport`).toBeLessThanOrEqual(
        0,
      );
      expect(await seriousViolations(page), `${name} at ${width} px, ${scheme}: axe`).toEqual([]);
    }
  }
  await page.setViewportSize({ width: 1440, height: 900 });
  await page.emulateMedia({ colorScheme: 'light' });
}

/** Elements around the first row that scroll vertically on their own (none: the rows scroll with the page). */
async function verticalScrollers(page: Page): Promise<string[]> {
  return rows(page)
    .first()
    .evaluate((row) => {
      const out: string[] = [];
      for (let el = row.parentElement; el && el !== document.body; el = el.parentElement) {
        const { overflowY } = getComputedStyle(el);
        if (/auto|scroll|overlay/.test(overflowY) && el.scrollHeight > el.clientHeight + 1) {
          out.push(`${el.tagName.toLowerCase()}.${el.className} (${el.scrollHeight} > ${el.clientHeight})`);
        }
      }
      return out;
    });
}

test('search and group filters narrow the rows and stay in the URL across a reload', async ({ page }) => {
  await page.setViewportSize({ width: 1440, height: 900 });
  await page.goto(`${app.url}/balancers/${seeded.id}`);
  await expect(count(page)).toHaveText(`${BIG_NODES} of ${BIG_NODES} nodes`);
  await expect(rows(page).first()).toHaveAttribute('data-node-url', nodeUrl(0));

  await hydrated(page);
  await page.getByLabel('Search nodes by name or URL').fill(':2012');
  await expect(page).toHaveURL(/[?&]q=%3A2012/);
  await expect(count(page)).toHaveText(`10 of ${BIG_NODES} nodes`);
  await expect(rows(page)).toHaveCount(10);
  await page.reload();
  await hydrated(page);
  await expect(page.getByLabel('Search nodes by name or URL')).toHaveValue(':2012');
  await expect(rows(page)).toHaveCount(10);
  for (const row of await rows(page).all()) {
    await expect(row).toHaveAttribute('data-node-url', /:2012\d\/mcp$/);
  }

  // A search that matches nothing says so, and clearing brings every node back.
  await page.getByLabel('Search nodes by name or URL').fill('no-such-node');
  await expect(page.getByTestId('matrix-empty')).toContainText('No node matches these filters.');
  await page.getByTestId('matrix-empty').getByRole('button', { name: 'Clear filters' }).click();
  await expect(count(page)).toHaveText(`${BIG_NODES} of ${BIG_NODES} nodes`);
  await expect(page).not.toHaveURL(/[?&]q=/);

  // Group B (the legacy nodes) from the filter bar.
  await hydrated(page);
  await page.getByLabel('Fingerprint group').selectOption({ label: 'Group B' });
  await expect(page).toHaveURL(/[?&]group=fp_/);
  await expect(count(page)).toHaveText(`${LEGACY} of ${BIG_NODES} nodes`);
  await expect(page.getByTestId('node-verdict').first()).toHaveText(/^Legacy/);
  await page.reload();
  await expect(count(page)).toHaveText(`${LEGACY} of ${BIG_NODES} nodes`);
  await expect(page.getByLabel('Fingerprint group')).toHaveValue(/^fp_/);
  const verdicts = await page.getByTestId('node-verdict').allTextContents();
  expect(verdicts.length).toBeGreaterThan(5);
  expect(verdicts.every((v) => v.startsWith('Legacy'))).toBe(true);
  await lookAt(page, 'big-matrix-group-b', {
    ready: (p) => expect(p.getByTestId('node-row').first()).toBeVisible(),
  });
  // A full-page picture shows only the rows near the window (virtualised): one of the matrix itself too.
  await page.emulateMedia({ colorScheme: 'light' });
  for (const width of WIDTHS) {
    await page.setViewportSize({ width, height: 900 });
    await page.locator('#nodes').evaluate((e) => e.scrollIntoView());
    await expect(rows(page).first()).toBeInViewport();
    await page.screenshot({ path: shotPath(`big-matrix-group-b-rows-${width}`) });
  }
});

test('a header click sorts, by keyboard too, and the order is right', async ({ page }) => {
  await page.setViewportSize({ width: 1440, height: 900 });
  await page.goto(`${app.url}/balancers/${seeded.id}`);
  const node = page.getByRole('columnheader', { name: 'Node' });
  await expect(node).toHaveAttribute('aria-sort', 'ascending');
  await hydrated(page);
  await node.getByRole('button').focus();
  await page.keyboard.press('Enter');
  await expect(node).toHaveAttribute('aria-sort', 'descending');
  await expect(page).toHaveURL(/[?&]order=desc/);
  await expect(rows(page).first()).toHaveAttribute('data-node-url', nodeUrl(BIG_NODES - 1));

  const latency = page.getByRole('columnheader', { name: 'Latency' });
  await latency.getByRole('button').click();
  await expect(latency).toHaveAttribute('aria-sort', 'ascending');
  await expect(node).not.toHaveAttribute('aria-sort', /./);
  await expect(page).toHaveURL(/[?&]sort=latency/);
  const fastest = Math.min(...Array.from({ length: BIG_NODES }, (_, i) => latencyOf(i)));
  await expect(rows(page).first()).toContainText(`${fastest} ms`);
  const shown = (await rows(page).locator('[role="cell"].num').allTextContents()).map((t) =>
    Number.parseInt(t, 10),
  );
  expect(shown.length).toBeGreaterThan(10);
  expect(shown).toEqual([...shown].sort((a, b) => a - b));
  // Ties keep one order: the same rows after a reload, in the same places.
  const before = await rows(page).evaluateAll((els) => els.map((e) => e.getAttribute('data-node-url')));
  await page.reload();
  await expect(rows(page).first()).toBeVisible();
  const after = await rows(page).evaluateAll((els) => els.map((e) => e.getAttribute('data-node-url')));
  expect(before.length).toBeGreaterThan(15);
  expect(after.slice(0, 15)).toEqual(before.slice(0, 15));
});

test('scrolling the window loads rows past the first page; the matrix has no scroller of its own', async ({
  page,
}) => {
  await page.setViewportSize({ width: 1440, height: 900 });
  await page.goto(`${app.url}/balancers/${seeded.id}`);
  await expect(rows(page).first()).toBeVisible();
  await hydrated(page);
  expect(await verticalScrollers(page)).toEqual([]);
  const table = page.getByRole('table', { name: 'Nodes by revision' });
  await expect(table).toHaveAttribute('aria-rowcount', String(BIG_NODES + 1));
  const last = page.locator(`[data-testid="node-row"][data-node-url="${nodeUrl(BIG_NODES - 1)}"]`);
  await expect
    .poll(
      async () => {
        await page.evaluate(() => window.scrollTo(0, document.documentElement.scrollHeight));
        return last.count();
      },
      { timeout: 60_000 },
    )
    .toBe(1);
  await expect(last).toBeInViewport();
  await expect(last).toHaveAttribute('aria-rowindex', String(BIG_NODES + 1));
  expect(await verticalScrollers(page)).toEqual([]);
});

test('a fingerprint group links to the matrix filtered to it, with its count', async ({ page }) => {
  await page.setViewportSize({ width: 1440, height: 900 });
  await page.goto(`${app.url}/balancers/${seeded.id}`);
  const groups = page.getByTestId('partition-group');
  await expect(groups).toHaveCount(2);
  await expect(groups.nth(1)).toContainText(`${LEGACY} nodes`);
  await expect(groups.nth(1)).not.toContainText('more');
  await lookAtTop(page, 'big-balancer');
  await groups.nth(1).getByTestId('group-nodes-link').click();
  await expect(page).toHaveURL(/[?&]group=fp_/);
  await expect(count(page)).toHaveText(`${LEGACY} of ${BIG_NODES} nodes`);
  await expect(page.getByTestId('node-verdict').first()).toHaveText(/^Legacy/);
  // The back button returns to the page as it was.
  await page.goBack();
  await expect(count(page)).toHaveText(`${BIG_NODES} of ${BIG_NODES} nodes`);
});

test('a gate reason links to the nodes it names, with their count', async ({ page }) => {
  await page.setViewportSize({ width: 1440, height: 900 });
  await page.goto(`${app.url}/balancers/${seeded.id}`);
  await hydrated(page);
  const lacking = page.getByTestId('gate-reason').filter({ hasText: '2026-07-28 is not served by' });
  const link = lacking.getByTestId('gate-reason-nodes');
  await expect(link).toHaveText(`show ${LEGACY} nodes`);
  await link.click();
  await expect(page).toHaveURL(/[?&]lacks=2026-07-28/);
  await expect(count(page)).toHaveText(`${LEGACY} of ${BIG_NODES} nodes`);
  await expect(page.getByLabel('Lacks a revision')).toHaveValue('2026-07-28');
  await expect(page.getByTestId('node-verdict').first()).toHaveText(/^Legacy/);

  await page.goBack();
  const down = page
    .getByTestId('gate-reason')
    .filter({ hasText: 'unavailable' })
    .getByTestId('gate-reason-nodes');
  const unavailable = Array.from({ length: BIG_NODES }, (_, i) => i).filter(
    (i) => kindOf(i) === 'down',
  ).length;
  await expect(down).toHaveText(`show ${unavailable} nodes`);
  await down.click();
  await expect(page).toHaveURL(/[?&]availability=unavailable/);
  await expect(count(page)).toHaveText(`${unavailable} of ${BIG_NODES} nodes`);
});
