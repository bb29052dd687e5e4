// The SQLite connection on a real file: a nested write joins the open transaction, a write from elsewhere
// waits for it, the scope that tells them apart ends with the transaction, and reused statements keep shape.
import { processSettings } from '@/lib/settings';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eq, sql } from 'drizzle-orm';
import { openStore, selectRows, type Store } from '@/db';
import { createWriteScope } from '@/db/engines/write-scope';
import { countBalancers, getBalancerByName } from '@/db/queries/balancers';
import { createBalancer } from '@/lib/balancers';
import { NotFoundError } from '@/lib/errors';

let dir: string;
let store: Store;

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'erawatch-write-scope-'));
  store = await openStore(path.join(dir, 'store.db'), { settings: processSettings() });
});
afterAll(async () => {
  await store.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve = () => {};
  const promise = new Promise<void>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

const balancer = (name: string) => ({ name, publicUrl: 'http://127.0.0.1:9000/mcp' });

describe('store.write', () => {
  it('a nested write joins the open transaction and rolls back with it', async () => {
    await expect(
      store.write(async () => {
        await createBalancer(store, balancer('nested-a'));
        await createBalancer(store, balancer('nested-b'));
        throw new Error('abandon');
      }),
    ).rejects.toThrow('abandon');
    await expect(getBalancerByName(store, 'nested-a')).rejects.toBeInstanceOf(NotFoundError);
    await expect(getBalancerByName(store, 'nested-b')).rejects.toBeInstanceOf(NotFoundError);
  });

  it('a write from outside waits for the open transaction to commit', async () => {
    const before = await countBalancers(store);
    const release = deferred();
    const entered = deferred();
    const first = store.write(async () => {
      await createBalancer(store, balancer('first'));
      entered.resolve();
      await release.promise;
    });
    await entered.promise;
    const seen: number[] = [];
    const second = store.write(async () => {
      seen.push(await countBalancers(store));
      await createBalancer(store, balancer('second'));
    });
    release.resolve();
    await Promise.all([first, second]);
    expect(seen).toEqual([before + 1]);
    expect(await countBalancers(store)).toBe(before + 2);
  });

  it('a continuation begun in a committed transaction writes in a transaction of its own', async () => {
    const committed = deferred();
    let later: Promise<unknown> = Promise.resolve();
    await store.write(async () => {
      await createBalancer(store, balancer('kept'));
      later = committed.promise.then(() =>
        store.write(async () => {
          await createBalancer(store, balancer('dropped'));
          throw new Error('abandon later');
        }),
      );
    });
    committed.resolve();
    await expect(later).rejects.toThrow('abandon later');
    expect((await getBalancerByName(store, 'kept')).name).toBe('kept');
    await expect(getBalancerByName(store, 'dropped')).rejects.toBeInstanceOf(NotFoundError);
  });
});

describe('createWriteScope', () => {
  it('names the transaction inside run, none outside it or after it settled', async () => {
    const scope = createWriteScope<string>();
    const after = deferred();
    let leaked: Promise<string | undefined> = Promise.resolve(undefined);
    const seen = await scope.run('tx1', async () => {
      await Promise.resolve();
      leaked = after.promise.then(() => scope.current());
      return scope.current();
    });
    expect(seen).toBe('tx1');
    expect(scope.current()).toBeUndefined();
    after.resolve();
    expect(await leaked).toBeUndefined();
  });

  it('keeps concurrent runs apart', async () => {
    const scope = createWriteScope<string>();
    const gate = deferred();
    const a = scope.run('a', async () => {
      await gate.promise;
      return scope.current();
    });
    const b = scope.run('b', async () => {
      await gate.promise;
      return scope.current();
    });
    expect(scope.current()).toBeUndefined();
    gate.resolve();
    expect(await Promise.all([a, b])).toEqual(['a', 'b']);
  });
});

describe('reused statements', () => {
  it('one SQL text read as rows of fields and as plain objects gives each its own shape', async () => {
    await createBalancer(store, balancer('shape'));
    const { balancers: b } = store.t;
    const fields = () =>
      store.read(async (db) => db.select({ name: b.name }).from(b).where(eq(b.name, 'shape')));
    const text = 'select "name" from "balancers" where "balancers"."name" = ?';
    // The same text both ways, so the second read reuses the statement the first one switched to arrays.
    expect(
      await store.read(
        async (db) => db.select({ name: b.name }).from(b).where(eq(b.name, 'shape')).toSQL().sql,
      ),
    ).toBe(text);
    for (let i = 0; i < 2; i++) {
      expect(await fields()).toEqual([{ name: 'shape' }]);
      const raw = sql`select "name" from "balancers" where "balancers"."name" = ${'shape'}`;
      expect(await store.read(() => selectRows<{ name: string }>(store, raw))).toEqual([{ name: 'shape' }]);
    }
  });
});
