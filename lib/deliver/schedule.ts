// When to try again. The delays follow the Standard Webhooks recommendation (about 27 hours in all); each is
// spread by ±20 % so that many endpoints failing together do not retry in lockstep.

/** Delay before attempt n+1 after n failed attempts (index n-1). After the last, the delivery fails. */
export const RETRY_DELAYS_MS = [
  5_000,
  5 * 60_000,
  30 * 60_000,
  2 * 3_600_000,
  5 * 3_600_000,
  10 * 3_600_000,
  10 * 3_600_000,
] as const;

export const MAX_ATTEMPTS = RETRY_DELAYS_MS.length + 1;
export const ATTEMPT_TIMEOUT_MS = 15_000;
export const JITTER = 0.2;

/** Null when no attempt is left; `random` in [0, 1). */
export function retryDelayMs(failedAttempts: number, random: number): number | null {
  const base = RETRY_DELAYS_MS[failedAttempts - 1];
  if (base === undefined) return null;
  return Math.round(base * (1 - JITTER + 2 * JITTER * random));
}
