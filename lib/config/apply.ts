// Applies a validated config to the store, idempotently: entities are matched by name, created or updated
// only when a field differs, all in one transaction (an error leaves the previous state). Entities not in
// the file are left alone: the API may have registered them.
import type { Store } from '@/db/index';
import {
  insertAlertSink,
  findAlertSinkByName,
  updateAlertSink,
  type AlertSinkRow,
} from '@/db/queries/alert-sinks';
import { getBalancerByName, type Balancer } from '@/db/queries/balancers';
import { createBalancer, updateBalancer } from '@/lib/balancers';
import { listStdioTargetRows, upsertStdioTarget, type StdioTarget } from '@/db/queries/stdio-targets';
import { getWebhookByName, replaceWebhookSecret, updateWebhook } from '@/db/queries/webhooks';
import { createWebhook } from '@/lib/webhooks/endpoints';
import { NotFoundError } from '@/lib/errors';
import { canonicalJson } from '@/lib/probe/catalog';
import type { BalancerSettings } from '@/lib/schemas/balancer';
import type { ConfigFile } from '@/lib/schemas/config';
import { recordAudit } from '@/db/queries/audit';
import { fieldChanges } from '@/lib/schemas/audit';

const CONFIG_ACTOR = { kind: 'config', id: null, name: 'config file', address: null } as const;

/** A balancer's settings for the audit trail, which redacts header values and the client secret itself (and
 *  so records a change of one as `[changed]`). */
function shown(b: Balancer | null): Record<string, unknown> | null {
  if (!b) return null;
  return { ...settingsOf(b) };
}

/** A stdio target as the audit trail shows it: the environment's names, never its values. */
function shownStdio(t: StdioTarget | undefined): Record<string, unknown> | null {
  if (!t) return null;
  const { id: _id, env, envTemplates: _t, ...rest } = t;
  return { ...rest, env: Object.keys(env).sort() };
}

/** The config file's change of one subject, recorded in the apply's transaction. */
async function auditConfig(
  store: Store,
  now: number,
  operation: string,
  subject: { type: string; id: string; name: string },
  before: Record<string, unknown> | null,
  after: Record<string, unknown> | null,
): Promise<void> {
  await recordAudit(
    store,
    {
      actor: CONFIG_ACTOR,
      operation,
      subject,
      changes: fieldChanges(before, after, ['updatedAt', 'createdAt']),
    },
    now,
  );
}

export interface ApplySummary {
  created: string[];
  updated: string[];
  unchanged: string[];
}

function settingsOf(b: Balancer): BalancerSettings {
  const { id: _id, createdAt: _c, updatedAt: _u, ...settings } = b;
  return settings;
}

// Keys sorted: PostgreSQL's jsonb gives objects back in its own key order.
function sameJson(a: unknown, b: unknown): boolean {
  return canonicalJson(a) === canonicalJson(b);
}

async function findBalancer(store: Store, name: string): Promise<Balancer | null> {
  try {
    return await getBalancerByName(store, name);
  } catch (err) {
    if (err instanceof NotFoundError) return null;
    throw err;
  }
}

type Named = { name: string; enabled: boolean };

/** How the file's entries of one kind of endpoint (webhooks, alert sinks) meet the store's. */
interface EndpointEntries<W extends Named, C extends Named & { id: string }, F extends object> {
  /** `webhook`, `alert_sink`: the audit's subject type and the operation's prefix. */
  type: string;
  /** What the summary calls one: `webhook`, `alert sink`. */
  noun: string;
  find(name: string): Promise<C | null>;
  create(wanted: W): Promise<{ id: string; name: string }>;
  /** The fields the file sets, from the file and as stored (the same keys), compared as JSON. */
  fields(wanted: W): F;
  stored(current: C): { [K in keyof F]: unknown };
  update(id: string, patch: F & { enabled?: false }): Promise<{ enabled: boolean }>;
  /** A change beside the fields (a webhook's secret): what the audit shows, applied after the update. */
  beside?(wanted: W, current: C): { before: object; after: object; apply(): Promise<void> } | null;
}

/** Applies the file's endpoints of one kind; match by name, update only what differs. `enabled: true` does not
 *  re-enable an endpoint the delivery worker disabled (the API or UI does); `enabled: false` disables it. */
async function applyEndpoints<W extends Named, C extends Named & { id: string }, F extends object>(
  store: Store,
  entries: readonly W[],
  kind: EndpointEntries<W, C, F>,
  summary: ApplySummary,
  now: number,
): Promise<void> {
  for (const wanted of entries) {
    const label = `${kind.noun} '${wanted.name}'`;
    const current = await kind.find(wanted.name);
    if (!current) {
      const made = await kind.create(wanted);
      await auditConfig(
        store,
        now,
        `${kind.type}.create`,
        { type: kind.type, id: made.id, name: made.name },
        null,
        made,
      );
      summary.created.push(label);
      continue;
    }
    const { id, name, enabled } = current;
    const fields = kind.fields(wanted);
    const stored = kind.stored(current);
    const disable = wanted.enabled === false && enabled;
    const beside = kind.beside?.(wanted, current) ?? null;
    if (sameJson(fields, stored) && !disable && !beside) {
      summary.unchanged.push(label);
      continue;
    }
    const after = await kind.update(id, { ...fields, ...(disable ? { enabled: false as const } : {}) });
    await auditConfig(
      store,
      now,
      `${kind.type}.update`,
      { type: kind.type, id, name },
      { ...stored, enabled, ...beside?.before },
      { ...fields, enabled: after.enabled, ...beside?.after },
    );
    await beside?.apply();
    summary.updated.push(label);
  }
}

type WebhookEntry = ConfigFile['webhooks'][number];
type WebhookRow = NonNullable<Awaited<ReturnType<typeof getWebhookByName>>>;
type WebhookFields = Pick<WebhookEntry, 'url' | 'description' | 'eventTypes' | 'balancerIds'>;

function webhookEntries(store: Store, now: number): EndpointEntries<WebhookEntry, WebhookRow, WebhookFields> {
  return {
    type: 'webhook',
    noun: 'webhook',
    find: (name) => getWebhookByName(store, name),
    create: (wanted) => createWebhook(store, wanted, now),
    fields: (w) => ({
      url: w.url,
      description: w.description,
      eventTypes: w.eventTypes,
      balancerIds: w.balancerIds,
    }),
    stored: (c) => ({
      url: c.url,
      description: c.description,
      eventTypes: c.eventTypes,
      balancerIds: c.balancerIds,
    }),
    update: (id, patch) => updateWebhook(store, id, patch, now),
    beside(wanted, current) {
      const secret = wanted.secret;
      if (secret === undefined || secret === current.secret) return null;
      return {
        before: { secret: 'old' },
        after: { secret: 'new' },
        apply: () => replaceWebhookSecret(store, current.id, secret),
      };
    },
  };
}

type AlertSinkEntry = ConfigFile['alertSinks'][number];
type AlertSinkFields = Pick<
  AlertSinkEntry,
  'urls' | 'auth' | 'description' | 'eventTypes' | 'balancerIds' | 'resendIntervalMs'
>;

function alertSinkEntries(
  store: Store,
  now: number,
): EndpointEntries<AlertSinkEntry, AlertSinkRow, AlertSinkFields> {
  return {
    type: 'alert_sink',
    noun: 'alert sink',
    find: (name) => findAlertSinkByName(store, name),
    create: (wanted) => insertAlertSink(store, wanted, now),
    fields: (w) => ({
      urls: w.urls,
      auth: w.auth,
      description: w.description,
      eventTypes: w.eventTypes,
      balancerIds: w.balancerIds,
      resendIntervalMs: w.resendIntervalMs,
    }),
    stored: (c) => ({
      urls: c.alertmanager.urls,
      auth: c.alertmanager.auth,
      description: c.description,
      eventTypes: c.eventTypes,
      balancerIds: c.balancerIds,
      resendIntervalMs: c.alertmanager.resendIntervalMs,
    }),
    update: (id, patch) => updateAlertSink(store, id, patch, now),
  };
}

/** `stdioEnvTemplates` (from loadConfigFile) records which env values came from `${VAR}`, for export. */
export async function applyConfig(
  store: Store,
  config: ConfigFile & { stdioEnvTemplates?: Record<string, Record<string, string>> },
  now: number = Date.now(),
): Promise<ApplySummary> {
  const summary: ApplySummary = { created: [], updated: [], unchanged: [] };
  await store.write(async () => {
    for (const wanted of config.balancers) {
      const label = `balancer '${wanted.name}'`;
      const current = await findBalancer(store, wanted.name);
      if (!current) {
        const made = await createBalancer(store, wanted, now);
        await auditConfig(
          store,
          now,
          'balancer.create',
          { type: 'balancer', id: made.id, name: made.name },
          null,
          shown(made),
        );
        summary.created.push(label);
      } else if (!sameJson(settingsOf(current), { ...settingsOf(current), ...wanted })) {
        const after = await updateBalancer(store, current.id, wanted, now);
        await auditConfig(
          store,
          now,
          'balancer.update',
          { type: 'balancer', id: current.id, name: current.name },
          shown(current),
          shown(after),
        );
        summary.updated.push(label);
      } else summary.unchanged.push(label);
    }
    await applyEndpoints(store, config.webhooks, webhookEntries(store, now), summary, now);
    await applyEndpoints(store, config.alertSinks, alertSinkEntries(store, now), summary, now);
    const stdioBefore = new Map((await listStdioTargetRows(store)).map((t) => [t.name, t]));
    for (const wanted of config.stdio) {
      const result = await upsertStdioTarget(
        store,
        wanted,
        config.stdioEnvTemplates?.[wanted.name] ?? {},
        now,
      );
      summary[result].push(`stdio target '${wanted.name}'`);
      if (result === 'unchanged') continue;
      const after = (await listStdioTargetRows(store)).find((t) => t.name === wanted.name);
      await auditConfig(
        store,
        now,
        `stdio_target.${result === 'created' ? 'create' : 'update'}`,
        { type: 'stdio_target', id: after?.id ?? wanted.name, name: wanted.name },
        shownStdio(stdioBefore.get(wanted.name)),
        shownStdio(after),
      );
    }
  });
  return summary;
}
