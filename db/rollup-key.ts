// The rollup key: region id × 2^47 + hour number × 2^24 + node seq, one integer (the rowid). Within a region
// it is hour-major: the current hour's rows sit together and pruning is one range delete per region. Region
// 0 is `default`, so keys stored before regions keep their meaning. 64 regions, 2^23 hours and 2^24 nodes.

export const HOUR_MS = 3_600_000;
const NODE_SPACE = 2 ** 24;
const HOUR_SPACE = 2 ** 23;
const REGION_SPACE = 2 ** 47;
/** Region ids are 0 … MAX_REGION_ID (the key must stay below 2^53 to be exact in JavaScript). */
export const MAX_REGION_ID = 63;

export function hourOf(at: number): number {
  return Math.floor(at / HOUR_MS);
}

function checkRegion(regionId: number): void {
  if (!Number.isInteger(regionId) || regionId < 0 || regionId > MAX_REGION_ID)
    throw new RangeError(`region id out of range: ${regionId}`);
}

export function rollupKey(hour: number, seq: number, regionId = 0): number {
  if (!Number.isInteger(seq) || seq < 1 || seq >= NODE_SPACE)
    throw new RangeError(`node seq out of range: ${seq}`);
  checkRegion(regionId);
  return regionId * REGION_SPACE + hour * NODE_SPACE + seq;
}

export function splitRollupKey(key: number): { hour: number; seq: number; regionId: number } {
  const regionId = Math.floor(key / REGION_SPACE);
  const rest = key - regionId * REGION_SPACE;
  return { hour: Math.floor(rest / NODE_SPACE), seq: rest % NODE_SPACE, regionId };
}

/** The first key of an hour in a region: every key of the region below it belongs to earlier hours. */
export function firstKeyOfHour(hour: number, regionId = 0): number {
  checkRegion(regionId);
  return regionId * REGION_SPACE + Math.min(hour, HOUR_SPACE) * NODE_SPACE;
}

/** The first key past every key of a region. */
export function endKeyOfRegion(regionId: number): number {
  checkRegion(regionId);
  return (regionId + 1) * REGION_SPACE;
}

// Minute buckets for the last hours: a ring of MINUTE_SLOTS slots per (region, node), so the table is bounded
// by design (no pruning): a slot holds the minute it was last written for, and a write for a newer minute
// resets it. Key: (region id × 2^24 + node seq) × MINUTE_SLOTS + (minute mod MINUTE_SLOTS), below 2^39.
export const MINUTE_MS = 60_000;
/** Six hours of minutes. */
export const MINUTE_SLOTS = 360;

export function minuteOf(at: number): number {
  return Math.floor(at / MINUTE_MS);
}

/** The first key of a node's ring in a region; its slots are this key … + MINUTE_SLOTS − 1. */
export function minuteRingStart(seq: number, regionId = 0): number {
  if (!Number.isInteger(seq) || seq < 1 || seq >= NODE_SPACE)
    throw new RangeError(`node seq out of range: ${seq}`);
  checkRegion(regionId);
  return (regionId * NODE_SPACE + seq) * MINUTE_SLOTS;
}

export function minuteRollupKey(minute: number, seq: number, regionId = 0): number {
  return minuteRingStart(seq, regionId) + (((minute % MINUTE_SLOTS) + MINUTE_SLOTS) % MINUTE_SLOTS);
}
