// The egress check of alert sink URLs at registration time: a refused address is never stored.
import { HttpProblem } from './problem';
import type { Settings } from '@/lib/settings';
import { checkWebhookUrl, webhookEgressPolicy } from '@/lib/deliver/egress';

export function assertAlertSinkUrlsAllowed(
  urls: readonly string[] | undefined,
  settings: Pick<Settings, 'allowLoopback' | 'webhookAllowPrivate'>,
): void {
  if (urls === undefined) return;
  const policy = webhookEgressPolicy(settings);
  const errors = urls.flatMap((url, i) => {
    const refusal = checkWebhookUrl(url, policy);
    return refusal ? [{ pointer: `/urls/${i}`, detail: refusal }] : [];
  });
  const first = errors[0];
  if (first) {
    throw new HttpProblem(422, 'egress_refused', `an Alertmanager URL is not allowed: ${first.detail}`, {
      errors,
    });
  }
}
