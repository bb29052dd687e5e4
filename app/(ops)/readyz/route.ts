import { getStore } from '@/db/index';
import { checkReadiness } from '@/lib/api/readiness';
import { route } from '@/lib/api/route';
import { processSettings } from '@/lib/settings';

export const dynamic = 'force-dynamic';

/** 200 when ready, 503 with the failing check otherwise; public and secret-free, for load balancers. */
export const GET = route('readiness', async () => {
  let body;
  try {
    const settings = processSettings();
    body = await checkReadiness(await getStore({ settings }), settings, Date.now());
  } catch (err) {
    body = { ready: false, error: err instanceof Error ? err.message : String(err) };
  }
  return Response.json(body, { status: body.ready ? 200 : 503, headers: { 'cache-control': 'no-store' } });
});
