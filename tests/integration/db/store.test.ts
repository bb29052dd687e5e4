import { processSettings } from '@/lib/settings';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { countAppliedMigrations, openStore, type Store, sqliteOf } from '@/db';
import { deleteBalancer, getBalancer, getBalancerByName, listBalancers } from '@/db/queries/balancers';
import { createBalancer, updateBalancer } from '@/lib/balancers';
import { insertEvents, listEvents } from '@/db/queries/events';
import { isSessionRevoked, pruneRevokedSessions, revokeSession } from '@/db/queries/sessions';
import { getNode, getNodeHistory, getRollups, listNodes } from '@/db/queries/nodes';
import { closeRolloutWindow, getOpenWindow, openRolloutWindow } from '@/db/queries/rollouts';
import { nodes } from '@/db/schema';
import { ConflictError, NotFoundError, ValidationError } from '@/lib/errors';

let dir: string;
let store: Store;

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'erawatch-store-'));
  store = await openStore(path.join(dir, 'nested', 'store.db'), { settings: processSettings() });
});
afterAll(async () => {
  await store.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

const base = { name: 'alpha', publicUrl: 'http://127.0.0.1:9000/mcp' };

describe('openStore', () => {
  it('says how many migrations an open applied: all of them on a new file, none on the next open', async () => {
    const file = path.join(dir, 'count.db');
    const first = await openStore(file, { settings: processSettings() });
    const all = await countAppliedMigrations(first);
    expect(all).toBeGreaterThan(0);
    expect(first.migrationsApplied).toBe(all);
    await first.close();
    const second = await openStore(file, { settings: processSettings() });
    expect(second.migrationsApplied).toBe(0);
    await second.close();
    // erawatch db-migrate prints both counts.
    const repoRoot = path.resolve(import.meta.dirname, '../../..');
    const cli = (f: string) =>
      spawnSync(process.execPath, [path.join(repoRoot, 'bin/erawatch.mjs'), 'db-migrate', '--db', f], {
        cwd: repoRoot,
        encoding: 'utf8',
        timeout: 120_000,
      });
    const fresh = path.join(dir, 'cli.db');
    expect(cli(fresh).stdout).toBe(
      `database ${fresh}: ${all} migration(s) applied now, ${all} in all, schema up to date\n`,
    );
    const again = cli(fresh);
    expect(again.stdout).toBe(
      `database ${fresh}: 0 migration(s) applied now, ${all} in all, schema up to date\n`,
    );
    expect(again.status).toBe(0);
  });

  it('creates the directory, applies migrations and sets the pragmas', () => {
    expect(fs.existsSync(path.join(dir, 'nested', 'store.db'))).toBe(true);
    expect(sqliteOf(store).pragma('journal_mode', { simple: true })).toBe('wal');
    expect(sqliteOf(store).pragma('foreign_keys', { simple: true })).toBe(1);
    expect(sqliteOf(store).pragma('busy_timeout', { simple: true })).toBe(5000);
    const tables = sqliteOf(store)
      .prepare("select name from sqlite_master where type='table' order by name")
      .all()
      .map((r) => (r as { name: string }).name);
    expect(tables).toEqual(
      expect.arrayContaining([
        'balancers',
        'nodes',
        'subject_states',
        'subject_history',
        'node_rollups',
        'events',
        'rollout_windows',
        'balancer_states',
        'poll_units',
        'poll_workers',
      ]),
    );
  });

  it('opening the same file again is idempotent', async () => {
    const again = await openStore(store.location, { settings: processSettings() });
    try {
      expect(sqliteOf(again).prepare('select count(*) as n from balancers').get()).toEqual({ n: 0 });
    } finally {
      await again.close();
    }
  });
});

describe('balancers', () => {
  it('creates with defaults, stores header values as given, reads back by id and by name', async () => {
    const b = await createBalancer(store, { ...base, headers: { Authorization: 'env:PROBE_TOKEN' } }, 1000);
    expect(b.id).toMatch(/^bal_[a-z2-7]{12}$/);
    expect(b).toMatchObject({
      name: 'alpha',
      intervalMs: 30_000,
      samplesPerCycle: 4,
      nodeUrls: [],
      attributionHeader: null,
      createdAt: 1000,
    });
    expect(b.headers).toEqual({ Authorization: 'env:PROBE_TOKEN' });
    expect(await getBalancer(store, b.id)).toEqual(b);
    expect(await getBalancerByName(store, 'alpha')).toEqual(b);
  });

  it.each([
    ['empty name', { ...base, name: '' }, 'name'],
    ['ftp url', { ...base, name: 'x1', publicUrl: 'ftp://h/x' }, 'publicUrl'],
    ['deadline above interval', { ...base, name: 'x2', intervalMs: 5000, timeoutMs: 2000 }, 'timeoutMs'],
    ['header with newline', { ...base, name: 'x3', headers: { 'X-A': 'a\nb' } }, 'headers.X-A'],
    ['bad revision', { ...base, name: 'x4', legacyVersions: ['yesterday'] }, 'legacyVersions.0'],
  ])('rejects %s with a field issue and writes nothing', async (_label, input, pathWanted) => {
    const before = (await listBalancers(store, { limit: 500 })).items.length;
    let caught: unknown;
    try {
      await createBalancer(store, input as never);
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(ValidationError);
    expect((caught as ValidationError).issues.map((i) => i.path)).toContain(pathWanted);
    expect((await listBalancers(store, { limit: 500 })).items.length).toBe(before);
  });

  it('duplicate name is a conflict', async () => {
    await expect(async () => await createBalancer(store, base)).rejects.toThrow(ConflictError);
    await expect(async () => await createBalancer(store, base)).rejects.toThrow(/already exists/);
  });

  it('update changes only the sent fields and validates the merged result', async () => {
    const b = await createBalancer(store, { ...base, name: 'beta', intervalMs: 60_000, samplesPerCycle: 7 });
    const u = await updateBalancer(store, b.id, { allowLegacy: true }, 5000);
    expect(u).toMatchObject({ allowLegacy: true, intervalMs: 60_000, samplesPerCycle: 7, updatedAt: 5000 });
    await expect(async () => await updateBalancer(store, b.id, { intervalMs: 2000 })).rejects.toThrow(
      ValidationError,
    );
    await expect(async () => await updateBalancer(store, b.id, { name: 'alpha' })).rejects.toThrow(
      ConflictError,
    );
    await expect(
      async () => await updateBalancer(store, 'bal_missing', { allowLegacy: true }),
    ).rejects.toThrow(NotFoundError);
    expect(await getBalancer(store, b.id)).toEqual(u);
  });

  it('lists with search and cursor pages', async () => {
    for (const n of ['gamma-1', 'gamma-2', 'gamma-3']) await createBalancer(store, { ...base, name: n });
    const p1 = await listBalancers(store, { limit: 2, q: 'gamma' });
    expect(p1.items.map((i) => i.name)).toEqual(['gamma-1', 'gamma-2']);
    expect(p1.items[0]?.summary).toBeNull();
    const p2 = await listBalancers(store, { limit: 2, q: 'gamma', cursor: p1.nextCursor });
    expect(p2.items.map((i) => i.name)).toEqual(['gamma-3']);
    expect(p2.nextCursor).toBeNull();
    expect((await listBalancers(store, { q: '%' })).items).toEqual([]);
  });

  it('the API list page agrees with the full list, with node counts and summaries', async () => {
    const { listBalancerPage } = await import('@/db/queries/balancers');
    for (const n of ['page-a1', 'page-a2', 'pagexa3'])
      await createBalancer(store, { ...base, name: n, nodeUrls: ['http://10.0.0.1/mcp'] });
    const full = await listBalancers(store, { limit: 500 });
    const page = await listBalancerPage(store, { limit: 500 });
    expect(page.items.map((i) => i.name)).toEqual(full.items.map((i) => i.name));
    for (const [i, item] of page.items.entries()) {
      const {
        nodeUrls,
        headers: _h,
        legacyVersions: _l,
        auth: _a,
        tlsCa: _t,
        nodeNames: _n,
        ...rest
      } = full.items[i] ?? ({} as never);
      expect(item).toEqual({ ...rest, nodeUrlCount: nodeUrls.length });
    }
    const p1 = await listBalancerPage(store, { limit: 2, q: 'page-a' });
    expect(p1.items.map((i) => i.name)).toEqual(['page-a1', 'page-a2']);
    expect(p1.nextCursor).toBeNull();
    const p2 = await listBalancerPage(store, { limit: 1, q: 'page-a' });
    expect(
      (await listBalancerPage(store, { limit: 1, q: 'page-a', cursor: p2.nextCursor })).items.map(
        (i) => i.name,
      ),
    ).toEqual(['page-a2']);
    // '_' is a literal underscore, not SQL's one-character wildcard.
    expect((await listBalancerPage(store, { q: 'page_a' })).items).toEqual([]);
    await expect(async () => await listBalancerPage(store, { cursor: 'not a cursor!' })).rejects.toThrow(
      ValidationError,
    );
  });

  it.each([
    [{ limit: 0 }, 'limit'],
    [{ limit: 501 }, 'limit'],
    [{ cursor: 'not a cursor!' }, 'cursor'],
  ])('list rejects %o', async (opts, field) => {
    await expect(async () => await listBalancers(store, opts)).rejects.toThrow(ValidationError);
    try {
      await listBalancers(store, opts);
    } catch (err) {
      expect((err as ValidationError).issues[0]?.path).toBe(field);
    }
  });

  it('delete cascades to nodes and events', async () => {
    const b = await createBalancer(store, { ...base, name: 'doomed' });
    await store.write(async (tx) => {
      await tx.insert(nodes).values({
        id: 'nod_doomed',
        balancerId: b.id,
        key: 'listed:x',
        origin: 'listed',
        url: 'http://x/',
        createdAt: 1,
        lastSeenAt: 1,
      });
      await insertEvents(store, [
        { type: 'node.unavailable', balancerId: b.id, nodeId: 'nod_doomed', at: 10 },
      ]);
    });
    expect(await listNodes(store, b.id)).toHaveLength(1);
    await deleteBalancer(store, b.id);
    await expect(async () => await getBalancer(store, b.id)).rejects.toThrow(NotFoundError);
    await expect(async () => await getNode(store, 'nod_doomed')).rejects.toThrow(NotFoundError);
    expect((await listEvents(store, { balancerId: b.id })).items).toEqual([]);
    await expect(async () => await deleteBalancer(store, b.id)).rejects.toThrow(NotFoundError);
  });
});

describe('events', () => {
  it('inserts in the caller transaction and rolls back with it', async () => {
    const b = await createBalancer(store, { ...base, name: 'ev' });
    await expect(
      store.write(async () => {
        await insertEvents(store, [{ type: 'gate.opened', balancerId: b.id, at: 5 }]);
        throw new Error('state write failed');
      }),
    ).rejects.toThrow('state write failed');
    expect((await listEvents(store, { balancerId: b.id })).items).toEqual([]);
  });

  it('rejects an unknown type and writes none of the batch', async () => {
    const b = await getBalancerByName(store, 'ev');
    await expect(
      async () =>
        await insertEvents(store, [
          { type: 'gate.opened', balancerId: b.id, at: 5 },
          { type: 'node.exploded' as never, balancerId: b.id, at: 6 },
        ]),
    ).rejects.toThrow(/1\.type must be one of/);
    expect((await listEvents(store, { balancerId: b.id })).items).toEqual([]);
  });

  it('lists newest first with filters and cursor', async () => {
    const b = await getBalancerByName(store, 'ev');
    await insertEvents(
      store,
      [1, 2, 3, 4, 5].map((i) => ({
        type: i % 2 ? ('node.unavailable' as const) : ('node.recovered' as const),
        balancerId: b.id,
        at: i * 100,
        data: { i },
      })),
    );
    const all = await listEvents(store, { balancerId: b.id, limit: 2 });
    expect(all.items.map((e) => e.at)).toEqual([500, 400]);
    const next = await listEvents(store, { balancerId: b.id, limit: 2, cursor: all.nextCursor });
    expect(next.items.map((e) => e.at)).toEqual([300, 200]);
    expect(
      (await listEvents(store, { balancerId: b.id, type: 'node.recovered' })).items.map((e) => e.data),
    ).toEqual([{ i: 4 }, { i: 2 }]);
    expect(
      (await listEvents(store, { balancerId: b.id, since: 200, until: 400 })).items.map((e) => e.at),
    ).toEqual([300, 200]);
    await expect(async () => await listEvents(store, { type: 'nope' })).rejects.toThrow(
      /type must be one of/,
    );
  });
});

describe('rollout windows', () => {
  it('opens one window per balancer and closes it', async () => {
    const b = await createBalancer(store, { ...base, name: 'rollout' });
    expect(await getOpenWindow(store, b.id)).toBeNull();
    const w = await openRolloutWindow(
      store,
      b.id,
      { target: { era: 'modern', negotiatedVersion: '2026-07-28' }, deadline: 10_000 },
      1_000,
    );
    expect(w).toMatchObject({
      balancerId: b.id,
      target: { era: 'modern', negotiatedVersion: '2026-07-28' },
      deadline: 10_000,
      openedAt: 1_000,
      closedAt: null,
    });
    expect((await getOpenWindow(store, b.id))?.id).toBe(w.id);
    await expect(
      async () =>
        await openRolloutWindow(store, b.id, { target: { era: 'modern' }, deadline: 20_000 }, 1_000),
    ).rejects.toThrow(ConflictError);
    expect((await closeRolloutWindow(store, w.id, 2_000)).closedAt).toBe(2_000);
    expect(await getOpenWindow(store, b.id)).toBeNull();
    await expect(async () => await closeRolloutWindow(store, w.id)).rejects.toThrow(ConflictError);
    await expect(async () => await closeRolloutWindow(store, 'win_missing')).rejects.toThrow(NotFoundError);
    await expect(
      async () =>
        await openRolloutWindow(store, 'bal_missing', { target: { era: 'modern' }, deadline: 20_000 }, 1_000),
    ).rejects.toThrow(NotFoundError);
  });
});

describe('node reads', () => {
  it('missing ids are NotFound', async () => {
    await expect(async () => await listNodes(store, 'bal_none')).rejects.toThrow(NotFoundError);
    await expect(async () => await getNode(store, 'nod_none')).rejects.toThrow(NotFoundError);
    await expect(async () => await getNodeHistory(store, 'nod_none')).rejects.toThrow(NotFoundError);
    await expect(async () => await getRollups(store, { balancerId: 'bal_none', since: 0 })).rejects.toThrow(
      NotFoundError,
    );
  });
});

describe('ended sessions', () => {
  it('keeps a logout until its cookie would have expired, and records one twice without error', async () => {
    await revokeSession(store, 'sid-early', 5_000);
    await revokeSession(store, 'sid-late', 50_000);
    await revokeSession(store, 'sid-late', 50_000);
    expect(await isSessionRevoked(store, 'sid-early')).toBe(true);
    expect(await isSessionRevoked(store, 'sid-never')).toBe(false);
    expect(await pruneRevokedSessions(store, 4_999)).toBe(0);
    expect(await pruneRevokedSessions(store, 5_000)).toBe(1);
    expect(await isSessionRevoked(store, 'sid-early')).toBe(false);
    expect(await isSessionRevoked(store, 'sid-late')).toBe(true);
  });
});
