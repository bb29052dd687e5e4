'use client';
// An endpoint's delivery log, the same table for webhooks and alert sinks (they share one outbox).
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { ActionError } from '@/components/balancers/balancer-actions';
import { Age } from '@/components/ui/age';
import { Badge } from '@/components/ui/badge';
import { RoleGate } from '@/components/session/role';
import { LoadError, Loading } from '@/components/ui/query-state';
import { browserFetcher } from '@/lib/query/fetch-json';
import { redeliver } from '@/lib/query/mutations';
import { deliveriesQuery, queryKeys, type DeliveryResource } from '@/lib/query/options';
import type { DeliveryStatus, WebhookDelivery } from '@/lib/schemas/webhook';
import type { Presentation } from '@/lib/ui/presentation';

const DELIVERY_LOOK: Record<DeliveryStatus, Presentation> = {
  pending: { label: 'Pending', icon: 'clock', tone: 'info', hint: 'Queued or waiting for a retry.' },
  held: { label: 'Held', icon: 'pause', tone: 'muted', hint: 'Held during an open rollout window.' },
  succeeded: { label: 'Delivered', icon: 'check', tone: 'ok', hint: 'The receiver answered 2xx.' },
  failed: { label: 'Failed', icon: 'unavailable', tone: 'bad', hint: 'Gave up after the retry schedule.' },
  suppressed: {
    label: 'Suppressed',
    icon: 'pause',
    tone: 'muted',
    hint: 'Not sent: the condition resolved.',
  },
};

function deliveryLook(status: string): Presentation {
  return (
    (DELIVERY_LOOK as Record<string, Presentation | undefined>)[status] ?? {
      label: status,
      icon: 'info',
      tone: 'muted',
      hint: status,
    }
  );
}

/** One endpoint's delivery log, newest first, with a redeliver button per row. */
export function DeliveryLog({
  endpointId,
  resource,
  empty,
}: {
  endpointId: string;
  resource: DeliveryResource;
  empty: string;
}) {
  const client = useQueryClient();
  const log = useQuery(deliveriesQuery(browserFetcher, endpointId, resource));
  const again = useMutation({
    mutationFn: (deliveryId: string) => redeliver(browserFetcher, endpointId, deliveryId, resource),
    onSettled: () => client.invalidateQueries({ queryKey: queryKeys.deliveries(endpointId) }),
  });
  if (log.isPending) return <Loading what="deliveries" />;
  if (!log.data) return <LoadError error={log.error} what="deliveries" />;
  if (log.data.length === 0) return <p className="panel-body muted">{empty}</p>;
  return (
    <div className="table-wrap">
      <ActionError error={again.error} />
      <table className="data" data-testid="delivery-log">
        <thead>
          <tr>
            <th>Created</th>
            <th>Type</th>
            <th>Status</th>
            <th className="num">Attempts</th>
            <th>Last answer</th>
            <th>Next attempt</th>
            <th />
          </tr>
        </thead>
        <tbody>
          {log.data.map((d) => (
            <DeliveryRow key={d.id} d={d} onRedeliver={() => again.mutate(d.id)} busy={again.isPending} />
          ))}
        </tbody>
      </table>
    </div>
  );
}

function DeliveryRow({
  d,
  onRedeliver,
  busy,
}: {
  d: WebhookDelivery;
  onRedeliver: () => void;
  busy: boolean;
}) {
  return (
    <tr data-testid="delivery-row" data-status={d.status} data-type={d.type}>
      <td className="nowrap">
        <Age at={d.createdAt} />
      </td>
      <td className="mono">{d.type}</td>
      <td>
        <Badge p={deliveryLook(d.status)} />
      </td>
      <td className="num">{d.attempts}</td>
      <td>
        {d.lastHttpStatus !== null ? <code>HTTP {d.lastHttpStatus}</code> : null}
        {d.lastError ? <span className="muted"> {d.lastError}</span> : null}
        {d.lastHttpStatus === null && !d.lastError ? <span className="muted">—</span> : null}
      </td>
      <td>{d.nextAttemptAt ? <Age at={d.nextAttemptAt} /> : <span className="muted">—</span>}</td>
      <td>
        <RoleGate need="operator" what="Redelivering" quiet>
          <button type="button" className="btn btn-small" onClick={onRedeliver} disabled={busy}>
            Redeliver
          </button>
        </RoleGate>
      </td>
    </tr>
  );
}
