import { answerFlaggerHook } from '@/lib/api/flagger';
import { withApi } from '@/lib/api/with-api';

export const dynamic = 'force-dynamic';

/** Flagger gate hook (confirm-promotion, pre-rollout, rollout): 200 when the gate is open, 409 otherwise. */
export const POST = withApi(
  'public',
  ({ req, store, mode, now, settings }) => answerFlaggerHook('gate', req, { store, mode, now, settings }),
  { credentialInBody: true },
);
