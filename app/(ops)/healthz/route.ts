export const dynamic = 'force-dynamic';

/** The process is up and serving; nothing else is checked (that is /readyz). */
export function GET(): Response {
  return Response.json({ status: 'ok' }, { headers: { 'cache-control': 'no-store' } });
}
