// A balancer probed from two regions whose workers see different pools behind its one public URL: the page
// shows the region split, the node matrix filters by region, and each node page names the region of its
// verdict. The dashboard runs no poller; two `erawatch worker --roles poll` processes, one per region, bind
// their own source addresses against a front door that routes by source address.
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { startRoundRobinProxy, type RoundRobinProxy } from '@/lib/peers/round-robin-proxy';
import { startPeers, stopChild, type RunningPeer } from '@/lib/peers/spawn';
import { startSourceRoutingProxy, type SourceRoutingProxy } from '../support/source-routing-proxy';
import { apiPost, screenshotPath, startApp, type RunningApp } from './support/app';

const REGIONS = { 'eu-west': '127.0.0.2', 'us-east': '127.0.0.3' } as const;

let app: RunningApp;
let peers: RunningPeer[] = [];
const pools: RoundRobinProxy[] = [];
let front: SourceRoutingProxy | null = null;
const workers: ChildProcess[] = [];

test.beforeAll(async () => {
  test.setTimeout(180_000);
  app = await startApp({ ERAWATCH_POLLER: 'off' });
  peers = await startPeers([
    { kind: 'v2-modern', name: 'shop', version: '2.0.0' },
    { kind: 'v2-modern', name: 'shop', version: '3.0.0' },
  ]);
  for (const p of peers) pools.push(await startRoundRobinProxy({ upstreams: [p.url] }));
  const [west, east] = pools;
  if (!west || !east) throw new Error('pools did not start');
  front = await startSourceRoutingProxy({ [REGIONS['eu-west']]: west.url, [REGIONS['us-east']]: east.url });
  for (const [region, address] of Object.entries(REGIONS)) {
    workers.push(
      spawn(process.execPath, [path.resolve('bin/erawatch.mjs'), 'worker', '--roles', 'poll'], {
        env: {
          ...process.env,
          ERAWATCH_DB: app.dbFile,
          ERAWATCH_REGION: region,
          ERAWATCH_PROBE_SOURCE_ADDRESS: address,
          ERAWATCH_ALLOW_LOOPBACK: '1',
        },
        stdio: 'ignore',
      }),
    );
  }
});

test.afterAll(async () => {
  await Promise.all(workers.map((w) => stopChild(w)));
  await front?.close();
  await Promise.all(pools.map((p) => p.stop()));
  await Promise.all(peers.map((p) => p.stop()));
  await app?.stop();
});

test('a balancer whose regions see different pools shows the region split and filters its matrix by region', async ({
  page,
}) => {
  test.setTimeout(180_000);
  if (!front) throw new Error('no front door');
  const res = await apiPost(app, '/api/v1/balancers', {
    name: 'geo-shop',
    publicUrl: front.url,
    samplesPerCycle: 3,
    attributionHeader: 'x-served-by',
    intervalMs: 4_000,
    timeoutMs: 1_000,
    legacyProbeTimeoutMs: 500,
    regions: ['eu-west', 'us-east'],
  });
  expect(res.status).toBe(201);
  const { id } = (await res.json()) as { id: string };

  await page.goto(`${app.url}/balancers/${id}`);
  await expect(page.getByTestId('balancer-status')).toHaveText('Region split', { timeout: 90_000 });
  await expect(page.getByTestId('region-split-partition')).toHaveText(
    'eu-west sees modern 2026-07-28 (modern-only, shop 2.0.0); us-east sees modern 2026-07-28 (modern-only, shop 3.0.0)',
  );
  // One row per region's node; which comes first follows the matrix's group order, not the region's name.
  const rowRegions = page.getByTestId('node-row-region');
  await expect(rowRegions).toHaveCount(2);
  expect((await rowRegions.allTextContents()).sort()).toEqual(['eu-west', 'us-east']);
  // The region filter shows one region's rows with that region's own verdict, and the URL keeps it.
  await page.getByLabel('Region', { exact: true }).selectOption('eu-west');
  await expect(page).toHaveURL(/[?&]region=eu-west/);
  await expect(page.getByTestId('region-status')).toHaveText('Uniform');
  await expect(page.getByTestId('node-row')).toHaveCount(1);
  await expect(page.getByTestId('node-row-region')).toHaveText('eu-west');
  await page.screenshot({ path: screenshotPath('balancer-regions'), fullPage: true });

  await page.getByLabel('Region', { exact: true }).selectOption('us-east');
  await expect(page.getByTestId('node-row-region')).toHaveText('us-east');
  await page.getByTestId('node-row').getByRole('link').click();
  await expect(page.getByTestId('node-region')).toHaveText('us-east');
  await page.screenshot({ path: screenshotPath('node-region'), fullPage: true });

  // The form shows the regions the balancer lists; a repeated one is refused under the field, nothing saved.
  await page.goto(`${app.url}/balancers/${id}/edit`);
  const regions = page.locator('#f-regions');
  await expect(regions).toHaveValue('eu-west, us-east');
  await regions.fill('eu-west, eu-west');
  await page.getByRole('button', { name: 'Save changes' }).click();
  await expect(page.locator('#f-regions-error')).toContainText("item 2: repeats regions[0] 'eu-west'");
  await page.screenshot({ path: screenshotPath('balancer-form-regions'), fullPage: true });
  const stored = (await (await fetch(`${app.url}/api/v1/balancers/${id}`)).json()) as {
    regions: string[] | null;
  };
  expect(stored.regions).toEqual(['eu-west', 'us-east']);
});
