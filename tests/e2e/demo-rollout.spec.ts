// The demo's scripted rollout on the balancer page, step by step: each deploy is followed by a "probe now", and
// the page (without a reload) shows the status, the progress toward the window's target and the history's
// state band moving, then the rollback, then uniform. Screenshots of the page mid-rollout at 360 and 1440 px.
import { expect, test, type Page } from '@playwright/test';
import { DEMO_BALANCERS, startDemoFleet, type DemoFleet } from '@/lib/demo/fleet';
import { DEMO_ROLLOUT_TARGET } from '@/lib/demo/register';
import { planRollout, SEARCH_INITIAL, SEARCH_ROLLOUT } from '@/lib/demo/rollout-script';
import { SEARCH_RELEASES } from '@/lib/demo/fleet';
import { apiPost, startApp, type RunningApp } from './support/app';
import { lookAt } from './support/screens';

let app: RunningApp | undefined;
let fleet: DemoFleet | undefined;

test.beforeAll(async () => {
  test.setTimeout(240_000);
  app = await startApp();
  fleet = await startDemoFleet();
});

test.afterEach(async () => {
  const info = test.info();
  if (info.status !== info.expectedStatus && app) {
    await info.attach('server log', { body: app.log(), contentType: 'text/plain' });
  }
});

test.afterAll(async () => {
  await fleet?.stop();
  await app?.stop();
});

async function probeNow(running: RunningApp, id: string): Promise<void> {
  const res = await apiPost(running, `/api/v1/balancers/${id}/probe`, {});
  expect(res.status, await res.clone().text()).toBe(200);
}

/** The progress bar's "N of M" reading. */
function progressOf(page: Page) {
  return page.getByTestId('progress-headline');
}

test('the balancer page follows the demo rollout: progress, rollback and history', async ({ page }) => {
  test.setTimeout(420_000);
  if (!app || !fleet) throw new Error('the app or the fleet did not start');
  const running = app;
  const demo = fleet;
  const input = demo.balancers.find((b) => b.name === DEMO_BALANCERS.rollout);
  if (!input) throw new Error('the demo has no search balancer');
  // Long interval and wide deadlines: cycles come from "probe now" after each step, on a loaded machine too.
  const created = await apiPost(running, '/api/v1/balancers', {
    ...input,
    intervalMs: 600_000,
    timeoutMs: 20_000,
    legacyProbeTimeoutMs: 20_000,
  });
  expect(created.status, await created.clone().text()).toBe(201);
  const { id } = (await created.json()) as { id: string };
  const window = await apiPost(running, `/api/v1/balancers/${id}/rollouts`, {
    target: { ...DEMO_ROLLOUT_TARGET },
    deadline: Date.now() + 3_600_000,
  });
  expect(window.status, await window.clone().text()).toBe(201);
  await probeNow(running, id);

  await page.goto(`${running.url}/balancers/${id}?range=15m`);
  // Inside the open window the status reads "Rolling out"; the kind of divergence is beside it.
  await expect(page.getByTestId('balancer-status')).toHaveText('Rolling out');
  await expect(page.getByTestId('balancer-nonuniform')).toHaveText('Non-uniform: Era split');
  await expect(progressOf(page)).toContainText('0 of 4');
  // The nodes carry the names the demo's console uses, in the matrix, sorted by name.
  const rows = page.getByTestId('node-row');
  await expect(rows.locator('.col-node')).toHaveText(['search-1', 'search-2', 'search-3', 'search-4']);

  const plan = planRollout(SEARCH_INITIAL, SEARCH_ROLLOUT);
  const statusText = { 'era-split': 'Era split', drift: 'Drift', uniform: 'Uniform' } as const;
  for (const [i, { step, flag, nodes }] of plan.entries()) {
    await demo.replaceNode(step.node, SEARCH_RELEASES[step.to]);
    await probeNow(running, id);
    const onTarget = Object.values(nodes).filter((r) => r === 'modern').length;
    if (flag === 'uniform') {
      await expect(page.getByTestId('balancer-status'), `after step ${i + 1}`).toHaveText('Uniform');
    } else {
      await expect(page.getByTestId('balancer-nonuniform'), `after step ${i + 1}`).toHaveText(
        `Non-uniform: ${statusText[flag]}`,
      );
      await expect(progressOf(page)).toContainText(`${onTarget} of 4`);
    }
    if (i === 0) {
      // The node that moved is named in the timeline, and its group card opens the matrix filtered to it.
      const moved = page.locator('[data-testid="timeline-event"][data-type="node.era_changed"]');
      await expect(moved.first()).toContainText(step.node);
    }
    if (i === 1) {
      // Every node answers 2026-07-28 to a client, but the served sets still differ: drift, not done.
      await expect(page.getByTestId('balancer-status')).toHaveText('Rolling out');
      await lookAt(page, 'demo-rollout-drift', {
        ready: async (p) => {
          await expect(p.getByTestId('state-band')).toBeVisible();
          await expect(progressOf(p)).toContainText('2 of 4');
        },
      });
    }
  }
  await expect(page.getByTestId('balancer-status')).toHaveText('Uniform');
  // One group of four, and its link opens the matrix with all four.
  await expect(page.getByTestId('partition-group')).toHaveCount(1);
  await page.getByTestId('group-nodes-link').click();
  await expect(page).toHaveURL(/[?&]group=/);
  await expect(rows).toHaveCount(4);
  // The node page is titled by the name, with the URL under it.
  await rows.getByRole('link', { name: 'search-3' }).click();
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('search-3');
  await expect(page.getByText(demo.node('search-3').url)).toBeVisible();
  await page.goBack();

  // The timeline tells the whole story, the rollback included, without a reload.
  const severity = page.locator('[data-testid="timeline-event"][data-type="balancer.severity_changed"]');
  await expect(severity).toHaveCount(3);
  await expect(page.locator('[data-testid="timeline-event"][data-type="balancer.converged"]')).toHaveCount(1);
  await lookAt(page, 'demo-rollout-uniform', {
    widths: [1440],
    schemes: ['light'],
    ready: async (p) => expect(p.getByTestId('state-band')).toBeVisible(),
  });
});
