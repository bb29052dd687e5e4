import { listLiveSessions } from '@/db/queries/sessions';
import { route } from '@/lib/api/route';
import { json } from '@/lib/api/with-api';

export const dynamic = 'force-dynamic';

/** Every live dashboard session, newest first; the one the caller presents is marked `current`. */
export const GET = route('listSessions', async ({ store, now, principal }) => {
  const own = principal.kind === 'session' ? principal.sid : null;
  const items = (await listLiveSessions(store, now)).map((s) => ({ ...s, current: s.id === own }));
  return json({ items });
});
