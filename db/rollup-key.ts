// The rollup key: hour number × 2^24 + node seq, one integer (the rowid). Hour-major keeps the current
// hour's rows together and makes pruning one range delete; 2^24 nodes and ~2^29 hours fit in 2^53.

export const HOUR_MS = 3_600_000;
const NODE_SPACE = 2 ** 24;

export function hourOf(at: number): number {
  return Math.floor(at / HOUR_MS);
}

export function rollupKey(hour: number, seq: number): number {
  if (!Number.isInteger(seq) || seq < 1 || seq >= NODE_SPACE)
    throw new RangeError(`node seq out of range: ${seq}`);
  return hour * NODE_SPACE + seq;
}

export function splitRollupKey(key: number): { hour: number; seq: number } {
  return { hour: Math.floor(key / NODE_SPACE), seq: key % NODE_SPACE };
}

/** The first key of an hour: every key below it belongs to earlier hours. */
export function firstKeyOfHour(hour: number): number {
  return hour * NODE_SPACE;
}
