// Creating an endpoint and rotating its secret: the signing secret is made here (when not given) and handed
// to the store, which only keeps it.
import type { Store } from '@/db';
import { insertWebhook, storeRotatedSecret } from '@/db/queries/webhooks';
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
  return storeRotatedSecret(
    store,
    id,
    { overlapMs: opts.overlapMs, secret: opts.secret ?? generateWebhookSecret() },
    now,
  );
}
