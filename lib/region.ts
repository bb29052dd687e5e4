// A region's name: the rule every region name follows (the settings' ERAWATCH_REGION, a balancer's regions).
// Foundation: lib/settings and lib/rollout both take it from here.
export const DEFAULT_REGION = 'default';
export const REGION_PATTERN = /^[a-z0-9-]{1,63}$/;
export const REGION_RULE = 'lowercase letters, digits and -, 1 to 63 characters';

/** Null when `value` is a valid region name, else what is wrong with it. */
export function regionProblem(value: unknown): string | null {
  if (typeof value !== 'string') return 'must be a string';
  if (value === '') return 'must not be empty';
  if (value.length > 63) return `must be at most 63 characters (got ${value.length})`;
  if (!REGION_PATTERN.test(value)) return `must use ${REGION_RULE}`;
  return null;
}
