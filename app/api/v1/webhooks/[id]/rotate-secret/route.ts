import { rotateWebhookSecret } from '@/lib/webhooks/endpoints';
import { json, readJson, withApi } from '@/lib/api/with-api';
import { RotateSecretInput } from '@/lib/schemas/webhook';

export const dynamic = 'force-dynamic';

/** A new secret (returned once); the old one keeps signing beside it for `overlapMs`. */
export const POST = withApi<{ id: string }>('write', async ({ req, store, params, now }) => {
  const input = await readJson(req, RotateSecretInput);
  return json(await rotateWebhookSecret(store, params.id, input, now));
});
