// erawatch_severity_changes_total counts the balancer.severity_changed events a cycle stored, by from and to,
// through the stored metric series every web process renders (on the run's engine).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openStore, type Store } from '@/db';
import { observePoller } from '@/lib/metrics/poller-observer';
import { flushStoredMetrics, renderStoredSeries } from '@/lib/metrics/stored';
import { createPollerEvents } from '@/lib/poller/events';
import type { CycleResult } from '@/lib/poller/balancer-cycle';
import { storeLocation } from '../../support/store';
import { testSettings } from '../../support/settings';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'erawatch-severity-metric-'));
let store: Store | undefined;

afterAll(async () => {
  await store?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

function cycleWith(events: Array<{ type: string; data: Record<string, unknown> }>): CycleResult {
  return {
    balancerId: 'bal_1',
    at: 1,
    durationMs: 1,
    probes: 1,
    analysis: {} as CycleResult['analysis'],
    events: events.map((e, i) => ({
      ...e,
      id: `evt_${i}`,
      seq: i,
      balancerId: 'bal_1',
      nodeId: null,
      at: 1,
    })),
  } as CycleResult;
}

describe('erawatch_severity_changes_total', () => {
  it('counts each stored severity change once, by from and to', async () => {
    store = await openStore(await storeLocation(dir, 'metric.db'), { settings: testSettings() });
    const events = createPollerEvents();
    observePoller(events);
    events.emit(
      'cycle',
      cycleWith([
        { type: 'balancer.severity_changed', data: { from: 'era-split', to: 'drift', windowId: null } },
        { type: 'node.era_changed', data: {} },
      ]),
    );
    events.emit(
      'cycle',
      cycleWith([{ type: 'balancer.severity_changed', data: { from: 'drift', to: 'era-split' } }]),
    );
    events.emit(
      'cycle',
      cycleWith([{ type: 'balancer.severity_changed', data: { from: 'era-split', to: 'drift' } }]),
    );
    await flushStoredMetrics(store);
    const text = await renderStoredSeries(store);
    expect(text).toContain('# TYPE erawatch_severity_changes_total counter');
    expect(text).toContain('erawatch_severity_changes_total{from="era-split",to="drift"} 2');
    expect(text).toContain('erawatch_severity_changes_total{from="drift",to="era-split"} 1');
  });
});
