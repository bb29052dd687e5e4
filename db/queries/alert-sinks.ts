// Alert sinks (Alertmanager) and the alerts each one knows of. A sink is a row of the webhook endpoint table
// with kind `alertmanager`, so its pushes go through the same outbox, retry schedule and delivery log.
import { and, desc, eq, inArray, isNotNull, lt, or, sql, count } from 'drizzle-orm';
import { ConflictError, NotFoundError } from '@/lib/errors';
import type { AlertSubject, DesiredAlert, KnownAlert } from '@/lib/schemas/alert-sink';
import { parseStoredAnalysis } from '@/lib/schemas/stored';
import type {
  AlertSink,
  AlertSinkAuthInput,
  AlertSinkAuthView,
  AlertSinkSettings,
  SinkAlert,
} from '@/lib/schemas/alert-sink';
import type { NodeIdentity } from '@/lib/schemas/balancer-view';
import { firstRow, type Db, type Store } from '../index';
import { newId } from '../ids';
import { type WebhookEndpointRow } from '../schema';

/** The delivery type of one push of a sink's alerts. */
export const ALERT_PUSH_TYPE = 'alertmanager.push';

function authView(auth: AlertSinkAuthInput): AlertSinkAuthView {
  const shown = (v: string) => (v.startsWith('env:') ? v : 'stored');
  switch (auth.type) {
    case 'none':
      return { type: 'none', username: null, credential: null };
    case 'basic':
      return { type: 'basic', username: auth.username, credential: shown(auth.password) };
    case 'bearer':
      return { type: 'bearer', username: null, credential: shown(auth.token) };
  }
}

export interface AlertSinkRow extends WebhookEndpointRow {
  alertmanager: NonNullable<WebhookEndpointRow['alertmanager']>;
}

function asSinkRow(row: WebhookEndpointRow | undefined): AlertSinkRow | null {
  if (!row || row.kind !== 'alertmanager' || !row.alertmanager) return null;
  return { ...row, alertmanager: row.alertmanager };
}

async function firingCount(store: Store, tx: Db, endpointId: string): Promise<number> {
  const { sinkAlerts } = store.t;
  const [row] = await tx
    .select({ n: count() })
    .from(sinkAlerts)
    .where(and(eq(sinkAlerts.endpointId, endpointId), sql`${sinkAlerts.endsAt} IS NULL`));
  return row?.n ?? 0;
}

async function toAlertSink(store: Store, tx: Db, row: AlertSinkRow): Promise<AlertSink> {
  return {
    id: row.id,
    name: row.name,
    kind: 'alertmanager',
    urls: row.alertmanager.urls,
    auth: authView(row.alertmanager.auth),
    description: row.description,
    eventTypes: row.eventTypes,
    balancerIds: row.balancerIds,
    resendIntervalMs: row.alertmanager.resendIntervalMs,
    enabled: row.enabled,
    disabledReason: row.disabledReason,
    failingSince: row.failingSince,
    firing: await firingCount(store, tx, row.id),
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  };
}

async function sinkRow(store: Store, tx: Db, id: string): Promise<AlertSinkRow> {
  const { webhookEndpoints } = store.t;
  const row = asSinkRow((await tx.select().from(webhookEndpoints).where(eq(webhookEndpoints.id, id)))[0]);
  if (!row) throw new NotFoundError('alert sink', id);
  return row;
}

async function assertNameFree(store: Store, tx: Db, name: string, exceptId: string | null): Promise<void> {
  const { webhookEndpoints } = store.t;
  const [clash] = await tx
    .select({ id: webhookEndpoints.id, kind: webhookEndpoints.kind })
    .from(webhookEndpoints)
    .where(eq(webhookEndpoints.name, name));
  if (clash && clash.id !== exceptId) {
    throw new ConflictError(
      `${clash.kind === 'webhook' ? 'a webhook' : 'an alert sink'} named '${name}' already exists`,
    );
  }
}

/** Stores a sink as lib/alertmanager/sinks validated it. */
export async function insertAlertSink(
  store: Store,
  s: AlertSinkSettings,
  now: number = Date.now(),
): Promise<AlertSink> {
  const { webhookEndpoints } = store.t;
  return store.write(async (tx) => {
    await assertNameFree(store, tx, s.name, null);
    const row = firstRow(
      await tx
        .insert(webhookEndpoints)
        .values({
          id: newId('ams'),
          kind: 'alertmanager',
          name: s.name,
          url: s.urls[0] ?? '',
          alertmanager: { urls: s.urls, auth: s.auth, resendIntervalMs: s.resendIntervalMs },
          description: s.description,
          eventTypes: s.eventTypes,
          balancerIds: s.balancerIds,
          secret: '',
          enabled: s.enabled,
          createdAt: now,
          updatedAt: now,
        })
        .returning(),
    );
    const sink = asSinkRow(row);
    if (!sink) throw new Error('alert sink row not written');
    return await toAlertSink(store, tx, sink);
  });
}

export async function listAlertSinks(store: Store): Promise<AlertSink[]> {
  const { webhookEndpoints } = store.t;
  const rows = await store.read((db) =>
    db
      .select()
      .from(webhookEndpoints)
      .where(eq(webhookEndpoints.kind, 'alertmanager'))
      .orderBy(webhookEndpoints.name),
  );
  const out: AlertSink[] = [];
  for (const r of rows) {
    const sink = asSinkRow(r);
    if (sink) out.push(await store.read((db) => toAlertSink(store, db, sink)));
  }
  return out;
}

export async function getAlertSink(store: Store, id: string): Promise<AlertSink> {
  return store.read(async (db) => toAlertSink(store, db, await sinkRow(store, db, id)));
}

/** The stored row, literal credentials included: for sending and for config export only. */
export async function getAlertSinkRow(store: Store, id: string): Promise<AlertSinkRow> {
  return store.read((db) => sinkRow(store, db, id));
}

export async function findAlertSinkByName(store: Store, name: string): Promise<AlertSinkRow | null> {
  const { webhookEndpoints } = store.t;
  return asSinkRow(
    (await store.read((db) => db.select().from(webhookEndpoints).where(eq(webhookEndpoints.name, name))))[0],
  );
}

/** Applies `p` (validated fields, only those to change). Re-enabling clears the disabled reason and the failure
 *  run. */
export async function updateAlertSink(
  store: Store,
  id: string,
  p: Partial<AlertSinkSettings>,
  now: number = Date.now(),
): Promise<AlertSink> {
  const { webhookEndpoints } = store.t;
  return store.write(async (tx) => {
    const current = await sinkRow(store, tx, id);
    if (p.name !== undefined) await assertNameFree(store, tx, p.name, id);
    const am = {
      urls: p.urls ?? current.alertmanager.urls,
      auth: p.auth ?? current.alertmanager.auth,
      resendIntervalMs: p.resendIntervalMs ?? current.alertmanager.resendIntervalMs,
    };
    const reenable = p.enabled === true && !current.enabled;
    const disable = p.enabled === false && current.enabled;
    await tx
      .update(webhookEndpoints)
      .set({
        ...(p.name !== undefined ? { name: p.name } : {}),
        ...(p.description !== undefined ? { description: p.description } : {}),
        ...(p.eventTypes ? { eventTypes: p.eventTypes } : {}),
        ...(p.balancerIds ? { balancerIds: p.balancerIds } : {}),
        ...(reenable ? { enabled: true, disabledReason: null, disabledAt: null, failingSince: null } : {}),
        ...(disable ? { enabled: false, disabledReason: 'disabled by an operator', disabledAt: now } : {}),
        url: am.urls[0] ?? current.url,
        alertmanager: am,
        updatedAt: now,
      })
      .where(eq(webhookEndpoints.id, id));
    return await toAlertSink(store, tx, await sinkRow(store, tx, id));
  });
}

export async function deleteAlertSink(store: Store, id: string): Promise<void> {
  const { webhookEndpoints } = store.t;
  await store.write(async (tx) => {
    await sinkRow(store, tx, id);
    await tx.delete(webhookEndpoints).where(eq(webhookEndpoints.id, id));
  });
}

export async function listEnabledAlertSinkRows(store: Store): Promise<AlertSinkRow[]> {
  const { webhookEndpoints } = store.t;
  return (
    await store.read((db) =>
      db
        .select()
        .from(webhookEndpoints)
        .where(and(eq(webhookEndpoints.kind, 'alertmanager'), eq(webhookEndpoints.enabled, true))),
    )
  ).flatMap((r) => {
    const sink = asSinkRow(r);
    return sink ? [sink] : [];
  });
}

/** A balancer that may raise alerts, with the identity of each of its nodes by id (the caller labels them). */
export type AlertSubjectRow = Omit<AlertSubject, 'nodeLabels'> & { nodes: Record<string, NodeIdentity> };

/**
 * Balancers whose latest analysis may raise an alert (non-uniform, degraded, down or stuck), with their names
 * and nodes. Healthy uniform balancers raise nothing and are not read.
 */
export async function readAlertSubjects(store: Store): Promise<AlertSubjectRow[]> {
  const { balancerStates, balancers, nodes } = store.t;
  const rows = await store.read((db) =>
    db
      .select({
        id: balancers.id,
        name: balancers.name,
        analysis: balancerStates.analysis,
        analyzedAt: balancerStates.analyzedAt,
      })
      .from(balancerStates)
      .innerJoin(balancers, eq(balancers.id, balancerStates.balancerId))
      .where(
        or(
          eq(balancerStates.status, 'non-uniform'),
          eq(balancerStates.degraded, true),
          inArray(balancerStates.displayStatus, ['stuck', 'down']),
        ),
      ),
  );
  if (rows.length === 0) return [];
  const labelRows = await store.read((db) =>
    db
      .select({
        id: nodes.id,
        balancerId: nodes.balancerId,
        origin: nodes.origin,
        url: nodes.url,
        servedBy: nodes.servedBy,
        address: nodes.address,
        name: nodes.name,
      })
      .from(nodes)
      .where(
        inArray(
          nodes.balancerId,
          rows.map((r) => r.id),
        ),
      ),
  );
  return rows.map((r) => {
    const analysis = parseStoredAnalysis(r.analysis, null, r.analyzedAt);
    const identities = Object.fromEntries(
      labelRows
        .filter((n) => n.balancerId === r.id)
        .map(({ id, balancerId: _b, ...identity }) => [id, identity]),
    );
    return { balancerId: r.id, balancerName: r.name, analysis, nodes: identities };
  });
}

/** An alert a sink knows of, as alert sync compares it with what fires now. */
export interface StoredSinkAlert {
  fingerprint: string;
  annotations: Record<string, string>;
  generatorUrl: string;
  /** Null while firing. */
  endsAt: number | null;
}

/** Whether the sink knows of any alert, firing or resolved. */
export async function sinkHasAlerts(store: Store, endpointId: string): Promise<boolean> {
  const { sinkAlerts } = store.t;
  const rows = await store.read((db) =>
    db
      .select({ fp: sinkAlerts.fingerprint })
      .from(sinkAlerts)
      .where(eq(sinkAlerts.endpointId, endpointId))
      .limit(1),
  );
  return rows.length > 0;
}

/** Every alert the sink knows of, for alert sync (lib/alertmanager/sync.ts), inside its transaction. */
export async function readStoredSinkAlerts(store: Store, endpointId: string): Promise<StoredSinkAlert[]> {
  const { sinkAlerts: a } = store.t;
  return store.read((db) =>
    db
      .select({
        fingerprint: a.fingerprint,
        annotations: a.annotations,
        generatorUrl: a.generatorUrl,
        endsAt: a.endsAt,
      })
      .from(a)
      .where(eq(a.endpointId, endpointId)),
  );
}

/** What alert sync decided for one sink's alerts, for the store to write. */
export interface SinkAlertWrites {
  /** Alerts the sink did not know of: stored firing from now. */
  started: readonly DesiredAlert[];
  /** Known alerts to rewrite (labels, annotations, link); `revived` ones fire again from now. */
  updated: ReadonlyArray<{ alert: DesiredAlert; revived: boolean }>;
  /** Fingerprints of firing alerts that resolved now. */
  resolved: readonly string[];
  /** Resolved alerts that ended before this are forgotten. */
  forgetResolvedBefore: number;
}

/** Writes one sink's alert changes in one transaction; returns how many alerts the sink still knows of. */
export async function writeSinkAlerts(
  store: Store,
  endpointId: string,
  writes: SinkAlertWrites,
  now: number,
): Promise<number> {
  const { sinkAlerts } = store.t;
  return store.write(async (tx) => {
    const fields = (d: DesiredAlert) => ({
      labels: d.labels,
      annotations: d.annotations,
      generatorUrl: d.generatorUrl,
      updatedAt: now,
    });
    for (const d of writes.started) {
      await tx.insert(sinkAlerts).values({
        endpointId,
        fingerprint: d.fingerprint,
        balancerId: d.balancerId,
        alertname: d.alertname,
        startsAt: now,
        endsAt: null,
        ...fields(d),
      });
    }
    for (const { alert, revived } of writes.updated) {
      await tx
        .update(sinkAlerts)
        .set({ ...fields(alert), ...(revived ? { startsAt: now, endsAt: null } : {}) })
        .where(and(eq(sinkAlerts.endpointId, endpointId), eq(sinkAlerts.fingerprint, alert.fingerprint)));
    }
    if (writes.resolved.length > 0) {
      await tx
        .update(sinkAlerts)
        .set({ endsAt: now, updatedAt: now })
        .where(
          and(eq(sinkAlerts.endpointId, endpointId), inArray(sinkAlerts.fingerprint, [...writes.resolved])),
        );
    }
    await tx
      .delete(sinkAlerts)
      .where(
        and(
          eq(sinkAlerts.endpointId, endpointId),
          isNotNull(sinkAlerts.endsAt),
          lt(sinkAlerts.endsAt, writes.forgetResolvedBefore),
        ),
      );
    const [left] = await tx
      .select({ n: count() })
      .from(sinkAlerts)
      .where(eq(sinkAlerts.endpointId, endpointId));
    return left?.n ?? 0;
  });
}

/** A sink's push that waits to be sent (a first attempt, or a retry). */
export interface PendingPush {
  id: string;
  attempts: number;
  nextAttemptAt: number | null;
}

/** The sink's pending push, if any. */
export async function readPendingPush(store: Store, endpointId: string): Promise<PendingPush | null> {
  const { webhookDeliveries: d } = store.t;
  const [row] = await store.read((db) =>
    db
      .select({ id: d.id, attempts: d.attempts, nextAttemptAt: d.nextAttemptAt })
      .from(d)
      .where(and(eq(d.endpointId, endpointId), eq(d.type, ALERT_PUSH_TYPE), eq(d.status, 'pending')))
      .limit(1),
  );
  return row ?? null;
}

/** When the sink's latest push was queued, null before its first. */
export async function lastPushQueuedAt(store: Store, endpointId: string): Promise<number | null> {
  const { webhookDeliveries: d } = store.t;
  const [row] = await store.read((db) =>
    db
      .select({ at: d.createdAt })
      .from(d)
      .where(and(eq(d.endpointId, endpointId), eq(d.type, ALERT_PUSH_TYPE)))
      .orderBy(desc(d.createdAt))
      .limit(1),
  );
  return row?.at ?? null;
}

/** Makes a pending push due at `now`. */
export async function pushNow(store: Store, deliveryId: string, now: number): Promise<void> {
  const { webhookDeliveries: d } = store.t;
  await store.write((tx) => tx.update(d).set({ nextAttemptAt: now }).where(eq(d.id, deliveryId)));
}

/** Queues a push of the sink's alerts, due at `now` (its body is read when it is sent). */
export async function queuePush(store: Store, endpointId: string, now: number): Promise<void> {
  const { webhookDeliveries } = store.t;
  await store.write((tx) =>
    tx.insert(webhookDeliveries).values({
      id: newId('msg'),
      endpointId,
      eventId: null,
      balancerId: null,
      type: ALERT_PUSH_TYPE,
      payload: '[]',
      status: 'pending',
      attempts: 0,
      nextAttemptAt: now,
      createdAt: now,
    }),
  );
}

/** Every alert the sink knows of, firing first: the body of its next push. */
export async function readSinkAlerts(
  store: Store,
  endpointId: string,
): Promise<Array<KnownAlert & SinkAlert>> {
  const { sinkAlerts } = store.t;
  return (
    await store.read((db) =>
      db
        .select()
        .from(sinkAlerts)
        .where(eq(sinkAlerts.endpointId, endpointId))
        .orderBy(sql`${sinkAlerts.endsAt} IS NOT NULL`, sinkAlerts.startsAt, sinkAlerts.fingerprint),
    )
  ).map((r) => ({
    fingerprint: r.fingerprint,
    status: r.endsAt === null ? ('firing' as const) : ('resolved' as const),
    labels: r.labels,
    annotations: r.annotations,
    generatorUrl: r.generatorUrl,
    startsAt: r.startsAt,
    endsAt: r.endsAt,
  }));
}

/** Keeps the body a push actually sent, so the delivery log can show it. */
export async function recordPushPayload(store: Store, deliveryId: string, payload: string): Promise<void> {
  const { webhookDeliveries } = store.t;
  await store.write(async (tx) => {
    await tx.update(webhookDeliveries).set({ payload }).where(eq(webhookDeliveries.id, deliveryId));
  });
}
