// The egress check of alert sink URLs at registration time: a refused address is never stored.
import { HttpProblem } from './problem';
import { checkWebhookUrl, webhookEgressPolicy } from '@/lib/webhooks/egress';

export function assertAlertSinkUrlsAllowed(urls: readonly string[] | undefined): void {
  if (urls === undefined) return;
  const errors = urls.flatMap((url, i) => {
    const refusal = checkWebhookUrl(url, webhookEgressPolicy());
    return refusal ? [{ pointer: `/urls/${i}`, detail: refusal }] : [];
  });
  const first = errors[0];
  if (first) {
    throw new HttpProblem(422, 'egress_refused', `an Alertmanager URL is not allowed: ${first.detail}`, {
      errors,
    });
  }
}
