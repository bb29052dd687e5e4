// A balancer's CA bundle given as `file:PATH`: read when a cycle plans its probes, and kept for a while so
// that a fleet of balancers sharing one bundle reads it once, not once per cycle (a new file is picked up
// within CA_FILE_TTL_MS).
import { readFileSync } from 'node:fs';

const CA_FILE_TTL_MS = 30_000;
const MAX_CA_FILE_BYTES = 512 * 1024;
const cache = new Map<string, { pem: string | null; readAt: number }>();

/** The file's text, or null when it cannot be read, is empty, too large, or holds no PEM certificate. */
export function readCaFile(path: string, now: number = Date.now()): string | null {
  const hit = cache.get(path);
  if (hit && now - hit.readAt < CA_FILE_TTL_MS) return hit.pem;
  let pem: string | null = null;
  try {
    const text = readFileSync(path, 'utf8');
    pem = text.length <= MAX_CA_FILE_BYTES && text.includes('-----BEGIN CERTIFICATE-----') ? text : null;
  } catch {
    pem = null;
  }
  if (cache.size >= 1_000) cache.clear();
  cache.set(path, { pem, readAt: now });
  return pem;
}
