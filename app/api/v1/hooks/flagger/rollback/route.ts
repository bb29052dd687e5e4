import { answerFlaggerHook } from '@/lib/api/flagger';
import { route } from '@/lib/api/route';

export const dynamic = 'force-dynamic';

/** Flagger rollback hook: 200 (roll back) when the gate is not open, 409 while it is. */
export const POST = route('flaggerRollback', async ({ store, mode, now, settings, body }) =>
  answerFlaggerHook('rollback', await body(), { store, mode, now, settings }),
);
