import { answerFlaggerHook } from '@/lib/api/flagger';
import { withApi } from '@/lib/api/with-api';

export const dynamic = 'force-dynamic';

/** Flagger rollback hook: 200 (roll back) when the gate is not open, 409 while it is. */
export const POST = withApi(
  'public',
  ({ req, store, mode, now, settings }) => answerFlaggerHook('rollback', req, { store, mode, now, settings }),
  { credentialInBody: true },
);
