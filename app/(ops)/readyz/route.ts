import { getStore } from '@/db/index';
import { READINESS_DEADLINE_MS, checkReadiness, readinessWithin } from '@/lib/api/readiness';
import { route } from '@/lib/api/route';
import { hasValidBearer } from '@/lib/api/with-api';
import { processSettings } from '@/lib/settings';

export const dynamic = 'force-dynamic';

/**
 * 200 when ready, 503 with the failing check otherwise, within 2 s. Public and secret-free for load balancers
 * (one read, no host names); a bearer token or the admin secret adds the write check and the workers by name.
 */
export const GET = route('readiness', async ({ req }) => {
  const settings = processSettings();
  const body = await readinessWithin(READINESS_DEADLINE_MS, async () => {
    const store = await getStore({ settings });
    const now = Date.now();
    const detailed = await hasValidBearer(req, store, settings, now);
    return checkReadiness(store, settings, now, { detailed });
  }).catch(() => ({
    ready: false,
    checks: {
      database: { ok: false, detail: 'the store cannot be opened' },
      poller: { ok: false, detail: 'not checked: no store' },
    },
  }));
  return Response.json(body, { status: body.ready ? 200 : 503, headers: { 'cache-control': 'no-store' } });
});
