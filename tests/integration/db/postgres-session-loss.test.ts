// A write transaction whose PostgreSQL session the server ends (pg_terminate_backend here; the same FATAL-then-close
// as idle_in_transaction_session_timeout, a restart or a fail-over): the write fails as a lost session, nothing of
// it is kept, a statement the transaction sends afterwards is refused (not run outside it on a new
// session), the process carries on, and the store writes again.
import { eq, sql } from 'drizzle-orm';
import postgres from 'postgres';
import { afterAll, afterEach, beforeAll, beforeEach, expect, it } from 'vitest';
import { executeStatement, selectRows, type Store } from '@/db';
import { openPostgres } from '@/db/engines/postgres';
import { sessionLost, TransactionEndedError } from '@/db/engines/postgres-session-loss';
import { createDatabase, describePostgres, stopSharedCluster } from '../../support/postgres';
import { pollUntil } from '../../support/wait';
import { createBalancer } from '@/lib/balancers';

const balancer = (name: string) => ({ name, publicUrl: 'http://127.0.0.1:9/mcp' });

/** The error `p` rejects with, or null when it resolves. */
const failureOf = (p: Promise<unknown>) =>
  p.then(
    () => null,
    (err: unknown) => err,
  );

describePostgres('a PostgreSQL transaction whose session is lost', () => {
  let store: Store;
  let admin: postgres.Sql;
  // An error thrown outside any promise (the driver writing on a socket it dropped) ends a real process.
  const uncaught: unknown[] = [];
  const onUncaught = (err: unknown) => uncaught.push(err);

  beforeAll(async () => {
    const url = await createDatabase('session-loss');
    store = await openPostgres(url);
    admin = postgres(url, { max: 1, onnotice: () => {} });
  });
  afterAll(async () => {
    await admin?.end({ timeout: 5 });
    await store?.close();
    await stopSharedCluster();
  });
  beforeEach(() => {
    uncaught.length = 0;
    process.on('uncaughtException', onUncaught);
  });
  afterEach(() => {
    process.off('uncaughtException', onUncaught);
  });

  /** The backend of the transaction open in the caller's write. */
  const backendPid = async () => {
    const rows = await selectRows<{ pid: number }>(store, sql`SELECT pg_backend_pid() AS pid`);
    return Number(rows[0]?.pid);
  };
  const stored = async (name: string) =>
    store.read((db) => db.select().from(store.t.balancers).where(eq(store.t.balancers.name, name)));
  const backendGone = async (pid: number) =>
    (await admin`SELECT 1 FROM pg_stat_activity WHERE pid = ${pid}`).length === 0;

  it('ended mid-statement: the write fails as a lost session, keeps nothing, and the store writes again', async () => {
    let pid = 0;
    const write = store.write(async () => {
      await createBalancer(store, balancer('lost-mid'));
      pid = await backendPid();
      await executeStatement(store, sql`SELECT pg_sleep(30)`);
    });
    const failure = failureOf(write);
    await pollUntil('the transaction to sleep', 30_000, async () => {
      if (pid === 0) return false;
      const [row] = await admin`SELECT wait_event FROM pg_stat_activity WHERE pid = ${pid}`;
      return row?.wait_event === 'PgSleep';
    });
    await admin`SELECT pg_terminate_backend(${pid})`;
    const err = await failure;
    // The driver drops the server's FATAL for a statement in flight and fails it when the socket closes.
    expect(err).toMatchObject({ code: 'CONNECTION_CLOSED' });
    expect(sessionLost(err)).toBe(true);

    expect(await stored('lost-mid')).toEqual([]);
    await createBalancer(store, balancer('after-mid'));
    expect(await stored('after-mid')).toHaveLength(1);
    expect(uncaught).toEqual([]);
  });

  it('ended while idle inside it: a later statement is refused, not run outside it on a new session', async () => {
    let pid = 0;
    let release = () => {};
    const gate = new Promise<void>((resolve) => (release = resolve));
    let later: unknown = null;
    const write = store.write(async () => {
      await createBalancer(store, balancer('lost-idle'));
      pid = await backendPid();
      await gate;
      try {
        await createBalancer(store, balancer('lost-idle-later'));
        later = 'sent';
      } catch (err) {
        later = err;
        throw err;
      }
    });
    const failure = failureOf(write);
    await pollUntil('the transaction to sit idle', 30_000, async () => {
      if (pid === 0) return false;
      const [row] = await admin`SELECT state FROM pg_stat_activity WHERE pid = ${pid}`;
      return row?.state === 'idle in transaction';
    });
    await admin`SELECT pg_terminate_backend(${pid})`;
    await pollUntil('the session to end', 30_000, () => backendGone(pid));
    // The write fails when the driver sees the socket close, before its callback runs on.
    const err = await failure;
    expect(sessionLost(err)).toBe(true);
    // Another statement in the meantime reconnects the pool: the transaction's next one must not use it.
    await selectRows(store, sql`SELECT 1`);
    release();
    await pollUntil('the later statement to be answered', 30_000, () => later);
    // drizzle names the statement and keeps the refusal as its cause.
    expect((later as Error).cause).toBeInstanceOf(TransactionEndedError);
    expect(String((later as Error).cause)).toMatch(/lost its PostgreSQL session|has ended/);

    expect(await stored('lost-idle')).toEqual([]);
    expect(await stored('lost-idle-later')).toEqual([]);
    await createBalancer(store, balancer('after-idle'));
    expect(await stored('after-idle')).toHaveLength(1);
    expect(uncaught).toEqual([]);
  });

  it('a statement sent after the transaction committed is refused', async () => {
    let kept: Parameters<Parameters<Store['write']>[0]>[0] | null = null;
    await store.write(async (tx) => {
      kept = tx;
      await createBalancer(store, balancer('committed'));
    });
    const tx = kept as unknown as Parameters<Parameters<Store['write']>[0]>[0];
    const refused = ((await failureOf(tx.select().from(store.t.balancers))) as Error | null)?.cause;
    expect(refused).toBeInstanceOf(TransactionEndedError);
    expect(String(refused)).toMatch(/has ended/);
    expect(await stored('committed')).toHaveLength(1);
  });
});
