// The egress check of a webhook URL at registration time: refused addresses never get stored.
import { HttpProblem } from './problem';
import { checkWebhookUrl, webhookEgressPolicy } from '@/lib/webhooks/egress';

export function assertWebhookUrlAllowed(url: string | undefined): void {
  if (url === undefined) return;
  const refusal = checkWebhookUrl(url, webhookEgressPolicy());
  if (refusal) {
    throw new HttpProblem(422, 'egress_refused', `the webhook URL is not allowed: ${refusal}`, {
      errors: [{ pointer: '/url', detail: refusal }],
    });
  }
}
