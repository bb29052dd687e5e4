import { getStdioTarget } from '@/db/queries/stdio-targets';
import { refuseStdioWrite } from '@/lib/api/stdio-read-only';
import { json, withApi } from '@/lib/api/with-api';

export const dynamic = 'force-dynamic';

export const GET = withApi<{ id: string }>('read', async ({ store, params, settings }) =>
  json(await getStdioTarget(store, params.id, settings.region)),
);

export const POST = refuseStdioWrite;
export const PUT = refuseStdioWrite;
export const PATCH = refuseStdioWrite;
export const DELETE = refuseStdioWrite;
