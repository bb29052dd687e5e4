// Applies a validated config to the store, idempotently: entities are matched by name, created or updated
// only when a field differs, all in one transaction (an error leaves the previous state). Entities not in
// the file are left alone: the API may have registered them.
import type { Store } from '@/db/index';
import { createAlertSink, findAlertSinkByName, updateAlertSink } from '@/db/queries/alert-sinks';
import { createBalancer, getBalancerByName, updateBalancer, type Balancer } from '@/db/queries/balancers';
import { listStdioTargetRows, upsertStdioTarget, type StdioTarget } from '@/db/queries/stdio-targets';
import { getWebhookByName, replaceWebhookSecret, updateWebhook } from '@/db/queries/webhooks';
import { createWebhook } from '@/lib/webhooks/endpoints';
import { NotFoundError } from '@/lib/errors';
import { canonicalJson } from '@/lib/probe/catalog';
import type { BalancerSettings } from '@/lib/schemas/balancer';
import type { ConfigFile } from '@/lib/schemas/config';
import { redactAuth, redactHeaders } from '@/lib/schemas/balancer-view';
import { fieldChanges, recordAudit } from '@/db/queries/audit';

const CONFIG_ACTOR = { kind: 'config', id: null, name: 'config file', address: null } as const;

/** A balancer's settings as the audit trail shows them: header values and the client secret redacted. */
function shown(b: Balancer | null): Record<string, unknown> | null {
  if (!b) return null;
  return { ...settingsOf(b), headers: redactHeaders(b.headers), auth: redactAuth(b.auth) };
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

/** `stdioEnvTemplates` (from loadConfigFile) records which env values came from `${VAR}`, for export. */
/** Applies the file's alert sinks after the rest; match by name, update only what differs. */
async function applyAlertSinks(
  store: Store,
  config: ConfigFile,
  summary: ApplySummary,
  now: number,
): Promise<void> {
  for (const wanted of config.alertSinks) {
    const label = `alert sink '${wanted.name}'`;
    const current = await findAlertSinkByName(store, wanted.name);
    if (!current) {
      const made = await createAlertSink(store, wanted, now);
      await auditConfig(
        store,
        now,
        'alert_sink.create',
        { type: 'alert_sink', id: made.id, name: made.name },
        null,
        made,
      );
      summary.created.push(label);
      continue;
    }
    const fields = {
      urls: wanted.urls,
      auth: wanted.auth,
      description: wanted.description,
      eventTypes: wanted.eventTypes,
      balancerIds: wanted.balancerIds,
      resendIntervalMs: wanted.resendIntervalMs,
    };
    const stored = {
      urls: current.alertmanager.urls,
      auth: current.alertmanager.auth,
      description: current.description,
      eventTypes: current.eventTypes,
      balancerIds: current.balancerIds,
      resendIntervalMs: current.alertmanager.resendIntervalMs,
    };
    // As for webhooks, `enabled: true` does not re-enable a sink the delivery worker disabled.
    const disable = wanted.enabled === false && current.enabled;
    if (sameJson(fields, stored) && !disable) {
      summary.unchanged.push(label);
      continue;
    }
    const after = await updateAlertSink(
      store,
      current.id,
      { ...fields, ...(disable ? { enabled: false } : {}) },
      now,
    );
    await auditConfig(
      store,
      now,
      'alert_sink.update',
      { type: 'alert_sink', id: current.id, name: current.name },
      { ...stored, enabled: current.enabled },
      { ...fields, enabled: after.enabled },
    );
    summary.updated.push(label);
  }
}

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
    for (const wanted of config.webhooks) {
      const label = `webhook '${wanted.name}'`;
      const current = await getWebhookByName(store, wanted.name);
      if (!current) {
        const made = await createWebhook(store, wanted, now);
        await auditConfig(
          store,
          now,
          'webhook.create',
          { type: 'webhook', id: made.id, name: made.name },
          null,
          made,
        );
        summary.created.push(label);
        continue;
      }
      // `enabled: true` does not re-enable an endpoint the delivery worker disabled; the API or UI does.
      const fields = {
        url: wanted.url,
        description: wanted.description,
        eventTypes: wanted.eventTypes,
        balancerIds: wanted.balancerIds,
      };
      const stored = {
        url: current.url,
        description: current.description,
        eventTypes: current.eventTypes,
        balancerIds: current.balancerIds,
      };
      const disable = wanted.enabled === false && current.enabled;
      const newSecret = wanted.secret !== undefined && wanted.secret !== current.secret;
      if (sameJson(fields, stored) && !disable && !newSecret) {
        summary.unchanged.push(label);
        continue;
      }
      const after = await updateWebhook(
        store,
        current.id,
        { ...fields, ...(disable ? { enabled: false } : {}) },
        now,
      );
      await auditConfig(
        store,
        now,
        'webhook.update',
        { type: 'webhook', id: current.id, name: current.name },
        { ...stored, enabled: current.enabled, ...(newSecret ? { secret: 'old' } : {}) },
        { ...fields, enabled: after.enabled, ...(newSecret ? { secret: 'new' } : {}) },
      );
      if (newSecret && wanted.secret !== undefined) {
        await replaceWebhookSecret(store, current.id, wanted.secret);
      }
      summary.updated.push(label);
    }
    await applyAlertSinks(store, config, summary, now);
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
