// Single sign-on in the browser: the built dashboard against a real OpenID Connect provider (oidc-provider on
// loopback). A viewer, an operator and an admin each sign in through the provider's own login and consent
// pages; each sees what their role may do and the API agrees; a user in no group is refused; the audit log
// shows the operator's change of a balancer to the admin, who also ends the viewer's session.
import { expect, test, type Page } from '@playwright/test';
import { verifySession } from '@/lib/auth/session';
import { screenshotPath, type RunningApp } from './support/app';
import { OIDC_USERS, type OidcFixture } from '../support/oidc-provider';
import { signInWithSso, startSsoApp, type SsoApp } from './support/sso';

const SECRET = 'e2e-sso-admin-secret-0123456789abcdef';
let sso: SsoApp;
let app: RunningApp;
let provider: OidcFixture;
let balancerId = '';

test.beforeAll(async () => {
  sso = await startSsoApp(SECRET, {
    name: 'checkout',
    publicUrl: 'https://mcp.example.test/mcp',
    samplesPerCycle: 4,
  });
  ({ app, provider, balancerId } = sso);
});

test.afterAll(async () => {
  await sso?.stop();
});

function signIn(page: Page, sub: string, next = '/'): Promise<void> {
  return signInWithSso(sso, page, sub, next);
}

/** A write from the signed-in page's own session, as the dashboard sends it. */
async function patchBalancer(page: Page, body: unknown): Promise<number> {
  const res = await page.request.patch(`${app.url}/api/v1/balancers/${balancerId}`, {
    headers: { origin: app.url, 'content-type': 'application/json' },
    data: body,
  });
  return res.status();
}

test('the login page offers single sign-on and keeps the admin secret as break-glass', async ({ page }) => {
  await page.goto(`${app.url}/login`);
  await expect(page.getByRole('link', { name: 'Sign in with single sign-on' })).toBeVisible();
  await expect(page.getByText('Break-glass: log in with the admin secret')).toBeVisible();
  await page.screenshot({ path: screenshotPath('sso-login'), fullPage: true });
});

test('a viewer reads, and may not change anything', async ({ page }) => {
  await signIn(page, OIDC_USERS.viewer.sub);
  await expect(page.getByTestId('session-role')).toHaveText('viewer');
  await expect(page.getByRole('link', { name: 'Register balancer' })).toHaveCount(0);
  await page.goto(`${app.url}/balancers/${balancerId}`);
  await expect(page.getByRole('heading', { name: 'checkout' })).toBeVisible();
  await expect(page.getByRole('button', { name: 'Probe now' })).toHaveCount(0);
  await expect(page.getByTestId('role-note').first()).toContainText(
    'needs the operator role; you are signed in as a viewer',
  );
  await expect(page.getByRole('link', { name: 'Audit' })).toHaveCount(0);
  await page.screenshot({ path: screenshotPath('sso-viewer-balancer'), fullPage: true });
  expect(await patchBalancer(page, { samplesPerCycle: 5 })).toBe(403);
  expect((await page.request.get(`${app.url}/api/v1/balancers/${balancerId}`)).status()).toBe(200);
});

test('an operator changes balancers but sees no audit log', async ({ page }) => {
  await signIn(page, OIDC_USERS.operator.sub);
  await expect(page.getByTestId('session-role')).toHaveText('operator');
  await expect(page.getByRole('link', { name: 'Register balancer' })).toBeVisible();
  await page.goto(`${app.url}/balancers/${balancerId}`);
  await expect(page.getByRole('button', { name: 'Probe now' })).toBeVisible();
  await expect(page.getByRole('link', { name: 'Audit' })).toHaveCount(0);
  expect(await patchBalancer(page, { samplesPerCycle: 7 })).toBe(200);
  expect((await page.request.get(`${app.url}/api/v1/audit`)).status()).toBe(403);
  await page.goto(`${app.url}/audit`);
  await expect(page.getByTestId('role-note')).toContainText('The audit log needs the admin role');
});

test('an admin reads the audit log: who changed the balancer, from where, before and after', async ({
  page,
}) => {
  await signIn(page, OIDC_USERS.admin.sub);
  await expect(page.getByTestId('session-role')).toHaveText('admin');
  await page.getByRole('link', { name: 'Audit' }).click();
  const row = page.locator('[data-testid="audit-row"][data-operation="balancer.update"]');
  await expect(row).toHaveCount(1);
  await expect(row.getByTestId('audit-actor')).toHaveText(OIDC_USERS.operator.email);
  await expect(row).toContainText('samplesPerCycle');
  await expect(row.locator('del')).toHaveText('4');
  await expect(row.locator('ins')).toHaveText('7');
  await page.screenshot({ path: screenshotPath('sso-audit'), fullPage: true });
  expect((await page.request.get(`${app.url}/api/v1/tokens`)).status()).toBe(200);
});

test('an admin ends another’s session on the settings page; a viewer is told why there is no list', async ({
  browser,
  page,
}) => {
  const viewer = await browser.newContext();
  try {
    const viewerPage = await viewer.newPage();
    await signIn(viewerPage, OIDC_USERS.viewer.sub);
    await viewerPage.goto(`${app.url}/settings`);
    await expect(viewerPage.getByRole('heading', { name: 'Sessions' })).toBeVisible();
    await expect(viewerPage.getByTestId('role-note')).toContainText(
      'Seeing and ending other people’s sessions needs the admin role; you are signed in as a viewer',
    );
    await expect(viewerPage.getByTestId('session-list')).toHaveCount(0);
    await viewerPage.screenshot({ path: screenshotPath('sso-viewer-settings'), fullPage: true });
    const cookie = (await viewer.cookies()).find((c) => c.name === 'erawatch_session')?.value ?? '';
    const sid = verifySession(cookie, SECRET, Date.now())?.sid ?? '';
    expect(sid).not.toBe('');

    await signIn(page, OIDC_USERS.admin.sub);
    await page.goto(`${app.url}/settings`);
    const row = page.locator(`[data-testid="session-row"][data-session="${sid}"]`);
    await expect(row).toContainText(OIDC_USERS.viewer.name);
    await expect(row).toContainText('viewer');
    await expect(row).toContainText('single sign-on');
    await expect(row).toContainText('127.0.0.1');
    const mine = page.locator('[data-testid="session-row"][data-current="true"]');
    await expect(mine).toHaveCount(1);
    await expect(mine).toContainText(OIDC_USERS.admin.name);
    await expect(mine.getByTestId('session-current')).toHaveText('This session');
    await expect(mine.getByRole('button', { name: 'End session' })).toHaveCount(0);
    await page.screenshot({ path: screenshotPath('sso-admin-sessions'), fullPage: true });

    page.once('dialog', (d) => void d.accept());
    await row.getByRole('button', { name: 'End session' }).click();
    await expect(row).toHaveCount(0);
    expect((await viewerPage.request.get(`${app.url}/api/v1/balancers`)).status()).toBe(401);
    expect((await page.request.get(`${app.url}/api/v1/balancers`)).status()).toBe(200);
  } finally {
    await viewer.close();
  }
});

test('a user in none of the groups is refused, with no session', async ({ page }) => {
  await page.goto(`${app.url}/login`);
  await page.getByRole('link', { name: 'Sign in with single sign-on' }).click();
  await page.locator('input[name="login"]').fill(OIDC_USERS.none.sub);
  await page.locator('input[name="password"]').fill('any password');
  await page.getByRole('button', { name: 'Sign-in' }).click();
  await page.getByRole('button', { name: 'Continue' }).click();
  await expect(page.getByTestId('sso-refused')).toContainText('in none of the groups');
  const cookies = await page.context().cookies();
  expect(cookies.find((c) => c.name === 'erawatch_session')).toBeUndefined();
  expect((await page.request.get(`${app.url}/api/v1/balancers`)).status()).toBe(401);
});

test('logout ends the session and goes on to the provider’s logout', async ({ page }) => {
  await signIn(page, OIDC_USERS.viewer.sub);
  await page.getByRole('button', { name: 'Log out' }).click();
  await expect(page).toHaveURL(new RegExp(`^${provider.issuer}/session/end`));
  expect((await page.request.get(`${app.url}/api/v1/balancers`)).status()).toBe(401);
});
