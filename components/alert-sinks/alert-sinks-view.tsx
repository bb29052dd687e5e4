'use client';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { ActionError } from '@/components/balancers/balancer-actions';
import { RoleGate } from '@/components/session/role';
import { EventTypeChecks } from '@/components/events/event-type-checks';
import { Age } from '@/components/ui/age';
import { Badge } from '@/components/ui/badge';
import { Icon } from '@/components/ui/icon';
import { LoadError, Loading } from '@/components/ui/query-state';
import { DeliveryLog } from '@/components/webhooks/webhooks-view';
import { browserFetcher } from '@/lib/query/fetch-json';
import { createAlertSink, deleteAlertSink, updateAlertSink } from '@/lib/query/mutations';
import { alertSinksQuery, queryKeys, sinkAlertsQuery } from '@/lib/query/options';
import { ApiProblem } from '@/lib/query/problem';
import {
  ALERT_NAMES,
  type AlertSink,
  type AlertSinkAuthInput,
  type CreateAlertSinkInput,
} from '@/lib/schemas/alert-sink';
import type { Presentation } from '@/lib/ui/presentation';

/** The event types an alert can be filtered by, each once, in the order the alerts are listed. */
const ALERT_EVENT_TYPES = [...new Set(Object.values(ALERT_NAMES))];

export function AlertSinksView() {
  const sinks = useQuery(alertSinksQuery(browserFetcher));
  return (
    <>
      <RoleGate need="operator" what="Adding and changing alert sinks">
        <CreateAlertSink />
      </RoleGate>
      {sinks.error && !sinks.data ? <LoadError error={sinks.error} what="alert sinks" /> : null}
      {sinks.isPending ? <Loading what="alert sinks" /> : null}
      {sinks.data && sinks.data.length === 0 ? (
        <div className="panel empty">
          <h2>No alert sinks</h2>
          <p>
            Add an Alertmanager above: non-uniform, unavailable and auth-gated balancers and stuck rollouts
            then arrive as alerts, re-sent while they fire and resolved when they clear.
          </p>
        </div>
      ) : null}
      {(sinks.data ?? []).map((s) => (
        <Sink key={s.id} sink={s} />
      ))}
    </>
  );
}

function authFrom(type: string, username: string, credential: string): AlertSinkAuthInput {
  if (type === 'basic') return { type: 'basic', username, password: credential };
  if (type === 'bearer') return { type: 'bearer', token: credential };
  return { type: 'none' };
}

function CreateAlertSink() {
  const client = useQueryClient();
  const [name, setName] = useState('');
  const [urls, setUrls] = useState('');
  const [authType, setAuthType] = useState('none');
  const [username, setUsername] = useState('');
  const [credential, setCredential] = useState('');
  const [resendS, setResendS] = useState('60');
  const [types, setTypes] = useState<string[]>([]);
  const create = useMutation({
    mutationFn: (input: CreateAlertSinkInput) => createAlertSink(browserFetcher, input),
    onSuccess: () => {
      setName('');
      setUrls('');
      setAuthType('none');
      setUsername('');
      setCredential('');
      setResendS('60');
      setTypes([]);
      return client.invalidateQueries({ queryKey: queryKeys.alertSinks });
    },
  });
  const problem = create.error instanceof ApiProblem ? create.error : null;
  const field = (pointer: string) => problem?.fieldMessage(pointer) ?? null;
  const nameError = field('/name') ?? (problem?.status === 409 ? problem.detail : null);
  const urlsError = field('/urls');
  const authError = field('/auth');
  const resendError = field('/resendIntervalMs');
  const other = create.error && !nameError && !urlsError && !authError && !resendError ? create.error : null;
  const submit = (e: FormEvent) => {
    e.preventDefault();
    create.mutate({
      name,
      urls: urls
        .split(/\s+/)
        .map((u) => u.trim())
        .filter(Boolean),
      auth: authFrom(authType, username.trim(), credential),
      eventTypes: types as CreateAlertSinkInput['eventTypes'],
      resendIntervalMs: Math.round(Number(resendS) * 1000),
    });
  };
  const err = (id: string, message: string | null) =>
    message ? (
      <span className="field-error" data-testid={`error-${id}`}>
        <Icon name="alert" /> {message}
      </span>
    ) : null;
  return (
    <details className="panel" open={false} data-testid="add-alert-sink">
      <summary className="panel-head" style={{ cursor: 'pointer' }}>
        <Icon name="info" /> Add an Alertmanager
      </summary>
      <form className="form panel-body" onSubmit={submit} noValidate aria-label="Add alert sink">
        <div className="field-row">
          <div className="field">
            <label htmlFor="as-name">Name</label>
            <input
              id="as-name"
              type="text"
              value={name}
              onChange={(e) => setName(e.target.value)}
              aria-invalid={nameError ? true : undefined}
            />
            {err('as-name', nameError)}
          </div>
          <div className="field">
            <label htmlFor="as-urls">Alertmanager URLs (one per line, every replica)</label>
            <textarea
              id="as-urls"
              rows={2}
              value={urls}
              placeholder="https://alertmanager.example.com"
              onChange={(e) => setUrls(e.target.value)}
              aria-invalid={urlsError ? true : undefined}
            />
            {err('as-urls', urlsError)}
          </div>
        </div>
        <div className="field-row">
          <div className="field">
            <label htmlFor="as-auth">Authentication</label>
            <select id="as-auth" value={authType} onChange={(e) => setAuthType(e.target.value)}>
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
                value={username}
                onChange={(e) => setUsername(e.target.value)}
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
                value={credential}
                placeholder="env:ALERTMANAGER_TOKEN"
                onChange={(e) => setCredential(e.target.value)}
                aria-invalid={authError ? true : undefined}
              />
              <span className="muted">
                env:NAME reads it from the server’s environment; a value is never shown again.
              </span>
              {err('as-secret', authError)}
            </div>
          ) : null}
          <div className="field">
            <label htmlFor="as-resend">Re-send every (seconds)</label>
            <input
              id="as-resend"
              type="number"
              min={10}
              value={resendS}
              onChange={(e) => setResendS(e.target.value)}
              aria-invalid={resendError ? true : undefined}
            />
            {err('as-resend', resendError)}
          </div>
        </div>
        <EventTypeChecks
          legend="Alerts of these events (none checked sends all)"
          options={ALERT_EVENT_TYPES}
          selected={types}
          onChange={setTypes}
        />
        <ActionError error={other} />
        <div className="form-actions">
          <button type="submit" className="btn btn-primary" disabled={create.isPending}>
            Add Alertmanager
          </button>
        </div>
      </form>
    </details>
  );
}

function describeAuth(s: AlertSink): string {
  if (s.auth.type === 'none') return 'no authentication';
  const from = s.auth.credential === 'stored' ? 'stored value' : (s.auth.credential ?? '');
  return s.auth.type === 'basic' ? `basic as ${s.auth.username ?? ''} (${from})` : `bearer (${from})`;
}

function Sink({ sink: s }: { sink: AlertSink }) {
  const client = useQueryClient();
  const refresh = () =>
    Promise.all([
      client.invalidateQueries({ queryKey: queryKeys.alertSinks }),
      client.invalidateQueries({ queryKey: queryKeys.deliveries(s.id) }),
    ]);
  const toggle = useMutation({
    mutationFn: () => updateAlertSink(browserFetcher, s.id, { enabled: !s.enabled }),
    onSettled: refresh,
  });
  const remove = useMutation({ mutationFn: () => deleteAlertSink(browserFetcher, s.id), onSettled: refresh });
  const state: Presentation = s.enabled
    ? s.failingSince
      ? { label: 'Failing', icon: 'degraded', tone: 'warn', hint: 'Recent pushes failed; retrying.' }
      : { label: 'Enabled', icon: 'check', tone: 'ok', hint: 'Pushing alerts.' }
    : { label: 'Disabled', icon: 'unavailable', tone: 'bad', hint: s.disabledReason ?? 'disabled' };
  const firing: Presentation =
    s.firing > 0
      ? { label: `${s.firing} firing`, icon: 'alert', tone: 'bad', hint: 'Alerts firing at this sink.' }
      : { label: 'Nothing firing', icon: 'check', tone: 'ok', hint: 'No alert fires at this sink.' };
  return (
    <section
      className="panel"
      aria-label={`Alert sink ${s.name}`}
      data-testid="alert-sink"
      data-name={s.name}
    >
      <div className="panel-head" style={{ flexWrap: 'wrap' }}>
        <h2>{s.name}</h2>
        <Badge p={{ label: 'Alertmanager', icon: 'info', tone: 'info', hint: 'POST /api/v2/alerts' }} />
        <Badge p={state} />
        <Badge p={firing} />
        <span style={{ flex: 1 }} />
        <RoleGate need="operator" what="Changing alert sinks" quiet>
          <button
            type="button"
            className="btn btn-small"
            onClick={() => toggle.mutate()}
            disabled={toggle.isPending}
          >
            {s.enabled ? 'Disable' : 'Enable'}
          </button>
          <button
            type="button"
            className="btn btn-small btn-danger"
            onClick={() => {
              if (window.confirm(`Delete the alert sink ${s.name}? Its alerts and delivery log go with it.`))
                remove.mutate();
            }}
          >
            Delete
          </button>
        </RoleGate>
      </div>
      <div className="panel-body">
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
        {!s.enabled && s.disabledReason ? (
          <span className="field-error">
            <Icon name="alert" /> {s.disabledReason}
          </span>
        ) : null}
        <ActionError error={toggle.error ?? remove.error} />
      </div>
      <SinkAlerts id={s.id} />
      <h3 className="panel-body" style={{ margin: 0, paddingBottom: 0 }}>
        Delivery log
      </h3>
      <DeliveryLog
        endpointId={s.id}
        resource="alert-sinks"
        empty="No pushes yet: the first goes out when an alert fires."
      />
    </section>
  );
}

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
