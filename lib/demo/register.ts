// Registers the demo balancers through the store, idempotently: a second run updates the existing rows
// (the fleet's ports may have changed) instead of failing on the duplicate name.
import type { Store } from '@/db';
import { deleteBalancer, getBalancerByName, type Balancer } from '@/db/queries/balancers';
import { createBalancer, updateBalancer } from '@/lib/balancers';
import { getOpenWindow, openRolloutWindow } from '@/db/queries/rollouts';
import { NotFoundError } from '@/lib/errors';
import { CreateBalancerInput } from '@/lib/schemas/balancer';

export interface Registration {
  balancer: Balancer;
  action: 'created' | 'updated';
}

export async function registerDemoBalancers(
  store: Store,
  inputs: readonly CreateBalancerInput[],
  now: number = Date.now(),
): Promise<Registration[]> {
  const out: Registration[] = [];
  for (const input of inputs) {
    const existing = await findBalancer(store, input.name);
    if (!existing) {
      out.push({ balancer: await createBalancer(store, input, now), action: 'created' });
      continue;
    }
    // Send every setting (defaults included), so a demo balancer edited by hand is reset to the demo's.
    const full = CreateBalancerInput.safeParse(input);
    out.push({
      balancer: await updateBalancer(store, existing.id, full.success ? full.data : input, now),
      action: 'updated',
    });
  }
  return out;
}

async function findBalancer(store: Store, name: string): Promise<Balancer | null> {
  try {
    return await getBalancerByName(store, name);
  } catch (err) {
    if (err instanceof NotFoundError) return null;
    throw err;
  }
}

/** Deletes the named balancers with all their history (nodes, events, rollups); returns the names removed. */
export async function resetDemoBalancers(store: Store, names: readonly string[]): Promise<string[]> {
  const removed: string[] = [];
  for (const name of names) {
    const existing = await findBalancer(store, name);
    if (!existing) continue;
    await deleteBalancer(store, existing.id);
    removed.push(name);
  }
  return removed;
}

/** What the scripted rollout moves the search nodes to: the modern-only build, on 2026-07-28. */
export const DEMO_ROLLOUT_TARGET = {
  era: 'modern',
  negotiatedVersion: '2026-07-28',
  servedEras: 'modern-only',
} as const;

/**
 * Opens the rollout window the scripted rollout runs in, so the dashboard shows progress toward a declared
 * target; an open window left by an earlier run is kept. Returns the window's id.
 */
export async function openDemoRolloutWindow(
  store: Store,
  balancerId: string,
  durationMs: number,
  now: number = Date.now(),
): Promise<string> {
  const open = await getOpenWindow(store, balancerId);
  if (open) return open.id;
  const w = await openRolloutWindow(
    store,
    balancerId,
    { target: { ...DEMO_ROLLOUT_TARGET }, deadline: now + durationMs },
    now,
  );
  return w.id;
}
