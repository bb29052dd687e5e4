// Every screen in local mode, empty and populated, at 360 px and 1440 px, light and dark: axe-core finds no
// serious or critical violation, no page is wider than the viewport, and each is screenshotted for looking at.
// Also: unknown ids answer 404 with a heading and a way back, every page's title is "X · Erawatch", "/"
// focuses the search, the nav folds into a menu on a phone, the theme choice is remembered across loads, and
// the admin-only nav link is in the server's first answer (so the nav does not shift).
import { expect, test, type Page } from '@playwright/test';
import { startPeer, type RunningPeer } from '@/lib/peers/spawn';
import { apiPost, startApp, type RunningApp } from './support/app';
import { lookAt, shotPath } from './support/screens';

let app: RunningApp;
const peers: RunningPeer[] = [];

test.beforeAll(async () => {
  app = await startApp();
});

test.afterEach(async () => {
  const info = test.info();
  if (info.status !== info.expectedStatus && app) {
    await info.attach('server log', { body: app.log(), contentType: 'text/plain' });
  }
});

test.afterAll(async () => {
  await Promise.all(peers.map((p) => p.stop()));
  await app?.stop();
});

/** Pages that exist with no data at all, with what each shows once loaded. */
const STATIC_PAGES: Array<{ path: string; name: string; title: string; ready?: (p: Page) => Promise<void> }> =
  [
    { path: '/stdio', name: 'stdio', title: 'stdio servers · Erawatch' },
    {
      path: '/events',
      name: 'events',
      title: 'Events · Erawatch',
      ready: (p) => expect(p.getByText(/Loading/)).toHaveCount(0),
    },
    {
      path: '/webhooks',
      name: 'webhooks',
      title: 'Webhooks · Erawatch',
      ready: (p) => expect(p.getByText(/Loading/)).toHaveCount(0),
    },
    {
      path: '/alert-sinks',
      name: 'alert-sinks',
      title: 'Alert sinks · Erawatch',
      ready: (p) => expect(p.getByText(/Loading/)).toHaveCount(0),
    },
    {
      path: '/settings',
      name: 'settings',
      title: 'Settings · Erawatch',
      ready: (p) => expect(p.getByText(/Loading/)).toHaveCount(0),
    },
    {
      path: '/audit',
      name: 'audit',
      title: 'Audit log · Erawatch',
      ready: (p) => expect(p.getByText(/Loading/)).toHaveCount(0),
    },
    { path: '/balancers/new', name: 'register', title: 'Register balancer · Erawatch' },
    { path: '/login', name: 'login-local', title: 'Log in · Erawatch' },
  ];

test('the empty dashboard: every screen fits a phone, passes axe and has its title', async ({ page }) => {
  test.setTimeout(600_000);
  await page.goto(`${app.url}/`);
  await expect(page).toHaveTitle('Fleet · Erawatch');
  await lookAt(page, 'empty-fleet', { ready: (p) => expect(p.getByTestId('fleet-empty')).toBeVisible() });
  for (const s of STATIC_PAGES) {
    await page.goto(`${app.url}${s.path}`);
    await expect(page).toHaveTitle(s.title);
    await lookAt(page, `empty-${s.name}`, { ready: s.ready });
  }
  // The login page of a local-mode server says no login is needed, not that it listens beyond loopback.
  await page.goto(`${app.url}/login`);
  await expect(page.getByTestId('login-requirement')).toContainText('needs no login');
  await expect(page.getByLabel('Admin secret')).toHaveCount(0);

  // A form's errors are a state of their own.
  await page.goto(`${app.url}/balancers/new`);
  await page.getByRole('button', { name: 'Register balancer' }).click();
  await expect(page.locator('.field-error').first()).toBeVisible();
  await lookAt(page, 'register-errors');
});

test('unknown ids answer 404 with a heading, a title and a way back', async ({ page, request }) => {
  const cases = [
    { path: '/balancers/bal_doesnotexist', heading: 'Balancer not found', back: 'Back to the fleet' },
    { path: '/balancers/bal_doesnotexist/edit', heading: 'Balancer not found', back: 'Back to the fleet' },
    { path: '/nodes/node_doesnotexist', heading: 'Node not found', back: 'Back to the fleet' },
    {
      path: '/stdio/stdio_doesnotexist',
      heading: 'stdio server not found',
      back: 'Back to the stdio servers',
    },
    { path: '/no/such/page', heading: 'Not found', back: 'Back to the fleet' },
  ];
  for (const c of cases) {
    const res = await request.get(`${app.url}${c.path}`);
    expect(res.status(), c.path).toBe(404);
    const response = await page.goto(`${app.url}${c.path}`);
    expect(response?.status(), c.path).toBe(404);
    await expect(page.getByRole('heading', { level: 1, name: c.heading })).toBeVisible();
    await expect(page).toHaveTitle(`${c.heading} · Erawatch`);
    await expect(page.getByRole('link', { name: c.back })).toBeVisible();
  }
  await page.goto(`${app.url}/nodes/node_doesnotexist`);
  await lookAt(page, 'not-found');
});

test('the populated dashboard: fleet, balancer, node and events pass axe at both widths and themes', async ({
  page,
}) => {
  test.setTimeout(600_000);
  const modern = await startPeer('v2-dual', { name: 'screens-node', version: '1.0.0' });
  peers.push(modern);
  const legacy = await startPeer('v1-stateful', { name: 'screens-node', version: '1.0.0' });
  peers.push(legacy);
  const timing = { intervalMs: 20_000, timeoutMs: 4_000, legacyProbeTimeoutMs: 4_000, samplesPerCycle: 2 };
  const split = await apiPost(app, '/api/v1/balancers', {
    name: 'checkout-with-a-rather-long-balancer-name',
    publicUrl: modern.url,
    nodeUrls: [modern.url, legacy.url],
    allowLegacy: true,
    ...timing,
  });
  expect(split.status).toBe(201);
  const splitId = ((await split.json()) as { id: string }).id;
  // A node nobody answers on: the unavailable (error) state.
  const deadPort = legacy.port + 1;
  const down = await apiPost(app, '/api/v1/balancers', {
    name: 'search',
    publicUrl: `http://127.0.0.1:${deadPort}/mcp`,
    nodeUrls: [`http://127.0.0.1:${deadPort}/mcp`],
    ...timing,
  });
  expect(down.status).toBe(201);
  for (let i = 0; i < 20; i++) {
    expect(
      (await apiPost(app, '/api/v1/balancers', { name: `fleet-${i}`, publicUrl: modern.url, ...timing }))
        .status,
    ).toBe(201);
  }

  await page.goto(`${app.url}/`);
  await expect(
    page.locator('[data-testid="fleet-row"][data-balancer="checkout-with-a-rather-long-balancer-name"]'),
  ).toContainText('Era split', { timeout: 90_000 });
  await expect(page.locator('[data-testid="fleet-row"][data-balancer="search"]')).not.toContainText(
    'Not probed yet',
    { timeout: 90_000 },
  );
  // The non-uniform count card has its own icon, not the era-split one.
  await expect(page.getByTestId('count-non-uniform').locator('svg')).toHaveCount(1);
  const nonUniformIcon = await page.getByTestId('count-non-uniform').locator('svg').innerHTML();
  const splitIcon = await page.locator('.badge', { hasText: 'Era split' }).first().locator('svg').innerHTML();
  expect(nonUniformIcon).not.toBe(splitIcon);
  await lookAt(page, 'fleet', { ready: (p) => expect(p.getByTestId('fleet-row').first()).toBeVisible() });

  // "/" focuses the search from anywhere on the page but a text field.
  await page.setViewportSize({ width: 1440, height: 900 });
  await page.locator('h1').click();
  await page.keyboard.press('/');
  await expect(page.getByLabel('Search balancers')).toBeFocused();
  await page.keyboard.type('search');
  await expect(page.getByTestId('fleet-row')).toHaveCount(1);

  await page.goto(`${app.url}/balancers/${splitId}`);
  await expect(page).toHaveTitle('Balancer · Erawatch');
  await lookAt(page, 'balancer', {
    ready: (p) => expect(p.getByTestId('node-row')).toHaveCount(2),
  });

  const nodeHref = await page.getByTestId('node-row').first().getByRole('link').getAttribute('href');
  await page.goto(`${app.url}${nodeHref ?? ''}`);
  await expect(page).toHaveTitle('Node · Erawatch');
  await lookAt(page, 'node', { ready: (p) => expect(p.getByText(/Loading/)).toHaveCount(0) });
  // The latency chart's axis labels are drawn inside the chart, none cut off at its left edge.
  const chartText = page.locator('svg.chart text');
  if ((await chartText.count()) > 0) {
    const lefts = await chartText.evaluateAll((els) => els.map((e) => (e as SVGGraphicsElement).getBBox().x));
    expect(Math.min(...lefts)).toBeGreaterThanOrEqual(0);
  }

  await page.goto(`${app.url}/events`);
  await lookAt(page, 'events', {
    ready: (p) => expect(p.getByTestId('event-row').first()).toBeVisible(),
  });

  await page.goto(`${app.url}/balancers/${splitId}/edit`);
  await expect(page).toHaveTitle('Edit balancer · Erawatch');
  await lookAt(page, 'balancer-edit');
});

test('on a phone the nav is a menu button; the theme choice is remembered; admin links come from the server', async ({
  page,
  request,
}) => {
  await page.setViewportSize({ width: 360, height: 800 });
  await page.goto(`${app.url}/events`);
  const menu = page.getByRole('button', { name: /Menu/ });
  await expect(menu).toHaveAttribute('aria-expanded', 'false');
  await expect(page.getByRole('link', { name: 'Settings' })).toBeHidden();
  await menu.click();
  await expect(menu).toHaveAttribute('aria-expanded', 'true');
  await expect(page.getByRole('link', { name: 'Settings' })).toBeVisible();
  await page.screenshot({ path: shotPath('menu-open-360'), fullPage: false });
  await page.keyboard.press('Escape');
  await expect(menu).toHaveAttribute('aria-expanded', 'false');
  await expect(menu).toBeFocused();
  await menu.click();
  await page.getByRole('link', { name: 'Settings' }).click();
  await expect(page).toHaveURL(`${app.url}/settings`);
  await expect(menu).toHaveAttribute('aria-expanded', 'false');

  // The system says light; the toggle picks dark, and a reload keeps it from the first paint on.
  await page.emulateMedia({ colorScheme: 'light' });
  const toggle = page.getByTestId('theme-toggle');
  await expect(toggle).toHaveAttribute('aria-pressed', 'false');
  await toggle.click();
  await expect(toggle).toHaveAttribute('aria-pressed', 'true');
  await page.reload();
  expect(await page.evaluate(() => document.documentElement.dataset.theme)).toBe('dark');
  const bg = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
  expect(bg).toBe('rgb(16, 19, 23)');
  await toggle.click();
  await expect(toggle).toHaveAttribute('aria-pressed', 'false');

  // Local mode acts as admin: the audit link is in the server's HTML, not added after the session loads.
  const html = await (await request.get(`${app.url}/events`)).text();
  expect(html).toContain('href="/audit"');
});
