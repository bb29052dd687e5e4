import { route } from '@/lib/api/route';

export const dynamic = 'force-dynamic';

/** The process is up and serving; nothing else is checked (that is /readyz). */
export const GET = route('liveness', () =>
  Response.json({ status: 'ok' }, { headers: { 'cache-control': 'no-store' } }),
);
