// Registering a balancer and changing it: its fields are validated and defaulted here (the contract in
// lib/schemas/balancer), a change's merged settings validated as a whole; the store keeps what it is given.
import type { Store } from '@/db';
import { insertBalancer, updateBalancerSettings, type Balancer } from '@/db/queries/balancers';
import { parseInput, parsePatch } from '@/lib/schemas/common';
import { CreateBalancerInput, UpdateBalancerInput } from '@/lib/schemas/balancer';

/** Validates and stores a new balancer. Bad input: ValidationError; a name taken: ConflictError. */
export function createBalancer(
  store: Store,
  input: CreateBalancerInput,
  now: number = Date.now(),
): Promise<Balancer> {
  return insertBalancer(store, parseInput(CreateBalancerInput, input), now);
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
    (current) => parseInput(CreateBalancerInput, { ...current, ...changes }),
    now,
  );
}
