// The screens behind a login (admin secret and single sign-on set): signed out, a page sends the browser to
// /login?next=… while the API keeps its 401; the login page says what this server requires; and as a viewer,
// an operator and an admin every screen passes axe at 360 px (dark) and 1440 px (light) without overflowing.
import { expect, test, type Page } from '@playwright/test';
import type { RunningApp } from './support/app';
import { lookAt, lookAtPaired, overflowPx } from './support/screens';
import { OIDC_USERS } from '../support/oidc-provider';
import { signInWithSso, startSsoApp, type SsoApp } from './support/sso';

const SECRET = 'e2e-screens-admin-secret-0123456789abcdef';
let sso: SsoApp;
let app: RunningApp;
let balancerId = '';

test.beforeAll(async () => {
  sso = await startSsoApp(SECRET, { name: 'checkout', publicUrl: 'https://mcp.example.test/mcp' });
  ({ app, balancerId } = sso);
});

test.afterEach(async () => {
  const info = test.info();
  if (info.status !== info.expectedStatus && app) {
    await info.attach('server log', { body: app.log(), contentType: 'text/plain' });
  }
});

test.afterAll(async () => {
  await sso?.stop();
});

function signIn(page: Page, sub: string, next = '/'): Promise<void> {
  return signInWithSso(sso, page, sub, next);
}

test('signed out, pages go to the login page and come back after it; the API keeps its 401', async ({
  page,
  request,
}) => {
  for (const path of ['/', '/events', `/balancers/${balancerId}`, '/settings']) {
    const res = await request.get(`${app.url}${path}`, { maxRedirects: 0 });
    expect(res.status(), path).toBe(307);
    expect(res.headers().location, path).toBe(`/login?next=${encodeURIComponent(path)}`);
  }
  const withQuery = await request.get(`${app.url}/events?type=balancer.diverged`, { maxRedirects: 0 });
  expect(withQuery.headers().location).toBe(
    `/login?next=${encodeURIComponent('/events?type=balancer.diverged')}`,
  );
  for (const path of ['/api/v1/balancers', '/dashboard-data/fleet']) {
    const res = await request.get(`${app.url}${path}`, { maxRedirects: 0 });
    expect(res.status(), path).toBe(401);
  }
  // A forged cookie is no session.
  const forged = await request.get(`${app.url}/`, {
    maxRedirects: 0,
    headers: { cookie: 'erawatch_session=eyJ2IjoyfQ.bm9wZQ' },
  });
  expect(forged.status()).toBe(307);
  expect((await request.get(`${app.url}/healthz`)).status()).toBe(200);

  await page.goto(`${app.url}/events`);
  await expect(page).toHaveURL(`${app.url}/login?next=%2Fevents`);
  await expect(page.getByTestId('login-requirement')).toContainText('organisation’s account');
  await lookAt(page, 'signed-out-login');
  // The way back: signing in lands on the page first asked for.
  await signIn(page, OIDC_USERS.viewer.sub, '/events');
});

for (const role of ['viewer', 'operator', 'admin'] as const) {
  test(`as ${role === 'viewer' ? 'a' : 'an'} ${role}, every screen passes axe and fits a phone`, async ({
    page,
  }) => {
    test.setTimeout(600_000);
    await signIn(page, OIDC_USERS[role].sub);
    await expect(page.getByTestId('session-role')).toHaveText(role);
    // The admin-only link is in the first paint for an admin, never for the others.
    const audit = page.getByRole('link', { name: 'Audit', includeHidden: true });
    await expect(audit).toHaveCount(role === 'admin' ? 1 : 0);
    const html = await (await page.request.get(`${app.url}/events`)).text();
    expect(html.includes('href="/audit"')).toBe(role === 'admin');

    const pages: Array<[string, string]> = [
      ['/', 'fleet'],
      [`/balancers/${balancerId}`, 'balancer'],
      ['/events', 'events'],
      ['/stdio', 'stdio'],
      ['/webhooks', 'webhooks'],
      ['/alert-sinks', 'alert-sinks'],
      ['/settings', 'settings'],
      ['/audit', 'audit'],
      ['/balancers/new', 'register'],
    ];
    // Between the two widths the top bar holds everything (a signed-in name included) on one line.
    for (const width of [1024, 1100, 1280]) {
      await page.setViewportSize({ width, height: 800 });
      expect(await overflowPx(page), `fleet at ${width} px`).toBeLessThanOrEqual(0);
      // Its visible items sit side by side, none over the next, the last inside the window.
      const overlaps = await page.evaluate(() => {
        const items = Array.from(document.querySelectorAll('header.topbar > *'))
          .map((e) => e.getBoundingClientRect())
          .filter((r) => r.width > 0);
        const bad = items.slice(1).filter((r, i) => r.left < (items[i]?.right ?? 0) - 0.5).length;
        return bad + ((items.at(-1)?.right ?? 0) > window.innerWidth ? 1 : 0);
      });
      expect(overlaps, `top bar at ${width} px`).toBe(0);
    }
    await page.setViewportSize({ width: 1280, height: 800 });
    if (role === 'admin') {
      await page.getByRole('link', { name: 'Audit' }).click();
      await expect(page).toHaveURL(`${app.url}/audit`);
    }
    for (const [path, name] of pages) {
      await page.goto(`${app.url}${path}`);
      await lookAtPaired(page, `${role}-${name}`, {
        ready: (p) => expect(p.getByText(/Loading/)).toHaveCount(0),
      });
    }
  });
}
