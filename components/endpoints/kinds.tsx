'use client';
// What the endpoints screen shows and asks per kind: a webhook (a signed POST of each event) and an alert sink
// (an Alertmanager that receives the alert set). The screen itself is endpoints-view.tsx.
import { useMutation, useQuery, type QueryKey, type UseQueryResult } from '@tanstack/react-query';
import type { ComponentType, ReactNode } from 'react';
import { Age } from '@/components/ui/age';
import { Badge } from '@/components/ui/badge';
import { LoadError, Loading } from '@/components/ui/query-state';
import { browserFetcher } from '@/lib/query/fetch-json';
import {
  createAlertSink,
  createWebhook,
  deleteAlertSink,
  deleteWebhook,
  rotateWebhookSecret,
  setWebhookEnabled,
  testWebhook,
  updateAlertSink,
} from '@/lib/query/mutations';
import {
  alertSinksQuery,
  queryKeys,
  sinkAlertsQuery,
  webhooksQuery,
  type DeliveryResource,
} from '@/lib/query/options';
import { EVENT_TYPES, type EventType } from '@/lib/rollout/types';
import {
  ALERT_NAMES,
  type AlertSink,
  type AlertSinkAuthInput,
  type CreateAlertSinkInput,
} from '@/lib/schemas/alert-sink';
import type { CreateWebhookInput, WebhookEndpoint } from '@/lib/schemas/webhook';
import { FieldError } from './field-error';

export type EndpointKind = 'webhook' | 'alertmanager';

/** What every endpoint shows, whatever its kind. */
export interface EndpointCommon {
  id: string;
  name: string;
  enabled: boolean;
  disabledReason: string | null;
  failingSince: number | null;
  eventTypes: string[];
  balancerIds: string[];
}

export interface FieldsProps {
  values: Record<string, string>;
  set: (key: string, value: string) => void;
  /** The API's message for a field, by JSON pointer. */
  error: (pointer: string) => string | null;
}

export interface KindScreen<E extends EndpointCommon> {
  kind: EndpointKind;
  href: string;
  plural: string;
  singular: string;
  /** What the loading and error states name. */
  what: string;
  testId: string;
  queryKey: QueryKey;
  resource: DeliveryResource;
  useList: () => UseQueryResult<E[]>;
  create: (
    common: { name: string; eventTypes: string[] },
    extra: Record<string, string>,
  ) => Promise<{ secret?: string }>;
  setEnabled: (id: string, enabled: boolean) => Promise<unknown>;
  remove: (id: string) => Promise<unknown>;
  /** The kind's own actions (test, rotate), beside enable and delete. */
  useActions: (
    e: E,
    ctx: { refresh: () => Promise<unknown>; onSecret: (secret: string) => void },
  ) => { buttons: ReactNode; error: unknown };
  gate: { add: string; change: string };
  empty: { title: string; text: string };
  health: { failing: string; enabled: string };
  deleteQuestion: (name: string) => string;
  logEmpty: string;
  badgesBefore?: (e: E) => ReactNode;
  badgesAfter: (e: E) => ReactNode;
  summary: (e: E) => ReactNode;
  After?: ComponentType<{ endpoint: E }>;
  form: {
    summary: string;
    label: string;
    testId?: string;
    submit: string;
    idPrefix: string;
    eventsLegend: string;
    eventTypes: readonly EventType[];
    initial: Record<string, string>;
    /** The pointers of the kind's own fields, whose errors show under them. */
    pointers: string[];
    Fields: ComponentType<FieldsProps>;
  };
}

function WebhookFields({ values, set, error }: FieldsProps) {
  const message = error('/url');
  return (
    <div className="field">
      <label htmlFor="wh-url">URL</label>
      <input
        id="wh-url"
        type="url"
        value={values.url ?? ''}
        onChange={(e) => set('url', e.target.value)}
        aria-invalid={message ? true : undefined}
      />
      <FieldError id="wh-url" message={message} />
    </div>
  );
}

function useWebhookActions(
  w: WebhookEndpoint,
  ctx: { refresh: () => Promise<unknown>; onSecret: (secret: string) => void },
) {
  const test = useMutation({ mutationFn: () => testWebhook(browserFetcher, w.id), onSettled: ctx.refresh });
  const rotate = useMutation({
    mutationFn: () => rotateWebhookSecret(browserFetcher, w.id),
    onSuccess: (r) => ctx.onSecret(r.secret),
    onSettled: ctx.refresh,
  });
  return {
    buttons: (
      <>
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
      </>
    ),
    error: test.error ?? rotate.error,
  };
}

const webhookScreen: KindScreen<WebhookEndpoint> = {
  kind: 'webhook',
  href: '/webhooks',
  plural: 'Webhooks',
  singular: 'Webhook',
  what: 'webhooks',
  testId: 'webhook',
  queryKey: queryKeys.webhooks,
  resource: 'webhooks',
  useList: () => useQuery(webhooksQuery(browserFetcher)),
  create: (common, extra) =>
    createWebhook(browserFetcher, {
      ...common,
      url: (extra.url ?? '').trim(),
      eventTypes: common.eventTypes as CreateWebhookInput['eventTypes'],
    }),
  setEnabled: (id, enabled) => setWebhookEnabled(browserFetcher, id, enabled),
  remove: (id) => deleteWebhook(browserFetcher, id),
  useActions: useWebhookActions,
  gate: { add: 'Adding, testing and changing webhooks', change: 'Changing webhooks' },
  empty: {
    title: 'No webhook endpoints',
    text: 'Add one above to receive signed events (Standard Webhooks) when balancers diverge, converge or get stuck.',
  },
  health: { failing: 'Recent deliveries failed; retrying.', enabled: 'Delivering.' },
  deleteQuestion: (name) => `Delete the webhook endpoint ${name}? Its delivery log goes with it.`,
  logEmpty: 'No deliveries yet. Send a test event to check the receiver.',
  badgesAfter: (w) => (
    <>
      {w.secretRotating ? (
        <Badge p={{ label: 'Secret rotating', icon: 'rolling', tone: 'info', hint: 'both secrets sign' }} />
      ) : null}
      <span className="mono muted" style={{ overflowWrap: 'anywhere' }}>
        {w.url}
      </span>
    </>
  ),
  summary: (w) => (
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
    </p>
  ),
  form: {
    summary: 'Add a webhook endpoint',
    label: 'Add webhook endpoint',
    submit: 'Add endpoint',
    idPrefix: 'wh',
    eventsLegend: 'Events (none checked sends all)',
    eventTypes: EVENT_TYPES,
    initial: { url: '' },
    pointers: ['/url'],
    Fields: WebhookFields,
  },
};

/** The event types an alert can be filtered by, each once, in the order the alerts are listed. */
const ALERT_EVENT_TYPES = [...new Set(Object.values(ALERT_NAMES))];

function authFrom(type: string, username: string, credential: string): AlertSinkAuthInput {
  if (type === 'basic') return { type: 'basic', username, password: credential };
  if (type === 'bearer') return { type: 'bearer', token: credential };
  return { type: 'none' };
}

function SinkFields({ values: v, set, error }: FieldsProps) {
  const authType = v.authType ?? 'none';
  return (
    <>
      <div className="field">
        <label htmlFor="as-urls">Alertmanager URLs (one per line, every replica)</label>
        <textarea
          id="as-urls"
          rows={2}
          value={v.urls ?? ''}
          placeholder="https://alertmanager.example.com"
          onChange={(e) => set('urls', e.target.value)}
          aria-invalid={error('/urls') ? true : undefined}
        />
        <FieldError id="as-urls" message={error('/urls')} />
      </div>
      <div className="field">
        <label htmlFor="as-auth">Authentication</label>
        <select id="as-auth" value={authType} onChange={(e) => set('authType', e.target.value)}>
          <option value="none">None</option>
          <option value="basic">Basic (username and password)</option>
          <option value="bearer">Bearer token</option>
        </select>
      </div>
      {authType === 'basic' ? (
        <div className="field">
          <label htmlFor="as-user">Username</label>
          <input
            id="as-user"
            type="text"
            value={v.username ?? ''}
            onChange={(e) => set('username', e.target.value)}
          />
        </div>
      ) : null}
      {authType !== 'none' ? (
        <div className="field">
          <label htmlFor="as-secret">{authType === 'basic' ? 'Password' : 'Token'}</label>
          <input
            id="as-secret"
            type="password"
            autoComplete="off"
            value={v.credential ?? ''}
            placeholder="env:ALERTMANAGER_TOKEN"
            onChange={(e) => set('credential', e.target.value)}
            aria-invalid={error('/auth') ? true : undefined}
          />
          <span className="muted">
            env:NAME reads it from the server’s environment; a value is never shown again.
          </span>
          <FieldError id="as-secret" message={error('/auth')} />
        </div>
      ) : null}
      <div className="field">
        <label htmlFor="as-resend">Re-send every (seconds)</label>
        <input
          id="as-resend"
          type="number"
          min={10}
          value={v.resendS ?? ''}
          onChange={(e) => set('resendS', e.target.value)}
          aria-invalid={error('/resendIntervalMs') ? true : undefined}
        />
        <FieldError id="as-resend" message={error('/resendIntervalMs')} />
      </div>
    </>
  );
}

function describeAuth(s: AlertSink): string {
  if (s.auth.type === 'none') return 'no authentication';
  const from = s.auth.credential === 'stored' ? 'stored value' : (s.auth.credential ?? '');
  return s.auth.type === 'basic' ? `basic as ${s.auth.username ?? ''} (${from})` : `bearer (${from})`;
}

const sinkScreen: KindScreen<AlertSink> = {
  kind: 'alertmanager',
  href: '/alert-sinks',
  plural: 'Alert sinks',
  singular: 'Alert sink',
  what: 'alert sinks',
  testId: 'alert-sink',
  queryKey: queryKeys.alertSinks,
  resource: 'alert-sinks',
  useList: () => useQuery(alertSinksQuery(browserFetcher)),
  create: (common, v) =>
    createAlertSink(browserFetcher, {
      ...common,
      urls: (v.urls ?? '')
        .split(/\s+/)
        .map((u) => u.trim())
        .filter(Boolean),
      auth: authFrom(v.authType ?? 'none', (v.username ?? '').trim(), v.credential ?? ''),
      eventTypes: common.eventTypes as CreateAlertSinkInput['eventTypes'],
      resendIntervalMs: Math.round(Number(v.resendS) * 1000),
    }).then(() => ({})),
  setEnabled: (id, enabled) => updateAlertSink(browserFetcher, id, { enabled }),
  remove: (id) => deleteAlertSink(browserFetcher, id),
  useActions: () => ({ buttons: null, error: null }),
  gate: { add: 'Adding and changing alert sinks', change: 'Changing alert sinks' },
  empty: {
    title: 'No alert sinks',
    text: 'Add an Alertmanager above: non-uniform, unavailable and auth-gated balancers and stuck rollouts then arrive as alerts, re-sent while they fire and resolved when they clear.',
  },
  health: { failing: 'Recent pushes failed; retrying.', enabled: 'Pushing alerts.' },
  deleteQuestion: (name) => `Delete the alert sink ${name}? Its alerts and delivery log go with it.`,
  logEmpty: 'No pushes yet: the first goes out when an alert fires.',
  badgesBefore: () => (
    <Badge p={{ label: 'Alertmanager', icon: 'info', tone: 'info', hint: 'POST /api/v2/alerts' }} />
  ),
  badgesAfter: (s) => (
    <Badge
      p={
        s.firing > 0
          ? { label: `${s.firing} firing`, icon: 'alert', tone: 'bad', hint: 'Alerts firing at this sink.' }
          : { label: 'Nothing firing', icon: 'check', tone: 'ok', hint: 'No alert fires at this sink.' }
      }
    />
  ),
  summary: (s) => (
    <>
      <p style={{ margin: '0 0 6px' }}>
        {s.urls.map((u) => (
          <code key={u} style={{ marginRight: 8, overflowWrap: 'anywhere' }}>
            {u}
          </code>
        ))}
      </p>
      <p style={{ margin: '0 0 6px' }} className="muted">
        {describeAuth(s)} · re-sent every {Math.round(s.resendIntervalMs / 1000)} s · alerts of{' '}
        {s.eventTypes.length === 0 ? 'every event' : s.eventTypes.join(', ')} ·{' '}
        {s.balancerIds.length > 0 ? `${s.balancerIds.length} balancers` : 'all balancers'}
      </p>
    </>
  ),
  After: ({ endpoint }) => <SinkAlerts id={endpoint.id} />,
  form: {
    summary: 'Add an Alertmanager',
    label: 'Add alert sink',
    testId: 'add-alert-sink',
    submit: 'Add Alertmanager',
    idPrefix: 'as',
    eventsLegend: 'Alerts of these events (none checked sends all)',
    eventTypes: ALERT_EVENT_TYPES,
    initial: { urls: '', authType: 'none', username: '', credential: '', resendS: '60' },
    pointers: ['/urls', '/auth', '/resendIntervalMs'],
    Fields: SinkFields,
  },
};

/** A kind's screen as the shared screen sees it: each function only ever gets endpoints its own `useList`
 *  returned, so the endpoint type can be forgotten here. */
function erased<E extends EndpointCommon>(screen: KindScreen<E>): KindScreen<EndpointCommon> {
  return screen as unknown as KindScreen<EndpointCommon>;
}

export const KINDS: Record<EndpointKind, KindScreen<EndpointCommon>> = {
  webhook: erased(webhookScreen),
  alertmanager: erased(sinkScreen),
};

function SinkAlerts({ id }: { id: string }) {
  const alerts = useQuery(sinkAlertsQuery(browserFetcher, id));
  if (alerts.isPending) return <Loading what="alerts" />;
  if (!alerts.data) return <LoadError error={alerts.error} what="alerts" />;
  if (alerts.data.length === 0) return null;
  return (
    <div className="table-wrap">
      <table className="data" data-testid="sink-alerts">
        <thead>
          <tr>
            <th>Alert</th>
            <th>Balancer</th>
            <th>Severity</th>
            <th>State</th>
            <th>Since</th>
            <th>Summary</th>
          </tr>
        </thead>
        <tbody>
          {alerts.data.map((a) => (
            <tr
              key={a.fingerprint}
              data-testid="sink-alert"
              data-alertname={a.labels.alertname}
              data-status={a.status}
            >
              <td className="mono">{a.labels.alertname}</td>
              <td>{a.labels.balancer}</td>
              <td>{a.labels.severity}</td>
              <td>
                <Badge
                  p={
                    a.status === 'firing'
                      ? { label: 'Firing', icon: 'alert', tone: 'bad', hint: 'sent on every push' }
                      : {
                          label: 'Resolved',
                          icon: 'check',
                          tone: 'ok',
                          hint: 'sent with its endsAt for 15 minutes',
                        }
                  }
                />
              </td>
              <td className="nowrap">
                <Age at={a.status === 'firing' ? a.startsAt : (a.endsAt ?? a.startsAt)} />
              </td>
              <td>{a.annotations.summary}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
