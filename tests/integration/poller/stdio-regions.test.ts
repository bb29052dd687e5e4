// A stdio target that lists regions is launched only by workers of those regions (the command may exist only
// there): a worker of another region gets no unit for it and never runs it, while the unlisted target is
// probed everywhere. Real SDK servers launched as commands, real stores (SQLite, and PostgreSQL in its run).
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { getStdioTarget, listStdioTargetRows } from '@/db/queries/stdio-targets';
import { listUnits, requestUnitCycles } from '@/db/queries/units';
import { applyConfig } from '@/lib/config/apply';
import { exportConfig } from '@/lib/config/export';
import { parseConfig } from '@/lib/config/load';
import { startPollerWith, type PollerHandle } from '@/lib/poller/poll-role';
import { isAlive, peerScript, readRecord } from '../host-check/fixtures';
import { tempStore, waitFor } from './support';
import { parseSettings } from '@/lib/settings';
import { testSettings } from '../../support/settings';

const db = await tempStore('poller-stdio-regions');
const file = (name: string) => path.join(db.dir, name);
const node = JSON.stringify(process.execPath);
const pollers: PollerHandle[] = [];

afterAll(async () => {
  await Promise.all(pollers.map((p) => p.stop()));
  for (const n of ['anywhere', 'eu-only']) {
    for (const r of readRecord(file(`${n}.jsonl`))) {
      if (Number.isInteger(r.pid) && r.pid > 0 && isAlive(r.pid)) process.kill(r.pid, 'SIGKILL');
    }
  }
  await db.cleanup();
});

const entry = (name: string, more = '') => `  - name: ${name}
    command: ${node}
    args: [${JSON.stringify(peerScript('v2-stdio'))}, --name, ${name}, --record, ${JSON.stringify(file(`${name}.jsonl`))}]
    intervalMs: 60000
    timeoutMs: 15000
    legacyProbeTimeoutMs: 15000
${more}`;

describe('stdio targets with regions', () => {
  it('are refused with the path of a bad region list, and nothing is applied', () => {
    expect(() =>
      parseConfig(
        `version: 1\nstdio:\n${entry('eu-only', '    regions: []\n')}`,
        file('bad.yaml'),
        parseSettings({}),
      ),
    ).toThrow(/stdio\.0\.regions: must name at least one region/);
    expect(() =>
      parseConfig(
        `version: 1\nstdio:\n${entry('eu-only', '    regions: [eu-west, eu-west]\n')}`,
        file('bad.yaml'),
        parseSettings({}),
      ),
    ).toThrow(/stdio\.0\.regions\.1: repeats regions\[0\] 'eu-west'/);
  });

  it('are launched only by the workers of their regions', async () => {
    const text = `version: 1\nstdio:\n${entry('anywhere')}${entry('eu-only', '    regions: [eu-west]\n')}`;
    await applyConfig(db.store, parseConfig(text, file('erawatch.config.yaml'), parseSettings({})));
    const rows = await listStdioTargetRows(db.store);
    const id = (name: string) => rows.find((r) => r.name === name)?.id ?? '';
    expect((await getStdioTarget(db.store, id('eu-only'), 'default')).regions).toEqual(['eu-west']);
    expect((await getStdioTarget(db.store, id('anywhere'), 'default')).regions).toBeNull();
    // Export writes the list back, and leaves it out where there is none.
    const exported = (await exportConfig(db.store, { includeSecrets: false })).yaml;
    expect(exported).toMatch(/name: eu-only[\s\S]*regions:\n\s+- eu-west/);
    expect(exported.match(/regions:/g)).toHaveLength(1);

    // Each unit is due at once: the clock starts on an interval boundary shifted past every phase.
    let t = Date.now();
    const start = (region: string) => {
      const p = startPollerWith({
        store: db.store,
        settings: testSettings({ ERAWATCH_REGION: region, ERAWATCH_POLLER_CONCURRENCY: '2' }),
        refreshMs: 100,
        now: () => t,
        log: () => {},
      });
      pollers.push(p);
      return p;
    };
    const us = start('us-east');
    await waitFor('the us-east worker to schedule its targets', 60_000, () => us.status().stdioTargets === 1);
    expect((await listUnits(db.store, 'us-east')).map((u) => u.unitId)).toEqual([id('anywhere')]);
    const eu = start('eu-west');
    await waitFor('the eu-west worker to schedule its targets', 60_000, () => eu.status().stdioTargets === 2);
    expect((await listUnits(db.store, 'eu-west')).map((u) => u.unitId).sort()).toEqual(
      [id('anywhere'), id('eu-only')].sort(),
    );

    // Every unit is asked for now (as probe-now asks), in the store's clock on either engine (PostgreSQL's
    // is the database's, which the pollers' frozen clock does not move): each worker probes what it holds.
    t += 90_000;
    await requestUnitCycles(db.store, 'stdio', id('anywhere'), ['us-east', 'eu-west'], t);
    await requestUnitCycles(db.store, 'stdio', id('eu-only'), ['eu-west'], t);
    const launches = (n: string) => new Set(readRecord(file(`${n}.jsonl`)).map((r) => r.pid)).size;
    await waitFor('eu-only probed from eu-west, and anywhere from both regions', 60_000, async () => {
      const units = await listUnits(db.store);
      return units.filter((u) => u.lastCycleAt !== null).length === 3 && launches('anywhere') >= 2;
    });
    await Promise.all(pollers.splice(0).map((p) => p.stop()));
    const regionsOf = async (unitId: string) =>
      (await listUnits(db.store))
        .filter((u) => u.unitId === unitId)
        .map((u) => u.region)
        .sort();
    // No us-east unit for eu-only ever existed, so no us-east worker could launch it.
    expect(await regionsOf(id('eu-only'))).toEqual(['eu-west']);
    expect(await regionsOf(id('anywhere'))).toEqual(['eu-west', 'us-east']);
    expect(launches('eu-only')).toBeGreaterThanOrEqual(1);
    // Each worker stored its results under its own region (the settings it was handed), none under default.
    const stateIn = async (unitId: string, region: string) =>
      (await getStdioTarget(db.store, unitId, region)).state?.clientEra ?? null;
    expect(await stateIn(id('eu-only'), 'eu-west')).toBe('modern');
    expect(await stateIn(id('anywhere'), 'eu-west')).toBe('modern');
    expect(await stateIn(id('anywhere'), 'us-east')).toBe('modern');
    expect(await stateIn(id('anywhere'), 'default')).toBeNull();
    expect(await stateIn(id('eu-only'), 'default')).toBeNull();
  });
});
