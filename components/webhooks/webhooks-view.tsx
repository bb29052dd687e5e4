'use client';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { ActionError } from '@/components/balancers/balancer-actions';
import { EventTypeChecks } from '@/components/events/event-type-checks';
import { Age } from '@/components/ui/age';
import { Badge } from '@/components/ui/badge';
import { Icon } from '@/components/ui/icon';
import { RoleGate } from '@/components/session/role';
import { LoadError, Loading } from '@/components/ui/query-state';
import { browserFetcher } from '@/lib/query/fetch-json';
import {
  createWebhook,
  deleteWebhook,
  redeliver,
  rotateWebhookSecret,
  setWebhookEnabled,
  testWebhook,
} from '@/lib/query/mutations';
import { deliveriesQuery, queryKeys, webhooksQuery, type DeliveryResource } from '@/lib/query/options';
import { ApiProblem } from '@/lib/query/problem';
import { EVENT_TYPES } from '@/lib/rollout/types';
import type {
  CreateWebhookInput,
  DeliveryStatus,
  WebhookDelivery,
  WebhookEndpoint,
} from '@/lib/schemas/webhook';
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

function SecretOnce({ secret, what, onDone }: { secret: string; what: string; onDone: () => void }) {
  return (
    <div className="notice tone-warn" role="status" data-testid="secret-once" style={{ display: 'block' }}>
      <p style={{ margin: '0 0 6px' }}>
        <strong>{what}</strong> Copy it now: it is shown only once.
      </p>
      <div className="secret">{secret}</div>
      <button type="button" className="btn btn-small" style={{ marginTop: 6 }} onClick={onDone}>
        I have stored it
      </button>
    </div>
  );
}

export function WebhooksView() {
  const hooks = useQuery(webhooksQuery(browserFetcher));
  const [secret, setSecret] = useState<{ value: string; what: string } | null>(null);
  return (
    <>
      {secret ? <SecretOnce secret={secret.value} what={secret.what} onDone={() => setSecret(null)} /> : null}
      <RoleGate need="operator" what="Adding, testing and changing webhooks">
        <CreateWebhook
          onCreated={(value, name) => setSecret({ value, what: `Signing secret of ${name}.` })}
        />
      </RoleGate>
      {hooks.error && !hooks.data ? <LoadError error={hooks.error} what="webhooks" /> : null}
      {hooks.isPending ? <Loading what="webhooks" /> : null}
      {hooks.data && hooks.data.length === 0 ? (
        <div className="panel empty">
          <h2>No webhook endpoints</h2>
          <p>
            Add one above to receive signed events (Standard Webhooks) when balancers diverge, converge or get
            stuck.
          </p>
        </div>
      ) : null}
      {(hooks.data ?? []).map((w) => (
        <Endpoint
          key={w.id}
          hook={w}
          onSecret={(value) => setSecret({ value, what: `New signing secret of ${w.name}.` })}
        />
      ))}
    </>
  );
}

function CreateWebhook({ onCreated }: { onCreated: (secret: string, name: string) => void }) {
  const client = useQueryClient();
  const [name, setName] = useState('');
  const [url, setUrl] = useState('');
  const [types, setTypes] = useState<string[]>([]);
  const create = useMutation({
    mutationFn: (input: CreateWebhookInput) => createWebhook(browserFetcher, input),
    onSuccess: (created) => {
      onCreated(created.secret, name);
      setName('');
      setUrl('');
      setTypes([]);
      return client.invalidateQueries({ queryKey: queryKeys.webhooks });
    },
  });
  const problem = create.error instanceof ApiProblem ? create.error : null;
  const nameError = problem?.fieldMessage('/name') ?? (problem?.status === 409 ? problem.detail : null);
  const urlError = problem?.fieldMessage('/url') ?? null;
  const typesError = problem?.fieldMessage('/eventTypes') ?? null;
  const other = create.error && !nameError && !urlError && !typesError ? create.error : null;
  const submit = (e: FormEvent) => {
    e.preventDefault();
    create.mutate({ name, url: url.trim(), eventTypes: types as CreateWebhookInput['eventTypes'] });
  };
  return (
    <details className="panel" open={false}>
      <summary className="panel-head" style={{ cursor: 'pointer' }}>
        <Icon name="info" /> Add a webhook endpoint
      </summary>
      <form className="form panel-body" onSubmit={submit} noValidate aria-label="Add webhook endpoint">
        <div className="field-row">
          <div className="field">
            <label htmlFor="wh-name">Name</label>
            <input
              id="wh-name"
              type="text"
              value={name}
              onChange={(e) => setName(e.target.value)}
              aria-invalid={nameError ? true : undefined}
            />
            {nameError ? (
              <span className="field-error" data-testid="error-wh-name">
                <Icon name="alert" /> {nameError}
              </span>
            ) : null}
          </div>
          <div className="field">
            <label htmlFor="wh-url">URL</label>
            <input
              id="wh-url"
              type="url"
              value={url}
              onChange={(e) => setUrl(e.target.value)}
              aria-invalid={urlError ? true : undefined}
            />
            {urlError ? (
              <span className="field-error" data-testid="error-wh-url">
                <Icon name="alert" /> {urlError}
              </span>
            ) : null}
          </div>
        </div>
        <EventTypeChecks
          legend="Events (none checked sends all)"
          options={EVENT_TYPES}
          selected={types}
          onChange={setTypes}
          error={typesError}
        />
        <ActionError error={other} />
        <div className="form-actions">
          <button type="submit" className="btn btn-primary" disabled={create.isPending}>
            Add endpoint
          </button>
        </div>
      </form>
    </details>
  );
}

function Endpoint({ hook: w, onSecret }: { hook: WebhookEndpoint; onSecret: (secret: string) => void }) {
  const client = useQueryClient();
  const [showLog, setShowLog] = useState(true);
  const refresh = () =>
    Promise.all([
      client.invalidateQueries({ queryKey: queryKeys.webhooks }),
      client.invalidateQueries({ queryKey: queryKeys.deliveries(w.id) }),
    ]);
  const test = useMutation({ mutationFn: () => testWebhook(browserFetcher, w.id), onSettled: refresh });
  const rotate = useMutation({
    mutationFn: () => rotateWebhookSecret(browserFetcher, w.id),
    onSuccess: (r) => onSecret(r.secret),
    onSettled: refresh,
  });
  const remove = useMutation({ mutationFn: () => deleteWebhook(browserFetcher, w.id), onSettled: refresh });
  const toggle = useMutation({
    mutationFn: () => setWebhookEnabled(browserFetcher, w.id, !w.enabled),
    onSettled: refresh,
  });
  const state: Presentation = w.enabled
    ? w.failingSince
      ? { label: 'Failing', icon: 'degraded', tone: 'warn', hint: 'Recent deliveries failed; retrying.' }
      : { label: 'Enabled', icon: 'check', tone: 'ok', hint: 'Delivering.' }
    : { label: 'Disabled', icon: 'unavailable', tone: 'bad', hint: w.disabledReason ?? 'disabled' };
  return (
    <section className="panel" aria-label={`Webhook ${w.name}`} data-testid="webhook" data-name={w.name}>
      <div className="panel-head" style={{ flexWrap: 'wrap' }}>
        <h2>{w.name}</h2>
        <Badge p={state} />
        {w.secretRotating ? (
          <Badge p={{ label: 'Secret rotating', icon: 'rolling', tone: 'info', hint: 'both secrets sign' }} />
        ) : null}
        <span className="mono muted" style={{ overflowWrap: 'anywhere' }}>
          {w.url}
        </span>
        <span style={{ flex: 1 }} />
        <RoleGate need="operator" what="Changing webhooks" quiet>
          <button
            type="button"
            className="btn btn-small"
            onClick={() => test.mutate()}
            disabled={test.isPending}
          >
            {test.isPending ? 'Sending…' : 'Send test event'}
          </button>
          <button
            type="button"
            className="btn btn-small"
            onClick={() => rotate.mutate()}
            disabled={rotate.isPending}
          >
            Rotate secret
          </button>
          <button
            type="button"
            className="btn btn-small"
            onClick={() => toggle.mutate()}
            disabled={toggle.isPending}
          >
            {w.enabled ? 'Disable' : 'Enable'}
          </button>
          <button
            type="button"
            className="btn btn-small btn-danger"
            onClick={() => {
              if (window.confirm(`Delete the webhook endpoint ${w.name}? Its delivery log goes with it.`))
                remove.mutate();
            }}
          >
            Delete
          </button>
        </RoleGate>
      </div>
      <div className="panel-body">
        <p style={{ margin: '0 0 6px' }}>
          Events:{' '}
          {w.eventTypes.length === 0
            ? 'all'
            : w.eventTypes.map((t) => (
                <code key={t} style={{ marginRight: 6 }}>
                  {t}
                </code>
              ))}
          {w.balancerIds.length > 0 ? ` · ${w.balancerIds.length} balancers` : ' · all balancers'}
          {!w.enabled && w.disabledReason ? (
            <span className="field-error" style={{ display: 'inline-flex', marginLeft: 8 }}>
              <Icon name="alert" /> {w.disabledReason}
            </span>
          ) : null}
        </p>
        <ActionError error={test.error ?? rotate.error ?? remove.error ?? toggle.error} />
        <button
          type="button"
          className="btn btn-small"
          onClick={() => setShowLog((s) => !s)}
          aria-expanded={showLog}
        >
          {showLog ? 'Hide delivery log' : 'Show delivery log'}
        </button>
      </div>
      {showLog ? <DeliveryLog endpointId={w.id} /> : null}
    </section>
  );
}

/** One endpoint's delivery log; alert sinks show theirs with the same table. */
export function DeliveryLog({
  endpointId,
  resource = 'webhooks',
  empty = 'No deliveries yet. Send a test event to check the receiver.',
}: {
  endpointId: string;
  resource?: DeliveryResource;
  empty?: string;
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
