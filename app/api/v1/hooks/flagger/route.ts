import { answerFlaggerHook } from '@/lib/api/flagger';
import { route } from '@/lib/api/route';

export const dynamic = 'force-dynamic';

/** Flagger gate hook (confirm-promotion, pre-rollout, rollout): 200 when the gate is open, 409 otherwise. */
export const POST = route('flaggerGate', async ({ store, mode, now, settings, body }) =>
  answerFlaggerHook('gate', await body(), { store, mode, now, settings }),
);
