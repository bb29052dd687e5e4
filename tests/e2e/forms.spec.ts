// The register form shows the API's problem+json messages at the right fields, and nothing is saved.
import { expect, test } from '@playwright/test';
import { apiPost, screenshotPath, startApp, type RunningApp } from './support/app';

let app: RunningApp;
const taken = `taken-${Date.now().toString(36)}`;

test.beforeAll(async () => {
  app = await startApp({ ERAWATCH_POLLER: 'off' });
  const res = await apiPost(app, '/api/v1/balancers', { name: taken, publicUrl: 'http://127.0.0.1:9/mcp' });
  expect(res.status).toBe(201);
});

test.afterEach(async () => {
  const testInfo = test.info();
  if (testInfo.status !== testInfo.expectedStatus && app) {
    await testInfo.attach('server log', { body: app.log(), contentType: 'text/plain' });
  }
});

test.afterAll(async () => {
  await app?.stop();
});

async function balancerNames(): Promise<string[]> {
  const res = await fetch(`${app.url}/api/v1/balancers?limit=500`);
  const body = (await res.json()) as { items: Array<{ name: string }> };
  return body.items.map((b) => b.name).sort();
}

const CASES = [
  {
    title: 'invalid URL',
    name: 'bad-url',
    publicUrl: 'ftp://127.0.0.1/mcp',
    nodeUrls: '',
    field: 'publicUrl',
    message: 'must be an http:// or https:// URL',
  },
  {
    title: 'invalid node URL, by line',
    name: 'bad-node',
    publicUrl: 'http://127.0.0.1:9/mcp',
    nodeUrls: 'http://127.0.0.1:10/mcp\nnot a url',
    field: 'nodeUrls',
    message: 'line 2: must be an http:// or https:// URL',
  },
  {
    title: 'a cloud metadata address',
    name: 'bad-metadata',
    publicUrl: 'http://169.254.169.254/latest/meta-data',
    nodeUrls: '',
    field: 'publicUrl',
    message: 'cloud metadata address 169.254.169.254 is always refused',
  },
  {
    title: 'a link-local node URL, by line',
    name: 'bad-link-local',
    publicUrl: 'http://127.0.0.1:9/mcp',
    nodeUrls: 'http://127.0.0.1:10/mcp\nhttp://[fe80::1]/mcp',
    field: 'nodeUrls',
    message: 'line 2: link-local address fe80::1 is always refused',
  },
  {
    title: 'a password in the URL',
    name: 'bad-userinfo',
    publicUrl: 'http://admin:s3cr3tpw@127.0.0.1:9/mcp',
    nodeUrls: '',
    field: 'publicUrl',
    message: 'must not contain a user name or password',
  },
  {
    title: 'missing name',
    name: '',
    publicUrl: 'http://127.0.0.1:9/mcp',
    nodeUrls: '',
    field: 'name',
    message: 'is required',
  },
  {
    title: 'duplicate name',
    name: taken,
    publicUrl: 'http://127.0.0.1:9/mcp',
    nodeUrls: '',
    field: 'name',
    message: `a balancer named '${taken}' already exists`,
  },
] as const;

for (const c of CASES) {
  test(`register form: ${c.title}`, async ({ page }) => {
    const before = await balancerNames();
    await page.goto(`${app.url}/balancers/new`);
    await page.getByLabel('Name', { exact: true }).fill(c.name);
    await page.getByLabel('Public URL', { exact: true }).fill(c.publicUrl);
    await page.getByLabel('Node URLs').fill(c.nodeUrls);
    await page.getByRole('button', { name: 'Register balancer' }).click();

    const error = page.getByTestId(`error-${c.field}`);
    await expect(error).toContainText(c.message);
    await expect(page.getByTestId('form-error')).toContainText('The balancer was not registered');
    // The message sits with its field: the input is marked invalid and points at the message.
    const input = page.locator(`#f-${c.field}`);
    await expect(input).toHaveAttribute('aria-invalid', 'true');
    await expect(input).toHaveAttribute('aria-describedby', `f-${c.field}-error`);
    // No other field carries an error.
    await expect(page.locator('[data-testid^="error-"]')).toHaveCount(1);
    await expect(page).toHaveURL(/\/balancers\/new$/);
    expect(await balancerNames()).toEqual(before);
    if (c.field === 'publicUrl')
      await page.screenshot({ path: screenshotPath('register-form-errors'), fullPage: true });
  });
}

test('edit renames a balancer; delete asks for confirmation, then removes it', async ({ page }) => {
  const res = await apiPost(app, '/api/v1/balancers', {
    name: `doomed-${Date.now().toString(36)}`,
    publicUrl: 'http://127.0.0.1:9/mcp',
  });
  const created = (await res.json()) as { id: string; name: string };
  const renamed = `${created.name}-b`;
  await page.goto(`${app.url}/balancers/${created.id}/edit`);
  await expect(page.getByLabel('Name', { exact: true })).toHaveValue(created.name);
  await page.getByLabel('Name', { exact: true }).fill(renamed);
  await page.getByRole('button', { name: 'Save changes' }).click();
  await expect(page.getByRole('heading', { name: renamed })).toBeVisible();

  await page.getByRole('button', { name: 'Delete' }).click();
  const dialog = page.getByRole('dialog');
  await expect(dialog).toContainText(`Delete ${renamed}?`);
  // Cancel keeps it.
  await dialog.getByRole('button', { name: 'Cancel' }).click();
  await expect(dialog).toBeHidden();
  expect(await balancerNames()).toContain(renamed);
  await page.getByRole('button', { name: 'Delete' }).click();
  await page
    .getByRole('dialog')
    .getByRole('button', { name: `Delete ${renamed}` })
    .click();
  await expect(page).toHaveURL(`${app.url}/`);
  expect(await balancerNames()).not.toContain(renamed);

  // Its old address now says it is gone.
  const gone = await page.goto(`${app.url}/balancers/${created.id}`);
  expect(gone?.status()).toBe(404);
  await expect(page.getByRole('heading', { level: 1, name: 'Balancer not found' })).toBeVisible();
});
