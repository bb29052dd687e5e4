import { listEvents, type StoredEvent } from '@/db/queries/events';
import { asQueryErrors, json, readQuery, withApi } from '@/lib/api/with-api';
import { EventQuery } from '@/lib/schemas/event';

export const dynamic = 'force-dynamic';

function view({ seq: _seq, ...event }: StoredEvent) {
  return event;
}

export const GET = withApi('read', async ({ req, store }) => {
  const q = readQuery(req, EventQuery);
  const page = await asQueryErrors(
    async () =>
      await listEvents(store, {
        balancerId: q.balancerId,
        type: q.type,
        since: q.since,
        until: q.until,
        limit: q.limit,
        cursor: q.cursor,
      }),
  );
  return json({ items: page.items.map(view), nextCursor: page.nextCursor });
});
