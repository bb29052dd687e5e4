'use client';
// The endpoints screen, one for both kinds (webhooks and alert sinks share one outbox): the add form, the
// list and each endpoint's panel with its health, actions and delivery log. What differs by kind (its
// fields, its badges, its extra actions) comes from the kind's entry in kinds.tsx.
import { useMutation, useQueryClient } from '@tanstack/react-query';
import Link from 'next/link';
import { useState, type FormEvent } from 'react';
import { ActionError } from '@/components/balancers/balancer-actions';
import { EventTypeChecks } from '@/components/events/event-type-checks';
import { Badge } from '@/components/ui/badge';
import { Icon } from '@/components/ui/icon';
import { RoleGate } from '@/components/session/role';
import { LoadError, Loading } from '@/components/ui/query-state';
import { queryKeys } from '@/lib/query/options';
import { ApiProblem } from '@/lib/query/problem';
import type { Presentation } from '@/lib/ui/presentation';
import { DeliveryLog } from './delivery-log';
import { FieldError } from './field-error';
import { KINDS, type EndpointCommon, type EndpointKind, type KindScreen } from './kinds';

export function EndpointsView({ kind }: { kind: EndpointKind }) {
  return <Endpoints screen={KINDS[kind]} />;
}

/** Switches between the two kinds' screens. */
function KindSwitch({ current }: { current: EndpointKind }) {
  return (
    <nav className="form-actions" aria-label="Endpoint kind" style={{ marginBottom: 12 }}>
      {(Object.keys(KINDS) as EndpointKind[]).map((k) => (
        <Link
          key={k}
          href={KINDS[k].href}
          className={`btn btn-small${k === current ? ' btn-primary' : ''}`}
          aria-current={k === current ? 'page' : undefined}
        >
          {KINDS[k].plural}
        </Link>
      ))}
    </nav>
  );
}

function Endpoints({ screen }: { screen: KindScreen<EndpointCommon> }) {
  const list = screen.useList();
  const [secret, setSecret] = useState<{ value: string; what: string } | null>(null);
  return (
    <>
      <KindSwitch current={screen.kind} />
      {secret ? <SecretOnce secret={secret.value} what={secret.what} onDone={() => setSecret(null)} /> : null}
      <RoleGate need="operator" what={screen.gate.add}>
        <EndpointForm
          screen={screen}
          onSecret={(value, name) => setSecret({ value, what: `Signing secret of ${name}.` })}
        />
      </RoleGate>
      {list.error && !list.data ? <LoadError error={list.error} what={screen.what} /> : null}
      {list.isPending ? <Loading what={screen.what} /> : null}
      {list.data && list.data.length === 0 ? (
        <div className="panel empty">
          <h2>{screen.empty.title}</h2>
          <p>{screen.empty.text}</p>
        </div>
      ) : null}
      {(list.data ?? []).map((e) => (
        <EndpointPanel
          key={e.id}
          screen={screen}
          endpoint={e}
          onSecret={(value) => setSecret({ value, what: `New signing secret of ${e.name}.` })}
        />
      ))}
    </>
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

function EndpointForm({
  screen,
  onSecret,
}: {
  screen: KindScreen<EndpointCommon>;
  onSecret: (secret: string, name: string) => void;
}) {
  const client = useQueryClient();
  const [name, setName] = useState('');
  const [types, setTypes] = useState<string[]>([]);
  const [extra, setExtra] = useState<Record<string, string>>(screen.form.initial);
  const create = useMutation({
    mutationFn: () => screen.create({ name, eventTypes: types }, extra),
    onSuccess: (created) => {
      if (created.secret) onSecret(created.secret, name);
      setName('');
      setTypes([]);
      setExtra(screen.form.initial);
      return client.invalidateQueries({ queryKey: screen.queryKey });
    },
  });
  const problem = create.error instanceof ApiProblem ? create.error : null;
  const fieldError = (pointer: string) => problem?.fieldMessage(pointer) ?? null;
  const nameError = fieldError('/name') ?? (problem?.status === 409 ? problem.detail : null);
  const typesError = fieldError('/eventTypes');
  const shown = [nameError, typesError, ...screen.form.pointers.map(fieldError)].some(Boolean);
  const nameId = `${screen.form.idPrefix}-name`;
  const submit = (e: FormEvent) => {
    e.preventDefault();
    create.mutate();
  };
  return (
    <details className="panel" open={false} data-testid={screen.form.testId}>
      <summary className="panel-head" style={{ cursor: 'pointer' }}>
        <Icon name="info" /> {screen.form.summary}
      </summary>
      <form className="form panel-body" onSubmit={submit} noValidate aria-label={screen.form.label}>
        <div className="field-row">
          <div className="field">
            <label htmlFor={nameId}>Name</label>
            <input
              id={nameId}
              type="text"
              value={name}
              onChange={(e) => setName(e.target.value)}
              aria-invalid={nameError ? true : undefined}
            />
            <FieldError id={nameId} message={nameError} />
          </div>
          <screen.form.Fields
            values={extra}
            set={(key, value) => setExtra((cur) => ({ ...cur, [key]: value }))}
            error={fieldError}
          />
        </div>
        <EventTypeChecks
          legend={screen.form.eventsLegend}
          options={screen.form.eventTypes}
          selected={types}
          onChange={setTypes}
          error={typesError}
        />
        <ActionError error={create.error && !shown ? create.error : null} />
        <div className="form-actions">
          <button type="submit" className="btn btn-primary" disabled={create.isPending}>
            {screen.form.submit}
          </button>
        </div>
      </form>
    </details>
  );
}

function EndpointPanel({
  screen,
  endpoint: e,
  onSecret,
}: {
  screen: KindScreen<EndpointCommon>;
  endpoint: EndpointCommon;
  onSecret: (secret: string) => void;
}) {
  const client = useQueryClient();
  const [showLog, setShowLog] = useState(true);
  const refresh = () =>
    Promise.all([
      client.invalidateQueries({ queryKey: screen.queryKey }),
      client.invalidateQueries({ queryKey: queryKeys.deliveries(e.id) }),
    ]);
  const toggle = useMutation({ mutationFn: () => screen.setEnabled(e.id, !e.enabled), onSettled: refresh });
  const remove = useMutation({ mutationFn: () => screen.remove(e.id), onSettled: refresh });
  const extra = screen.useActions(e, { refresh, onSecret });
  const state: Presentation = e.enabled
    ? e.failingSince
      ? { label: 'Failing', icon: 'degraded', tone: 'warn', hint: screen.health.failing }
      : { label: 'Enabled', icon: 'check', tone: 'ok', hint: screen.health.enabled }
    : { label: 'Disabled', icon: 'unavailable', tone: 'bad', hint: e.disabledReason ?? 'disabled' };
  return (
    <section
      className="panel"
      aria-label={`${screen.singular} ${e.name}`}
      data-testid={screen.testId}
      data-name={e.name}
    >
      <div className="panel-head" style={{ flexWrap: 'wrap' }}>
        <h2>{e.name}</h2>
        {screen.badgesBefore?.(e)}
        <Badge p={state} />
        {screen.badgesAfter(e)}
        <span style={{ flex: 1 }} />
        <RoleGate need="operator" what={screen.gate.change} quiet>
          {extra.buttons}
          <button
            type="button"
            className="btn btn-small"
            onClick={() => toggle.mutate()}
            disabled={toggle.isPending}
          >
            {e.enabled ? 'Disable' : 'Enable'}
          </button>
          <button
            type="button"
            className="btn btn-small btn-danger"
            onClick={() => {
              if (window.confirm(screen.deleteQuestion(e.name))) remove.mutate();
            }}
          >
            Delete
          </button>
        </RoleGate>
      </div>
      <div className="panel-body">
        {screen.summary(e)}
        {!e.enabled && e.disabledReason ? (
          <p className="field-error" style={{ margin: '0 0 6px' }}>
            <Icon name="alert" /> {e.disabledReason}
          </p>
        ) : null}
        <ActionError error={extra.error ?? toggle.error ?? remove.error} />
        <button
          type="button"
          className="btn btn-small"
          onClick={() => setShowLog((s) => !s)}
          aria-expanded={showLog}
        >
          {showLog ? 'Hide delivery log' : 'Show delivery log'}
        </button>
      </div>
      {screen.After ? <screen.After endpoint={e} /> : null}
      {showLog ? <DeliveryLog endpointId={e.id} resource={screen.resource} empty={screen.logEmpty} /> : null}
    </section>
  );
}
