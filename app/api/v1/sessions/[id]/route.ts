import { getLiveSession, revokeSession } from '@/db/queries/sessions';
import { audited } from '@/lib/api/audit';
import { HttpProblem } from '@/lib/api/problem';
import { route } from '@/lib/api/route';
import { sessionName } from '@/lib/api/sessions';
import { noContent } from '@/lib/api/with-api';

export const dynamic = 'force-dynamic';

/**
 * Ends a live session, as its logout would: recorded in the store, so every web process refuses its cookie
 * from then on. The change and its audit entry are one transaction.
 */
export const DELETE = route('endSession', async (ctx) => {
  const { store, params, now } = ctx;
  await audited(ctx, { operation: 'session.end', subjectType: 'session' }, async () => {
    const live = await getLiveSession(store, params.id, now);
    if (live === null) {
      throw new HttpProblem(404, 'not_found', `no live session '${params.id}': unknown, expired or ended`);
    }
    await revokeSession(store, live.id, live.expiresAt);
    return {
      subject: { id: live.id, name: sessionName(live.user) },
      before: { ...live, endedAt: null },
      after: { ...live, endedAt: now },
      result: null,
    };
  });
  return noContent();
});
