// Creating an endpoint and rotating its secret: the signing secret is made here (when not given), the overlap
// decided here, and both handed to the store, which only keeps them.
import type { Store } from '@/db';
import { getWebhookRow, insertWebhook, storeWebhookSecrets } from '@/db/queries/webhooks';
import { ValidationError } from '@/lib/errors';
import type { CreateWebhookInput, WebhookEndpoint } from '@/lib/schemas/webhook';
import { generateWebhookSecret } from './signing';

/** Creates an endpoint; returns it with its secret (generated when not given), the only time it is shown. */
export function createWebhook(
  store: Store,
  input: CreateWebhookInput,
  now: number = Date.now(),
): Promise<WebhookEndpoint & { secret: string }> {
  return insertWebhook(store, input, generateWebhookSecret(), now);
}

/** A new signing secret (generated when not given); the old one keeps signing beside it for `overlapMs`. */
export function rotateWebhookSecret(
  store: Store,
  id: string,
  opts: { overlapMs: number; secret?: string },
  now: number = Date.now(),
): Promise<WebhookEndpoint & { secret: string }> {
  const secret = opts.secret ?? generateWebhookSecret();
  return store.write(async () => {
    const current = await getWebhookRow(store, id);
    if (secret === current.secret)
      throw new ValidationError([{ path: 'secret', message: 'must differ from the current secret' }]);
    const overlap = opts.overlapMs > 0;
    return storeWebhookSecrets(
      store,
      id,
      {
        secret,
        previousSecret: overlap ? current.secret : null,
        previousSecretUntil: overlap ? now + opts.overlapMs : null,
      },
      now,
    );
  });
}
