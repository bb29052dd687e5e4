// The app's icon lives in public/ and every page's head points at it; the file is served as SVG.
import { expect, test } from '@playwright/test';
import { screenshotPath, startApp, type RunningApp } from './support/app';

let app: RunningApp;

test.beforeAll(async () => {
  app = await startApp({ ERAWATCH_POLLER: 'off' });
});

test.afterAll(async () => {
  await app?.stop();
});

const files = [
  { href: '/icon.svg', type: /^image\/svg\+xml/ },
  { href: '/favicon.ico', type: /^image\/(x-icon|vnd\.microsoft\.icon)/ },
];

for (const path of ['/', '/webhooks', '/settings', '/no-such-page']) {
  test(`${path} links the icons from public/, and they are served`, async ({ page, request }) => {
    await page.goto(`${app.url}${path}`);
    const hrefs = await page
      .locator('head link[rel="icon"]')
      .evaluateAll((els) => els.map((e) => e.getAttribute('href')));
    expect(hrefs).toEqual(files.map((f) => f.href));
    for (const f of files) {
      const res = await request.get(`${app.url}${f.href}`);
      expect(res.status()).toBe(200);
      expect(res.headers()['content-type']).toMatch(f.type);
    }
    expect(await (await request.get(`${app.url}/icon.svg`)).text()).toMatch(/^<svg [^>]*viewBox="0 0 16 16"/);
  });
}

test('the icon renders', async ({ page }) => {
  await page.setViewportSize({ width: 256, height: 256 });
  await page.goto(`${app.url}/icon.svg`);
  await page.screenshot({ path: screenshotPath('icon') });
  const box = await page.locator('svg').boundingBox();
  expect(box?.width).toBeGreaterThan(0);
});
