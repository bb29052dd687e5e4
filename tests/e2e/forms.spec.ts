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
