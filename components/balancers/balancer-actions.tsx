'use client';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import Link from 'next/link';
import { useRouter } from 'next/navigation';
import { useRef, useState, type FormEvent } from 'react';
import { Icon } from '@/components/ui/icon';
import { RoleGate } from '@/components/session/role';
import { browserFetcher } from '@/lib/query/fetch-json';
import { closeRolloutWindow, deleteBalancer, openRolloutWindow, probeBalancer } from '@/lib/query/mutations';
import { queryKeys } from '@/lib/query/options';
import { ApiProblem } from '@/lib/query/problem';
import type { BalancerDetail } from '@/lib/query/types';

function errorText(err: unknown): string {
  if (err instanceof ApiProblem) return err.detail ?? err.title;
  return err instanceof Error ? err.message : String(err);
}

export function ActionError({ error }: { error: unknown }) {
  if (!error) return null;
  return (
    <p className="field-error" role="alert">
      <Icon name="alert" /> {errorText(error)}
    </p>
  );
}

export function BalancerActions({ balancer }: { balancer: BalancerDetail }) {
  return (
    <RoleGate need="operator" what="Probing, editing and deleting a balancer">
      <OperatorActions balancer={balancer} />
    </RoleGate>
  );
}

function OperatorActions({ balancer: b }: { balancer: BalancerDetail }) {
  const client = useQueryClient();
  const router = useRouter();
  const dialogRef = useRef<HTMLDialogElement>(null);
  const probe = useMutation({
    mutationFn: () => probeBalancer(browserFetcher, b.id),
    onSettled: () => client.invalidateQueries({ queryKey: queryKeys.balancer(b.id) }),
  });
  const remove = useMutation({
    mutationFn: () => deleteBalancer(browserFetcher, b.id),
    onSuccess: async () => {
      dialogRef.current?.close();
      client.removeQueries({ queryKey: queryKeys.balancer(b.id) });
      await client.invalidateQueries({ queryKey: queryKeys.fleet });
      router.push('/');
    },
  });
  return (
    <div style={{ display: 'grid', gap: 4, justifyItems: 'end' }}>
      <div className="form-actions" role="group" aria-label="Balancer actions">
        <button type="button" className="btn" onClick={() => probe.mutate()} disabled={probe.isPending}>
          <Icon name="rolling" /> {probe.isPending ? 'Probing…' : 'Probe now'}
        </button>
        <Link className="btn" href={`/balancers/${encodeURIComponent(b.id)}/edit`}>
          Edit
        </Link>
        <button type="button" className="btn btn-danger" onClick={() => dialogRef.current?.showModal()}>
          Delete
        </button>
      </div>
      <ActionError error={probe.error} />
      {probe.isSuccess ? (
        <span className="muted" role="status">
          Probe cycle finished.
        </span>
      ) : null}
      <dialog ref={dialogRef} aria-labelledby="delete-h">
        <h2 id="delete-h">Delete {b.name}?</h2>
        <p>
          This removes the balancer with its nodes, history, events and rollout windows. Probing stops. This
          cannot be undone.
        </p>
        <ActionError error={remove.error} />
        <div className="form-actions">
          <button
            type="button"
            className="btn btn-danger"
            onClick={() => remove.mutate()}
            disabled={remove.isPending}
          >
            {remove.isPending ? 'Deleting…' : `Delete ${b.name}`}
          </button>
          <button type="button" className="btn" onClick={() => dialogRef.current?.close()} autoFocus>
            Cancel
          </button>
        </div>
      </dialog>
    </div>
  );
}

const TARGET_KINDS = {
  negotiatedVersion: 'every node negotiates',
  supportedIncludes: 'every node serves',
} as const;
type TargetKind = keyof typeof TARGET_KINDS;

/** Open a window (target revision and deadline) or close the open one. */
export function WindowControls({ balancer }: { balancer: BalancerDetail }) {
  return (
    <RoleGate need="operator" what="Opening and closing a rollout window">
      <OperatorWindowControls balancer={balancer} />
    </RoleGate>
  );
}

function OperatorWindowControls({ balancer: b }: { balancer: BalancerDetail }) {
  const client = useQueryClient();
  const [kind, setKind] = useState<TargetKind>('negotiatedVersion');
  const [revision, setRevision] = useState('2026-07-28');
  const [hours, setHours] = useState('2');
  const [formOpen, setFormOpen] = useState(false);
  const refresh = () => client.invalidateQueries({ queryKey: queryKeys.balancer(b.id) });
  const open = useMutation({
    mutationFn: (input: { target: Record<string, string>; deadline: number }) =>
      openRolloutWindow(browserFetcher, b.id, input),
    onSuccess: () => setFormOpen(false),
    onSettled: refresh,
  });
  const windowId = b.window?.id ?? null;
  const close = useMutation({
    mutationFn: (id: string) => closeRolloutWindow(browserFetcher, id),
    onSettled: refresh,
  });

  if (windowId) {
    return (
      <div style={{ marginTop: 8 }}>
        <button
          type="button"
          className="btn"
          onClick={() => close.mutate(windowId)}
          disabled={close.isPending}
        >
          Close rollout window
        </button>
        <ActionError error={close.error} />
      </div>
    );
  }
  if (!formOpen) {
    return (
      <button type="button" className="btn" onClick={() => setFormOpen(true)}>
        Open rollout window…
      </button>
    );
  }
  const submit = (e: FormEvent) => {
    e.preventDefault();
    const h = Number(hours);
    open.mutate({
      target: { [kind]: revision.trim() },
      deadline: Date.now() + (Number.isFinite(h) ? h : 0) * 3_600_000,
    });
  };
  const problem = open.error instanceof ApiProblem ? open.error : null;
  const targetError = problem?.fieldMessage('/target') ?? null;
  const deadlineError = problem?.fieldMessage('/deadline') ?? null;
  return (
    <form className="form" onSubmit={submit} aria-label="Open rollout window" noValidate>
      <div className="field-row">
        <div className="field">
          <label htmlFor="win-kind">Target</label>
          <select id="win-kind" value={kind} onChange={(e) => setKind(e.target.value as TargetKind)}>
            {Object.entries(TARGET_KINDS).map(([k, label]) => (
              <option key={k} value={k}>
                {label}
              </option>
            ))}
          </select>
        </div>
        <div className="field">
          <label htmlFor="win-rev">Revision</label>
          <input
            id="win-rev"
            type="text"
            value={revision}
            onChange={(e) => setRevision(e.target.value)}
            aria-invalid={targetError ? true : undefined}
            aria-describedby={targetError ? 'win-rev-err' : undefined}
          />
          {targetError ? (
            <span id="win-rev-err" className="field-error">
              <Icon name="alert" /> {targetError}
            </span>
          ) : null}
        </div>
        <div className="field">
          <label htmlFor="win-hours">Deadline in hours</label>
          <input
            id="win-hours"
            type="number"
            min="0.1"
            step="0.5"
            value={hours}
            onChange={(e) => setHours(e.target.value)}
            aria-invalid={deadlineError ? true : undefined}
            aria-describedby={deadlineError ? 'win-hours-err' : undefined}
          />
          {deadlineError ? (
            <span id="win-hours-err" className="field-error">
              <Icon name="alert" /> {deadlineError}
            </span>
          ) : null}
        </div>
      </div>
      {problem && !targetError && !deadlineError ? <ActionError error={problem} /> : null}
      {open.error && !problem ? <ActionError error={open.error} /> : null}
      <div className="form-actions">
        <button type="submit" className="btn btn-primary" disabled={open.isPending}>
          Open window
        </button>
        <button type="button" className="btn" onClick={() => setFormOpen(false)}>
          Cancel
        </button>
      </div>
    </form>
  );
}
