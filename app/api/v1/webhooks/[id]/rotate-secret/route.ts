import { rotateWebhookSecret } from '@/db/queries/webhooks';
import { route } from '@/lib/api/route';
import { json } from '@/lib/api/with-api';

export const dynamic = 'force-dynamic';

/** A new secret (returned once); the old one keeps signing beside it for `overlapMs`. */
export const POST = route('rotateWebhookSecret', async ({ store, params, now, body }) =>
  json(await rotateWebhookSecret(store, params.id, await body(), now)),
);
