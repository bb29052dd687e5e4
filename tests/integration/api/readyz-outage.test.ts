// /readyz while PostgreSQL does not answer: the web process reaches the database through a door the test can
// turn silent (its connections dropped, new ones accepted and never answered, as a stopped or hung server
// behind a load balancer looks). /readyz must then answer 503 within its 2 s deadline instead of hanging, and
// be ready again once the database answers.
import { processSettings } from '@/lib/settings';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDatabase, describePostgres } from '../../support/postgres';
import { onPostgres } from '../../support/store';
import { startTcpRelay, type TcpRelay } from '../../support/tcp-relay';

(onPostgres ? describePostgres : describe.skip)('/readyz while PostgreSQL does not answer', () => {
  let door: TcpRelay | null = null;

  beforeAll(async () => {
    const url = new URL(await createDatabase('readyz-outage'));
    door = await startTcpRelay({ host: url.hostname, port: Number(url.port) });
    url.port = String(door.port);
    process.env.ERAWATCH_DB = url.toString();
    process.env.ERAWATCH_ADMIN_SECRET = 'readyz-outage-admin-secret-0123';
    process.env.ERAWATCH_BIND = '127.0.0.1';
    (await import('@/lib/settings')).resetProcessSettings();
  });

  afterAll(async () => {
    door?.restore();
    const { getStore } = await import('@/db/index');
    await (await getStore({ settings: processSettings() })).close();
    await door?.close();
  });

  const readyz = async () => {
    const { GET } = await import('@/app/(ops)/readyz/route');
    const res = await GET(
      new Request('http://127.0.0.1:3999/readyz', { headers: { host: '127.0.0.1:3999' } }),
    );
    return {
      status: res.status,
      body: (await res.json()) as { checks: { database: { ok: boolean; detail: string } } },
    };
  };

  it('answers 503 by its deadline while the database is silent, and recovers once it answers', async () => {
    const before = await readyz();
    // No worker polls here, so not ready; but the store answers.
    expect(before.body.checks.database).toEqual({ ok: true, detail: 'store answers' });
    door?.silence();
    const during = await readyz();
    expect(during.status).toBe(503);
    expect(during.body.checks.database).toEqual({
      ok: false,
      detail: 'the store did not answer within 2000 ms',
    });
    door?.restore();
    let after = await readyz();
    for (let i = 0; i < 50 && !after.body.checks.database.ok; i++) after = await readyz();
    expect(after.body.checks.database).toEqual({ ok: true, detail: 'store answers' });
  });
});
