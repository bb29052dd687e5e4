// With an admin secret configured the dashboard is not in local mode: a page sends the browser to the login
// page, which says the admin secret is needed; it refuses a wrong secret at its field, shows the fleet after a
// correct one, and a logout ends the session on the server.
import { expect, test } from '@playwright/test';
import { screenshotPath, startApp, type RunningApp } from './support/app';

let app: RunningApp;
const SECRET = 'e2e-admin-secret-0123456789abcdef';

test.beforeAll(async () => {
  app = await startApp({ ERAWATCH_POLLER: 'off', ERAWATCH_ADMIN_SECRET: SECRET });
});

test.afterAll(async () => {
  await app?.stop();
});

test('the dashboard asks for the admin secret and works after login', async ({ page }) => {
  await page.goto(`${app.url}/`);
  await expect(page).toHaveURL(`${app.url}/login?next=%2F`);
  await expect(page.getByTestId('login-requirement')).toContainText(
    'has an admin secret set (ERAWATCH_ADMIN_SECRET), so the dashboard needs it to log in. It listens on loopback (127.0.0.1).',
  );

  await page.getByLabel('Admin secret').fill('not-the-secret');
  await page.getByRole('button', { name: 'Log in' }).click();
  await expect(page.getByTestId('error-secret')).toContainText('the admin secret is not correct');
  await page.screenshot({ path: screenshotPath('login-error'), fullPage: true });

  await page.getByLabel('Admin secret').fill(SECRET);
  await page.getByRole('button', { name: 'Log in' }).click();
  await expect(page.getByTestId('fleet-empty')).toBeVisible();

  const session = (await page.context().cookies()).find((c) => c.name === 'erawatch_session');
  expect(session?.value).toBeTruthy();

  // Logging out ends the session: the API refuses the dashboard again.
  await page.getByRole('button', { name: 'Log out' }).click();
  await expect(page).toHaveURL(/\/login$/);
  await page.goto(`${app.url}/`);
  await expect(page).toHaveURL(`${app.url}/login?next=%2F`);
  // A copy of the cookie taken before the logout is refused too: the session ended on the server.
  const replay = await page.request.get(`${app.url}/api/v1/tokens`, {
    headers: { cookie: `erawatch_session=${session?.value ?? ''}` },
  });
  expect(replay.status()).toBe(401);
});
