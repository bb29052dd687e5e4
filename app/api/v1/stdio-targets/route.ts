import { listStdioTargets } from '@/db/queries/stdio-targets';
import { route } from '@/lib/api/route';
import { refuseStdioWrite } from '@/lib/api/stdio-read-only';
import { json } from '@/lib/api/with-api';

export const dynamic = 'force-dynamic';

export const GET = route('listStdioTargets', async ({ store, settings }) =>
  json({ items: await listStdioTargets(store, settings.region) }),
);

export const POST = route('postStdioTargets', refuseStdioWrite);
export const PUT = route('putStdioTargets', refuseStdioWrite);
export const PATCH = route('patchStdioTargets', refuseStdioWrite);
export const DELETE = route('deleteStdioTargets', refuseStdioWrite);
