import { getStdioTarget } from '@/db/queries/stdio-targets';
import { route } from '@/lib/api/route';
import { refuseStdioWrite } from '@/lib/api/stdio-read-only';
import { json } from '@/lib/api/with-api';

export const dynamic = 'force-dynamic';

export const GET = route('getStdioTarget', async ({ store, params, settings }) =>
  json(await getStdioTarget(store, params.id, settings.region)),
);

export const POST = route('postStdioTarget', refuseStdioWrite);
export const PUT = route('putStdioTarget', refuseStdioWrite);
export const PATCH = route('patchStdioTarget', refuseStdioWrite);
export const DELETE = route('deleteStdioTarget', refuseStdioWrite);
