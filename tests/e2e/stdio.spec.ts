// stdio servers from the config file, probed by the web server's poller: a real v2 SDK server shows as modern,
// a real v1 SDK server on the allowlist as legacy, with the evidence step by step; nothing on the page edits them.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { screenshotPath, startApp, type RunningApp } from './support/app';

let app: RunningApp | null = null;
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'erawatch-e2e-stdio-'));
const servers = path.join(process.cwd(), 'lib', 'peers', 'servers');
const record = (name: string) => path.join(dir, `${name}.jsonl`);

function recordedPids(name: string): number[] {
  if (!fs.existsSync(record(name))) return [];
  return fs
    .readFileSync(record(name), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => (JSON.parse(l) as { pid: number }).pid)
    .filter((pid) => Number.isInteger(pid) && pid > 0);
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

test.beforeAll(async () => {
  // Each probe launches the server, so its deadline covers Node and SDK start-up: wide enough for a loaded
  // machine. The first probes are spread over one interval, which the waits for the verdicts allow for.
  const entry = (name: string, script: string, allowLegacy: boolean, more = '') => `  - name: ${name}
    command: ${JSON.stringify(process.execPath)}
    args: [${JSON.stringify(path.join(servers, script))}, --name, ${name}, --record, ${JSON.stringify(record(name))}]
    env:
      PEER_TOKEN: "\${E2E_PEER_TOKEN}"
    allowLegacy: ${allowLegacy}
    intervalMs: 31000
    timeoutMs: 10000
    legacyProbeTimeoutMs: 10000
${more}`;
  const config = path.join(dir, 'erawatch.config.yaml');
  fs.writeFileSync(
    config,
    `version: 1\nstdio:\n${entry('current-stdio', 'v2-stdio.mjs', false)}${entry('archive-stdio', 'v1-stdio.mjs', true, '    regions: [default]\n')}`,
  );
  app = await startApp({ ERAWATCH_CONFIG: config, E2E_PEER_TOKEN: 'e2e-token-never-shown' });
});

test.afterEach(async () => {
  const testInfo = test.info();
  if (testInfo.status !== testInfo.expectedStatus && app) {
    await testInfo.attach('server log', { body: app.log(), contentType: 'text/plain' });
  }
});

test.afterAll(async () => {
  await app?.stop();
  // The poller ends every process it launched; end any survivor by its pid so none outlives the test.
  for (const pid of [...recordedPids('current-stdio'), ...recordedPids('archive-stdio')])
    if (alive(pid)) process.kill(pid, 'SIGKILL');
  fs.rmSync(dir, { recursive: true, force: true });
});

test('stdio servers: v2 modern, allowlisted v1 legacy, evidence step by step, read-only', async ({
  page,
}) => {
  if (!app) throw new Error('app did not start');
  test.setTimeout(240_000);
  await page.goto(`${app.url}/`);
  await page.getByRole('link', { name: 'stdio servers' }).click();
  await expect(page).toHaveURL(/\/stdio$/);
  await expect(page.getByRole('heading', { name: 'stdio servers', level: 1 })).toBeVisible();

  const current = page.locator('[data-testid="stdio-row"][data-name="current-stdio"]');
  const archive = page.locator('[data-testid="stdio-row"][data-name="archive-stdio"]');
  // The poller's probes land without a reload.
  await expect(current.getByTestId('stdio-verdict')).toHaveText('Modern 2026-07-28', { timeout: 100_000 });
  await expect(archive.getByTestId('stdio-verdict')).toHaveText('Legacy 2025-11-25', { timeout: 100_000 });
  await expect(current).toContainText('discover_result');
  await expect(archive).toContainText('legacy_positive_evidence');
  await expect(current).toContainText('PEER_TOKEN=…');
  await expect(page.locator('body')).not.toContainText('e2e-token-never-shown');
  // Declared in the config file only: no form, no button that creates or edits a stdio target.
  await expect(page.locator('main form')).toHaveCount(0);
  await expect(page.locator('main button')).toHaveCount(0);
  await page.screenshot({ path: screenshotPath('stdio-servers'), fullPage: true });

  await archive.getByRole('link', { name: 'archive-stdio' }).click();
  await expect(page).toHaveURL(/\/stdio\/sto_/);
  await expect(page.getByTestId('stdio-target-verdict')).toHaveText('Legacy 2025-11-25');
  // Listed for this server's region (default), so its worker launches it.
  await expect(page.getByTestId('stdio-regions')).toHaveText('default');
  const steps = page.getByTestId('evidence-step');
  await expect(steps).toHaveCount(2);
  await expect(steps.nth(0)).toHaveAttribute('data-step', 'discover');
  await expect(steps.nth(1)).toHaveAttribute('data-step', 'initialize');
  await expect(page.getByTestId('legacy-check')).toHaveCount(5);
  await expect(page.locator('[data-testid="legacy-check"][data-passed="true"]')).toHaveCount(5);
  await expect(page.locator('main form')).toHaveCount(0);
  await page.screenshot({ path: screenshotPath('stdio-server-detail'), fullPage: true });
});
