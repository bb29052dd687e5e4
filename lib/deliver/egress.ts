// Webhook URLs go through the same egress guard as probes, with a stricter default: private ranges are refused
// unless ERAWATCH_WEBHOOK_ALLOW_PRIVATE=1, loopback unless ERAWATCH_ALLOW_LOOPBACK=1.
import { checkRegisteredUrl, type EgressPolicy } from '@/lib/net/egress';

export function webhookEgressPolicy(settings: {
  allowLoopback: boolean;
  webhookAllowPrivate: boolean;
}): EgressPolicy {
  return { allowLoopback: settings.allowLoopback, allowPrivate: settings.webhookAllowPrivate };
}

/** Null when the URL may be registered, else why not. Host names are checked again, resolved, at send time. */
export function checkWebhookUrl(url: string, policy: EgressPolicy): string | null {
  return checkRegisteredUrl(url, policy);
}
