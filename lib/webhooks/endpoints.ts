// Creating an endpoint and rotating its secret: the signing secret is made here (when not given), the overlap
// decided here, and both handed to the store, which only keeps them.
import type { Store } from '@/db';
import { getWebhookRow, insertWebhook, storeWebhookSecrets, updateWebhook } from '@/db/queries/webhooks';
import { ValidationError } from '@/lib/errors';
import { parseInput, parsePatch } from '@/lib/schemas/common';
import { CreateWebhookInput, UpdateWebhookInput, type WebhookEndpoint } from '@/lib/schemas/webhook';
import { generateWebhookSecret } from '@/lib/deliver/signing';

/** Validates and creates an endpoint; returns it with its secret (generated when not given), the only time
 *  it is shown. */
export function createWebhook(
  store: Store,
  input: CreateWebhookInput,
  now: number = Date.now(),
): Promise<WebhookEndpoint & { secret: string }> {
  const settings = parseInput(CreateWebhookInput, input);
  return insertWebhook(store, { ...settings, secret: settings.secret ?? generateWebhookSecret() }, now);
}

/** Applies the fields a partial update sent (validated; `enabled: true` re-enables a disabled endpoint). */
export function updateWebhookEndpoint(
  store: Store,
  id: string,
  patch: unknown,
  now: number = Date.now(),
): Promise<WebhookEndpoint> {
  return updateWebhook(store, id, parsePatch(UpdateWebhookInput, patch), now);
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
