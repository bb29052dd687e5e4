// Applies a validated config to the store, idempotently: entities are matched by name, created or updated
// only when a field differs, all in one transaction (an error leaves the previous state). Entities not in
// the file are left alone: the API may have registered them.
import { eq } from 'drizzle-orm';
import { writeTransaction, type Store } from '@/db/index';
import { createBalancer, getBalancerByName, updateBalancer, type Balancer } from '@/db/queries/balancers';
import { upsertStdioTarget } from '@/db/queries/stdio-targets';
import { createWebhook, getWebhookByName, updateWebhook } from '@/db/queries/webhooks';
import { webhookEndpoints } from '@/db/schema/webhooks';
import { NotFoundError } from '@/lib/errors';
import type { BalancerSettings } from '@/lib/schemas/balancer';
import type { ConfigFile } from '@/lib/schemas/config';

export interface ApplySummary {
  created: string[];
  updated: string[];
  unchanged: string[];
}

function settingsOf(b: Balancer): BalancerSettings {
  const { id: _id, createdAt: _c, updatedAt: _u, ...settings } = b;
  return settings;
}

function sameJson(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

function findBalancer(store: Store, name: string): Balancer | null {
  try {
    return getBalancerByName(store, name);
  } catch (err) {
    if (err instanceof NotFoundError) return null;
    throw err;
  }
}

/** `stdioEnvTemplates` (from loadConfigFile) records which env values came from `${VAR}`, for export. */
export function applyConfig(
  store: Store,
  config: ConfigFile & { stdioEnvTemplates?: Record<string, Record<string, string>> },
  now: number = Date.now(),
): ApplySummary {
  const summary: ApplySummary = { created: [], updated: [], unchanged: [] };
  writeTransaction(store, (tx) => {
    for (const wanted of config.balancers) {
      const label = `balancer '${wanted.name}'`;
      const current = findBalancer(store, wanted.name);
      if (!current) {
        createBalancer(store, wanted, now);
        summary.created.push(label);
      } else if (!sameJson(settingsOf(current), { ...settingsOf(current), ...wanted })) {
        updateBalancer(store, current.id, wanted, now);
        summary.updated.push(label);
      } else summary.unchanged.push(label);
    }
    for (const wanted of config.webhooks) {
      const label = `webhook '${wanted.name}'`;
      const current = getWebhookByName(store, wanted.name);
      if (!current) {
        createWebhook(store, wanted, now);
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
      updateWebhook(store, current.id, { ...fields, ...(disable ? { enabled: false } : {}) }, now);
      if (newSecret) {
        tx.update(webhookEndpoints)
          .set({ secret: wanted.secret, previousSecret: null, previousSecretUntil: null })
          .where(eq(webhookEndpoints.id, current.id))
          .run();
      }
      summary.updated.push(label);
    }
    for (const wanted of config.stdio) {
      const result = upsertStdioTarget(tx, wanted, config.stdioEnvTemplates?.[wanted.name] ?? {}, now);
      summary[result].push(`stdio target '${wanted.name}'`);
    }
  });
  return summary;
}
