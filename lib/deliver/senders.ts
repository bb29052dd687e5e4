// One sender per endpoint kind, behind one interface: the pass loop claims deliveries of every kind from the
// one outbox and hands each to its kind's sender, so retries, the delivery log and disabling work the same.
import type { Store } from '@/db/index';
import type { ClaimedDelivery } from '@/db/queries/webhooks';
import { pushSinkAlerts, reconcileAlertSinks } from './alert-push';
import type { DeliveryDeps } from './deps';
import type { AttemptResult } from './http';
import { signedHeaders, signingSecrets } from './signing';

export interface Sender {
  /** Work a pass does before it claims, at the pass's time `now` (an alert sink's pushes are queued here). */
  beforeClaim?(store: Store, now: number, deps: DeliveryDeps): Promise<unknown>;
  /** One attempt of a claimed delivery at `at`; never throws for the receiver's failures. */
  send(store: Store, claimed: ClaimedDelivery, at: number, deps: DeliveryDeps): Promise<AttemptResult>;
}

/** A webhook: the stored envelope, signed (Standard Webhooks) with every secret live at `at`. */
export const webhookSender: Sender = {
  send: (_store, claimed, at, deps) =>
    deps.send({
      url: claimed.endpoint.url,
      headers: signedHeaders(
        signingSecrets(claimed.endpoint, at),
        claimed.delivery.id,
        Math.floor(at / 1000),
        claimed.delivery.payload,
      ),
      body: claimed.delivery.payload,
      timeoutMs: deps.timeoutMs,
    }),
};

/** An Alertmanager sink: its current alert set, pushed to every URL; a pass first brings the sets up to date. */
export const alertmanagerSender: Sender = {
  beforeClaim: (store, now, deps) => reconcileAlertSinks(store, now, deps.publicUrl),
  send: async (store, claimed, _at, deps) => {
    const { endpoint } = claimed;
    if (!endpoint.alertmanager) {
      return {
        outcome: 'config_error',
        httpStatus: null,
        error: 'alert sink has no settings',
        durationMs: 0,
      };
    }
    return pushSinkAlerts(
      store,
      { ...endpoint, alertmanager: endpoint.alertmanager },
      claimed.delivery.id,
      deps,
    );
  },
};

export const SENDERS: Record<ClaimedDelivery['endpoint']['kind'], Sender> = {
  webhook: webhookSender,
  alertmanager: alertmanagerSender,
};
