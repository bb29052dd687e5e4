import { listEvents, type StoredEvent } from '@/db/queries/events';
import { route } from '@/lib/api/route';
import { asQueryErrors, json } from '@/lib/api/with-api';

export const dynamic = 'force-dynamic';

function view({ seq: _seq, ...event }: StoredEvent) {
  return event;
}

export const GET = route('listEvents', async ({ store, query: q }) => {
  const page = await asQueryErrors(
    async () =>
      await listEvents(store, {
        balancerId: q.balancerId,
        nodeId: q.nodeId,
        type: q.type,
        since: q.since,
        until: q.until,
        limit: q.limit,
        cursor: q.cursor,
      }),
  );
  return json({ items: page.items.map(view), nextCursor: page.nextCursor });
});
