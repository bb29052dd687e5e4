// Registering a balancer and changing it: its fields are validated and defaulted here (the contract in
// lib/schemas/balancer), a change's merged settings validated as a whole; the store keeps what it is given.
import type { Store } from '@/db';
import {
  insertBalancer,
  updateBalancerSettings,
  type Balancer,
  type StoredBalancerSettings,
} from '@/db/queries/balancers';
import { parseInput, parsePatch } from '@/lib/schemas/common';
import { CreateBalancerInput, UpdateBalancerInput, entryUrl } from '@/lib/schemas/balancer';

/** Validates and stores a new balancer. Bad input: ValidationError; a name taken: ConflictError. */
export function createBalancer(
  store: Store,
  input: CreateBalancerInput,
  now: number = Date.now(),
): Promise<Balancer> {
  return insertBalancer(store, parseInput(CreateBalancerInput, input), now);
}

/**
 * A change merged over the current settings. A new node list without `nodeNames` keeps the names of the URLs
 * it still lists (a name given with a URL in the list wins); `nodeNames` sent replaces them all.
 */
function mergeChanges(
  current: StoredBalancerSettings,
  changes: Partial<UpdateBalancerInput>,
): Record<string, unknown> {
  const merged: Record<string, unknown> = { ...current, ...changes };
  if (changes.nodeUrls !== undefined && changes.nodeNames === undefined) {
    const listed = new Set(changes.nodeUrls.map(entryUrl));
    merged.nodeNames = Object.fromEntries(
      Object.entries(current.nodeNames).filter(([url]) => listed.has(url)),
    );
  }
  return merged;
}

/**
 * Applies the fields a partial update sent: each is validated as sent, then the merged settings as a whole (a
 * timeout past the interval is refused even when only one of the two was sent). Unknown id: NotFoundError.
 */
export function updateBalancer(
  store: Store,
  id: string,
  patch: UpdateBalancerInput,
  now: number = Date.now(),
): Promise<Balancer> {
  const changes = parsePatch(UpdateBalancerInput, patch);
  return updateBalancerSettings(
    store,
    id,
    (current) => parseInput(CreateBalancerInput, mergeChanges(current, changes)),
    now,
  );
}
