// Audited writes: the change and its audit entry in one transaction. A handler runs its change in `audited`,
// returning the subject and its representation before and after (the API's views, secrets redacted); the
// entry names who made it (the principal) and from where (the client address).
import type { Store } from '@/db/index';
import { recordAudit } from '@/db/queries/audit';
import { fieldChanges } from '@/lib/schemas/audit';
import { getWebhookRow } from '@/db/queries/webhooks';
import type { AuditActor } from '@/lib/schemas/audit';
import type { Settings } from '@/lib/settings';
import { clientAddress } from './front-door';
import type { Principal } from './with-api';

/** Who made a change, and from which client address (through the trusted-proxy rule). */
export function actorOf(
  principal: Principal,
  req: Request | null,
  settings: Pick<Settings, 'trustedProxies'>,
): AuditActor {
  const address = req ? clientAddress(req, settings) : null;
  switch (principal.kind) {
    case 'session':
      return principal.user
        ? {
            kind: 'user',
            id: principal.user.sub,
            name: principal.user.email ?? principal.user.name,
            address,
          }
        : { kind: 'admin_secret', id: null, name: null, address };
    case 'admin':
      return { kind: 'admin_secret', id: null, name: null, address };
    case 'token':
      return { kind: 'token', id: principal.id, name: principal.name, address };
    case 'local':
    case 'anonymous':
      return { kind: 'local', id: null, name: null, address };
  }
}

export interface AuditedChange<T> {
  subject: { id: string; name: string | null };
  before: Record<string, unknown> | null;
  after: Record<string, unknown> | null;
  result: T;
}

export interface AuditContext {
  store: Store;
  principal: Principal;
  req: Request;
  now: number;
  settings: Pick<Settings, 'trustedProxies'>;
  /** Who the entry names when it is not the principal: a refused sign-in acts on its subject's behalf. */
  actor?: AuditActor;
}

function actorOfContext(ctx: AuditContext): AuditActor {
  return ctx.actor ?? actorOf(ctx.principal, ctx.req, ctx.settings);
}

/** Fields of a view that are state, not configuration: they change without anyone changing them. */
const STATE_FIELDS = [
  'id',
  'updatedAt',
  'createdAt',
  'analysis',
  'nodes',
  'state',
  'lastDeliveryAt',
  'failingSince',
];

/** Runs `change` and records its audit entry in the same transaction. */
export function audited<T>(
  ctx: AuditContext,
  what: { operation: string; subjectType: string; ignore?: readonly string[] },
  change: () => Promise<AuditedChange<T>>,
): Promise<T> {
  return ctx.store.write(async () => {
    const done = await change();
    await recordAudit(
      ctx.store,
      {
        actor: actorOfContext(ctx),
        operation: what.operation,
        subject: { type: what.subjectType, ...done.subject },
        changes: fieldChanges(done.before, done.after, [...STATE_FIELDS, ...(what.ignore ?? [])]),
      },
      ctx.now,
    );
    return done.result;
  });
}

/**
 * Records an action that changes no configuration (probe now, a test send, a redelivery) in a transaction of
 * its own, before it runs: the action waits on other processes and must not hold a write open meanwhile.
 */
export async function auditAction(
  ctx: AuditContext,
  operation: string,
  subject: { type: string; id: string; name: string | null },
  detail: Record<string, unknown> = {},
): Promise<void> {
  await recordAudit(
    ctx.store,
    {
      actor: actorOfContext(ctx),
      operation,
      subject,
      changes: Object.fromEntries(Object.entries(detail).map(([k, v]) => [k, { before: null, after: v }])),
    },
    ctx.now,
  );
}

/** A redelivery queued in the same transaction as its audit entry. */
export function auditedRedeliver<T>(
  ctx: AuditContext & { params: { id: string; deliveryId: string } },
  type: 'webhook' | 'alert_sink',
  queue: () => Promise<T>,
): Promise<T> {
  return audited(ctx, { operation: `${type}.redeliver`, subjectType: type }, async () => {
    const row = await getWebhookRow(ctx.store, ctx.params.id, 'any');
    const result = await queue();
    return {
      subject: { id: row.id, name: row.name },
      before: null,
      after: { deliveryId: ctx.params.deliveryId },
      result,
    };
  });
}
