import { getStore } from '@/db/index';
import { checkReadiness } from '@/lib/api/readiness';
import { processSettings } from '@/lib/settings';

export const dynamic = 'force-dynamic';

/** 200 when ready, 503 with the failing check otherwise; public and secret-free, for load balancers. */
export async function GET(): Promise<Response> {
  let body;
  try {
    const settings = processSettings();
    body = await checkReadiness(await getStore({ settings }), settings, Date.now());
  } catch (err) {
    body = { ready: false, error: err instanceof Error ? err.message : String(err) };
  }
  return Response.json(body, { status: body.ready ? 200 : 503, headers: { 'cache-control': 'no-store' } });
}
