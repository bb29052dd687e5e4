// The poller monitors stdio targets from the config file: each probe launches the exact configured
// command (a real SDK server), stores the verdict and evidence, and ends the process before it returns.
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getStdioTarget, listStdioTargetRows, type StdioTarget } from '@/db/queries/stdio-targets';
import { applyConfig } from '@/lib/config/apply';
import { parseConfig } from '@/lib/config/load';
import { createLimiter } from '@/lib/poller/limiter';
import { startPollerWith, type PollerHandle } from '@/lib/poller/poll-role';
import { createStdioProbe, runStdioCycle, type StdioProbeFn } from '@/lib/poller/stdio-cycle';
import { isAlive, methodsOf, peerScript, readRecord, waitForExit } from '../host-check/fixtures';
import { onPostgres } from '../../support/store';
import { tempStore, waitFor } from './support';
import { parseSettings } from '@/lib/settings';
import { testSettings } from '../../support/settings';

const db = await tempStore('poller-stdio');
const file = (name: string) => path.join(db.dir, name);
const node = JSON.stringify(process.execPath);

function configText(archiveScript: 'v1-stdio' | 'v2-stdio' = 'v1-stdio'): string {
  const entry = (name: string, script: string, extra: string[], more = '') =>
    `  - name: ${name}
    command: ${node}
    args: [${[peerScript(script as 'v2-stdio'), ...extra].map((a) => JSON.stringify(a)).join(', ')}]
    timeoutMs: 15000
    legacyProbeTimeoutMs: 15000
    intervalMs: 60000
${more}`;
  return `version: 1
stdio:
${entry('current', 'v2-stdio', ['--name', 'current', '--record', file('current.jsonl')])}${entry(
    'archive',
    archiveScript,
    ['--name', 'archive', '--record', file('archive.jsonl')],
    '    allowLegacy: true\n',
  )}${entry('archive-not-allowed', 'v1-stdio', ['--name', 'archive', '--record', file('strict.jsonl')])}${entry(
    'garbage',
    'fault-stdio',
    ['--fault', 'garbage', '--record', file('garbage.jsonl')],
  )}`;
}

async function apply(text: string, at: number) {
  return await applyConfig(db.store, parseConfig(text, file('erawatch.config.yaml'), parseSettings({})), at);
}

const byName = async (name: string): Promise<StdioTarget> => {
  const row = (await listStdioTargetRows(db.store)).find((r) => r.name === name);
  if (!row) throw new Error(`no stdio target ${name}`);
  return row;
};

let clock = 1_000_000;
const now = () => clock;
let poller: PollerHandle | null = null;

beforeAll(async () => {
  await apply(configText(), 1_000);
});

afterAll(async () => {
  await poller?.stop();
  // Every peer a probe launched must already be gone; end any survivor (by its pid) so none outlives the test.
  const pids = new Set(
    ['current', 'archive', 'strict', 'garbage', 'runner-a', 'runner-b'].flatMap((n) =>
      readRecord(file(`${n}.jsonl`)).flatMap((r) => (Number.isInteger(r.pid) && r.pid > 0 ? [r.pid] : [])),
    ),
  );
  for (const pid of pids) if (isAlive(pid)) process.kill(pid, 'SIGKILL');
  await db.cleanup();
});

async function probeAll(probe: StdioProbeFn = createStdioProbe(process.env)) {
  const limiter = createLimiter(4);
  clock += 60_000;
  return Promise.all(
    (await listStdioTargetRows(db.store)).map((t) =>
      runStdioCycle(db.store, t.id, { probe, now, limiter, region: 'default' }),
    ),
  );
}

describe('poller: stdio targets', () => {
  it('stores each target’s verdict with its evidence; every launched process has exited', async () => {
    await probeAll();
    const current = await getStdioTarget(db.store, (await byName('current')).id, 'default');
    expect(current.state).toMatchObject({ clientEra: 'modern', reason: 'discover_result', probes: 1 });
    expect(current.verdict?.evidence[0]).toMatchObject({ step: 'discover', outcome: 'result' });
    expect(current.verdict?.url).toBe(`stdio:${current.commandLine}`);

    const archive = await getStdioTarget(db.store, (await byName('archive')).id, 'default');
    expect(archive.state).toMatchObject({ clientEra: 'legacy', reason: 'legacy_positive_evidence' });
    expect(archive.verdict?.evidence.map((e) => e.step)).toEqual(['discover', 'initialize']);

    // The same program under another entry without allowLegacy: the allowlist is not shared.
    const strict = await getStdioTarget(db.store, (await byName('archive-not-allowed')).id, 'default');
    expect(strict.state).toMatchObject({ clientEra: 'unavailable', reason: 'ambiguous_not_allowlisted' });
    expect(methodsOf(file('strict.jsonl'))).not.toContain('initialize');

    const garbage = await getStdioTarget(db.store, (await byName('garbage')).id, 'default');
    expect(garbage.state).toMatchObject({ clientEra: 'unavailable', reason: 'invalid_json' });

    for (const name of ['current', 'archive', 'strict']) {
      const pids = readRecord(file(`${name}.jsonl`)).map((r) => r.pid);
      expect(pids.length).toBeGreaterThan(0);
      for (const pid of pids) expect(isAlive(pid)).toBe(false);
    }
    for (const t of [current, archive, strict, garbage]) expect(t.history).toHaveLength(1);
  });

  it('an unchanged answer updates the counters only: no new history row', async () => {
    await probeAll();
    const current = await getStdioTarget(db.store, (await byName('current')).id, 'default');
    expect(current.state?.probes).toBe(2);
    expect(current.history).toHaveLength(1);
    expect(current.history[0]?.endedAt).toBeNull();
    // Two probes, two processes, both gone.
    const pids = [...new Set(readRecord(file('current.jsonl')).map((r) => r.pid))];
    expect(pids).toHaveLength(2);
  });

  it('a config change of the command drops the old state; the next probe opens a new span', async () => {
    const summary = await apply(configText('v2-stdio'), 2_000);
    expect(summary.updated).toEqual(["stdio target 'archive'"]);
    const before = await getStdioTarget(db.store, (await byName('archive')).id, 'default');
    expect(before.state).toBeNull();
    expect(before.history[0]?.endedAt).toBe(2_000);
    await probeAll();
    const after = await getStdioTarget(db.store, (await byName('archive')).id, 'default');
    expect(after.state).toMatchObject({ clientEra: 'modern', probes: 1 });
    expect(after.history.map((h) => h.clientEra)).toEqual(['modern', 'legacy']);
    await apply(configText(), 3_000);
  });

  // The schedule runs on the test's clock, which PostgreSQL's claims (on the database clock) do not follow.
  it.skipIf(onPostgres)(
    'the runner probes stdio targets on their interval under the global cap, and stop() leaves no process',
    async () => {
      const store = await tempStore('poller-stdio-runner');
      try {
        const runnerConfig = `version: 1
stdio:
${['runner-a', 'runner-b']
  .map(
    (n) => `  - name: ${n}
    command: ${node}
    args: [${JSON.stringify(peerScript('v2-stdio'))}, --name, ${n}, --record, ${JSON.stringify(file(`${n}.jsonl`))}]
    intervalMs: 60000
    timeoutMs: 15000
    legacyProbeTimeoutMs: 15000
`,
  )
  .join('')}`;
        await applyConfig(store.store, parseConfig(runnerConfig, file('runner.yaml'), parseSettings({})));
        let active = 0;
        let maxActive = 0;
        const real = createStdioProbe(process.env);
        const counting: StdioProbeFn = async (t, o, s) => {
          active += 1;
          maxActive = Math.max(maxActive, active);
          try {
            return await real(t, o, s);
          } finally {
            active -= 1;
          }
        };
        // The schedule runs on a clock the test moves: an interval passes when both targets have answered,
        // never while a slow start-up is still under way. Each probe's own deadline is real time (and generous).
        let t = Date.now();
        poller = startPollerWith({
          store: store.store,
          stdioProbe: counting,
          settings: testSettings({ ERAWATCH_POLLER_CONCURRENCY: '1' }),
          refreshMs: 100,
          leaseRenewMs: 100,
          now: () => t,
          log: () => {},
        });
        const ids = (await listStdioTargetRows(store.store)).map((row) => row.id);
        // The lease and the first schedule read are asynchronous: move the clock only once both targets are
        // scheduled, or their first slots would be placed after the jump.
        await waitFor('both stdio targets scheduled', 60_000, () => poller?.status().stdioTargets === 2);
        for (const round of [1, 2]) {
          // An interval and a half: every target's next phase slot is then due, wherever its phase lies.
          t += 90_000;
          await waitFor(`probe ${round} of each stdio target`, 60_000, async () => {
            const targets = await Promise.all(ids.map((id) => getStdioTarget(store.store, id, 'default')));
            return targets.every((t) => (t.state?.probes ?? 0) >= round);
          });
        }
        expect(poller.status().stdioTargets).toBe(2);
        await poller.stop();
        poller = null;
        expect(maxActive).toBe(1);
        for (const n of ['runner-a', 'runner-b']) {
          const pids = [...new Set(readRecord(file(`${n}.jsonl`)).map((r) => r.pid))];
          expect(pids.length).toBeGreaterThanOrEqual(2);
          for (const pid of pids) await waitForExit(pid, 5_000);
        }
        expect((await getStdioTarget(store.store, ids[0] ?? '', 'default')).state).toMatchObject({
          clientEra: 'modern',
        });
      } finally {
        await poller?.stop();
        poller = null;
        await store.cleanup();
      }
    },
  );
});
