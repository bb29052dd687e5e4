import { processSettings } from '@/lib/settings';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore, type Store } from '@/db';
import { getBalancerByName, listBalancers } from '@/db/queries/balancers';
import { updateBalancer } from '@/lib/balancers';
import { parseDemoArgs } from '@/lib/cli/commands/demo';
import { checkBuild, choosePort, isPortFree } from '@/lib/demo/next-app';
import { registerDemoBalancers, resetDemoBalancers } from '@/lib/demo/register';
import {
  expectedFlag,
  planRollout,
  runRolloutScript,
  SEARCH_INITIAL,
  SEARCH_ROLLOUT,
  waitFor,
  type RolloutDeps,
} from '@/lib/demo/rollout-script';
import { ValidationError } from '@/lib/errors';
import type { CreateBalancerInput } from '@/lib/schemas/balancer';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'erawatch-demo-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

describe('registerDemoBalancers (real SQLite file)', () => {
  let store: Store;
  beforeAll(async () => {
    store = await openStore(path.join(tmp, 'register.db'), { settings: processSettings() });
  });
  afterAll(() => store.close());

  const input = (port: number): CreateBalancerInput[] => [
    {
      name: 'demo-reg-a',
      publicUrl: `http://127.0.0.1:${port}/mcp`,
      nodeUrls: [`http://127.0.0.1:${port + 1}/mcp`, `http://127.0.0.1:${port + 2}/mcp`],
      intervalMs: 5_000,
      timeoutMs: 1_500,
      legacyProbeTimeoutMs: 1_000,
      attributionHeader: 'x-served-by',
    },
    {
      name: 'demo-reg-b',
      publicUrl: `http://127.0.0.1:${port + 3}/mcp`,
      intervalMs: 5_000,
      timeoutMs: 1_500,
      legacyProbeTimeoutMs: 1_000,
      allowLegacy: true,
    },
  ];

  it('creates on the first run and updates in place on the next, resetting hand edits', async () => {
    const first = await registerDemoBalancers(store, input(40_000), 1_000);
    expect(first.map((r) => [r.balancer.name, r.action])).toEqual([
      ['demo-reg-a', 'created'],
      ['demo-reg-b', 'created'],
    ]);
    const a = await getBalancerByName(store, 'demo-reg-a');
    await updateBalancer(store, a.id, { allowLegacy: true, samplesPerCycle: 9 }, 1_500);

    const second = await registerDemoBalancers(store, input(41_000), 2_000);
    expect(second.map((r) => [r.balancer.name, r.action])).toEqual([
      ['demo-reg-a', 'updated'],
      ['demo-reg-b', 'updated'],
    ]);
    expect(second.map((r) => r.balancer.id)).toEqual(first.map((r) => r.balancer.id));
    expect(await getBalancerByName(store, 'demo-reg-a')).toMatchObject({
      publicUrl: 'http://127.0.0.1:41000/mcp',
      nodeUrls: ['http://127.0.0.1:41001/mcp', 'http://127.0.0.1:41002/mcp'],
      allowLegacy: false,
      samplesPerCycle: 4,
      createdAt: 1_000,
      updatedAt: 2_000,
    });
    expect((await listBalancers(store, { q: 'demo-reg-' })).items).toHaveLength(2);
  });

  it('reset removes only the named balancers', async () => {
    await registerDemoBalancers(store, [
      { ...input(43_000)[0], name: 'demo-reg-gone' },
      { ...input(43_000)[1], name: 'demo-reg-kept' },
    ] as CreateBalancerInput[]);
    expect(await resetDemoBalancers(store, ['demo-reg-gone', 'demo-reg-never'])).toEqual(['demo-reg-gone']);
    await expect(async () => await getBalancerByName(store, 'demo-reg-gone')).rejects.toThrow(
      "balancer 'demo-reg-gone' not found",
    );
    expect((await getBalancerByName(store, 'demo-reg-kept')).name).toBe('demo-reg-kept');
  });

  it('a bad registration is a validation error naming the field, and stores nothing', async () => {
    const bad = { ...input(42_000)[0], name: 'demo-reg-bad', timeoutMs: 4_000 } as CreateBalancerInput;
    let error: unknown;
    try {
      await registerDemoBalancers(store, [bad]);
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as ValidationError).issues).toEqual([
      {
        path: 'timeoutMs',
        message:
          'the probe deadline (2 × timeoutMs + legacyProbeTimeoutMs = 9000 ms) must stay below intervalMs (5000 ms)',
      },
    ]);
    expect((await listBalancers(store, { q: 'demo-reg-bad' })).items).toEqual([]);
  });
});

describe('rollout script', () => {
  it('plans era-split, then drift, then uniform, with one rollback', () => {
    expect(expectedFlag(SEARCH_INITIAL)).toBe('era-split');
    const plan = planRollout(SEARCH_INITIAL, SEARCH_ROLLOUT);
    expect(plan.map((p) => `${p.step.node}:${p.from}->${p.step.to}=${p.flag}`)).toEqual([
      'search-3:legacy->modern=era-split',
      'search-4:legacy->modern=drift',
      'search-4:modern->legacy=era-split',
      'search-1:dual->modern=era-split',
      'search-4:legacy->modern=drift',
      'search-2:dual->modern=uniform',
    ]);
    expect(plan.at(-1)?.nodes).toEqual({
      'search-1': 'modern',
      'search-2': 'modern',
      'search-3': 'modern',
      'search-4': 'modern',
    });
  });

  it.each([
    [{ 'search-1': 'dual', 'search-2': 'legacy' } as const, 'era-split'],
    [{ 'search-1': 'dual', 'search-2': 'modern' } as const, 'drift'],
    [{ 'search-1': 'legacy', 'search-2': 'legacy' } as const, 'uniform'],
  ])('expectedFlag(%j) is %s', (nodes, flag) => {
    expect(expectedFlag(nodes)).toBe(flag);
  });

  it('refuses a step naming an unknown node', () => {
    expect(() => planRollout(SEARCH_INITIAL, [{ node: 'search-7', to: 'modern', note: '' }])).toThrow(
      "rollout step names an unknown node 'search-7'",
    );
  });

  function fakeDeps(onReplace: (node: string, calls: number) => Promise<void>) {
    const replaced: string[] = [];
    const lines: string[] = [];
    const deps: RolloutDeps = {
      async replaceNode(node) {
        replaced.push(node);
        await onReplace(node, replaced.length);
      },
      wait: async () => undefined,
      log: (line) => lines.push(line),
      now: () => 0,
    };
    return { deps, replaced, lines };
  }

  it('stops between steps when aborted', async () => {
    const controller = new AbortController();
    const { deps, replaced } = fakeDeps(async (_node, calls) => {
      if (calls === 2) controller.abort();
    });
    const report = await runRolloutScript(deps, { stepMs: 1, signal: controller.signal });
    expect(report).toEqual({ completed: 2, total: 6, outcome: 'aborted' });
    expect(replaced).toEqual(['search-3', 'search-4']);
  });

  it('stops at a failed deploy and says why', async () => {
    const { deps, replaced, lines } = fakeDeps(async (node, calls) => {
      if (calls === 3) throw new Error(`port of ${node} is taken`);
    });
    const report = await runRolloutScript(deps, { stepMs: 1, signal: new AbortController().signal });
    expect(report).toEqual({ completed: 2, total: 6, outcome: 'failed', error: 'port of search-4 is taken' });
    expect(replaced).toEqual(['search-3', 'search-4', 'search-4']);
    expect(lines.at(-1)).toBe(
      '[rollout +0:00] step 3 failed: port of search-4 is taken; the rollout stops here',
    );
  });

  it('waitFor resolves early on abort', async () => {
    const controller = new AbortController();
    const waiting = waitFor(600_000, controller.signal);
    controller.abort();
    await expect(waiting).resolves.toBeUndefined();
  });
});

describe('demo build check and ports', () => {
  it('needs a build when there is none, or when a source is newer than it', () => {
    const root = fs.mkdtempSync(path.join(tmp, 'app-'));
    fs.mkdirSync(path.join(root, 'app'));
    fs.writeFileSync(path.join(root, 'app', 'page.tsx'), 'export default 1;\n');
    expect(checkBuild(root)).toEqual({ current: false, reason: 'no production build yet' });

    fs.mkdirSync(path.join(root, '.next'));
    fs.writeFileSync(path.join(root, '.next', 'BUILD_ID'), 'x');
    const built = new Date(Date.now() + 10_000);
    fs.utimesSync(path.join(root, '.next', 'BUILD_ID'), built, built);
    expect(checkBuild(root)).toEqual({ current: true, reason: 'the build is newer than every source file' });

    const later = new Date(Date.now() + 20_000);
    fs.mkdirSync(path.join(root, 'lib', 'deep'), { recursive: true });
    fs.writeFileSync(path.join(root, 'lib', 'deep', 'x.ts'), '');
    fs.utimesSync(path.join(root, 'lib', 'deep', 'x.ts'), later, later);
    expect(checkBuild(root)).toEqual({
      current: false,
      reason: `${path.join('lib', 'deep', 'x.ts')} changed since the last build`,
    });
  });

  it('takes the preferred port when free, refuses it when taken and strict, else moves on', async () => {
    const holder = net.createServer();
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
    const address = holder.address();
    const taken = typeof address === 'object' && address ? address.port : 0;
    try {
      expect(await isPortFree('127.0.0.1', taken)).toBe(false);
      await expect(choosePort('127.0.0.1', taken, true)).rejects.toThrow(
        `port ${taken} on 127.0.0.1 is in use (choose another with --port)`,
      );
      const other = await choosePort('127.0.0.1', taken, false);
      expect(other).not.toBe(taken);
      expect(await isPortFree('127.0.0.1', other)).toBe(true);
    } finally {
      await new Promise<void>((resolve) => holder.close(() => resolve()));
    }
    expect(await choosePort('127.0.0.1', taken, true)).toBe(taken);
  });
});

describe('erawatch demo arguments', () => {
  it('defaults and every flag', () => {
    expect(parseDemoArgs([])).toEqual({
      port: 3000,
      portGiven: false,
      build: true,
      stepSeconds: 20,
      rollout: true,
      reset: false,
      basePort: 47310,
    });
    expect(
      parseDemoArgs([
        '--fast',
        '--port',
        '3100',
        '--no-build',
        '--no-rollout',
        '--reset',
        '--base-port',
        '0',
      ]),
    ).toEqual({
      port: 3100,
      portGiven: true,
      build: false,
      stepSeconds: 8,
      rollout: false,
      reset: true,
      basePort: 0,
    });
    expect(parseDemoArgs(['-h'])).toBe('help');
  });

  it.each([
    [['--port', 'abc'], '--port must be an integer from 1 to 65535'],
    [['--port', '0'], '--port must be an integer from 1 to 65535'],
    [['--step-seconds', '1'], '--step-seconds must be an integer from 2 to 600'],
    [['--fast', '--step-seconds', '5'], 'use either --fast or --step-seconds'],
    [['--base-port', '80'], '--base-port must be 0 or at least 1024'],
    [['--bogus'], "Unknown option '--bogus'"],
    [['extra'], "Unexpected argument 'extra'"],
  ])('%j is refused: %s', (argv, message) => {
    expect(() => parseDemoArgs(argv)).toThrow(message);
  });
});
