// The egress check of a webhook URL at registration time: refused addresses never get stored.
import { HttpProblem } from './problem';
import type { Settings } from '@/lib/settings';
import { checkWebhookUrl, webhookEgressPolicy } from '@/lib/deliver/egress';

export function assertWebhookUrlAllowed(
  url: string | undefined,
  settings: Pick<Settings, 'allowLoopback' | 'webhookAllowPrivate'>,
): void {
  if (url === undefined) return;
  const refusal = checkWebhookUrl(url, webhookEgressPolicy(settings));
  if (refusal) {
    throw new HttpProblem(422, 'egress_refused', `the webhook URL is not allowed: ${refusal}`, {
      errors: [{ pointer: '/url', detail: refusal }],
    });
  }
}
