// The flap window's read of recent fingerprint changes runs every cycle: on both engines its plan must seek
// the small partial index of changes (`subject_history_changes`), not every history span of the balancer.
import { processSettings } from '@/lib/settings';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openStore, sqliteOf } from '@/db';
import { openPostgres } from '@/db/engines/postgres';
import { RECENT_CHANGES_SQL } from '@/db/engines/sqlite-reads';
import { PgDialect } from 'drizzle-orm/pg-core';
import { postgresCycleReadQuery } from '@/db/engines/postgres-cycle-read';
import { createDatabase, describePostgres, stopSharedCluster } from '../../support/postgres';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'erawatch-changes-plan-'));

afterAll(async () => {
  fs.rmSync(dir, { recursive: true, force: true });
  await stopSharedCluster();
});

describe('the recent-changes read on SQLite', () => {
  it('searches the partial index of changes', async () => {
    const store = await openStore(path.join(dir, 'plan.db'), { settings: processSettings() });
    try {
      const plan = sqliteOf(store)
        .prepare(`EXPLAIN QUERY PLAN ${RECENT_CHANGES_SQL}`)
        .all('bal_x', 'default', 0) as Array<{ detail: string }>;
      const history = plan.map((p) => p.detail).filter((d) => /\bh\b/.test(d));
      expect(history).toHaveLength(1);
      expect(history[0]).toMatch(/^SEARCH h USING (COVERING )?INDEX subject_history_changes \(/);
    } finally {
      await store.close();
    }
  });
});

describePostgres('the recent-changes read on PostgreSQL', () => {
  it('can use the partial index of changes even in a generic plan of the prepared statement', async () => {
    const store = await openPostgres(await createDatabase('changes-plan'));
    try {
      // The changes are one part of the cycle's one read of everything but its nodes.
      const query = new PgDialect().sqlToQuery(postgresCycleReadQuery('bal_x', 'default', 0));
      const literal = (v: unknown) =>
        typeof v === 'number' ? String(v) : `'${String(v).replace(/'/g, "''")}'`;
      const lines = await store.sql.begin(async (tx) => {
        // A generic plan cannot see the bound values, so only a predicate the index's own WHERE implies
        // lets it seek the index; seq scans off, so an empty table does not hide which index is usable.
        await tx.unsafe('SET LOCAL plan_cache_mode = force_generic_plan');
        await tx.unsafe('SET LOCAL enable_seqscan = off');
        await tx.unsafe(`PREPARE recent_changes AS ${query.sql}`);
        const rows = await tx.unsafe(
          `EXPLAIN EXECUTE recent_changes(${query.params.map(literal).join(', ')})`,
        );
        return rows.map((r) => String(Object.values(r)[0]));
      });
      expect(lines.join('\n')).toMatch(/Index (Only )?Scan using subject_history_changes on subject_history/);
    } finally {
      await store.close();
    }
  });
});
