// Fingerprints: the comparable part of a verdict, and a short stable key for it.
import type { Verdict } from '@/lib/probe/types';
import type { Fingerprint } from './types';

/** Distinct revisions, newest first. Revisions are ISO dates, so code-unit order is date order. */
export function normalizeRevisions(revisions: readonly string[]): string[] {
  // Most lists arrive already distinct and newest first (sortRevisions): copy them without a Set and sort.
  let ordered = true;
  for (let i = 1; i < revisions.length && ordered; i++) {
    ordered = (revisions[i - 1] ?? '') > (revisions[i] ?? '');
  }
  if (ordered) return revisions.slice();
  return [...new Set(revisions)].sort((a, b) => (a < b ? 1 : a > b ? -1 : 0));
}

/** Null for an unavailable verdict: it has nothing comparable to offer. */
export function fingerprintOf(v: Verdict): Fingerprint | null {
  if (v.verdict === 'unavailable') return null;
  return {
    era: v.verdict,
    negotiatedVersion: v.negotiatedVersion,
    supported: normalizeRevisions(v.supported),
    servedEras: v.servedEras,
    serverName: v.serverInfo?.name ?? null,
    serverVersion: v.serverInfo?.version ?? null,
    catalogDigest: v.catalog?.digest ?? null,
  };
}

// Two 32-bit FNV-1a lanes with different offsets, each through a murmur3 finaliser: 64 bits, enough
// to keep the handful of fingerprints one fleet shows apart, and identical in the browser and in Node.
function hashLane(text: string, offset: number): number {
  let h = offset >>> 0;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

export function hashText(text: string): string {
  const hex = (n: number) => n.toString(16).padStart(8, '0');
  return hex(hashLane(text, 0x811c9dc5)) + hex(hashLane(text, 0x050c5d1f));
}

/**
 * The canonical text a key is hashed from; `supported` is order-insensitive and deduplicated. A fingerprint
 * without a catalog hashes as before catalogs existed, so stored keys stay valid where the catalog is off.
 */
export function canonicalFingerprint(fp: Fingerprint): string {
  const parts: unknown[] = [
    fp.era,
    fp.negotiatedVersion,
    normalizeRevisions(fp.supported),
    fp.servedEras,
    fp.serverName,
    fp.serverVersion,
  ];
  if (fp.catalogDigest) parts.push(fp.catalogDigest);
  return JSON.stringify(parts);
}

// A fleet shows a handful of fingerprints, each thousands of times a cycle: remember their keys (bounded).
const keyOfCanonical = new Map<string, string>();
const KEY_MEMO_LIMIT = 1_024;

/** Short and stable, e.g. `fp_3f1c0a9b52e4d670`. */
export function fingerprintKey(fp: Fingerprint): string {
  const canonical = canonicalFingerprint(fp);
  let key = keyOfCanonical.get(canonical);
  if (key === undefined) {
    key = `fp_${hashText(canonical)}`;
    if (keyOfCanonical.size >= KEY_MEMO_LIMIT) keyOfCanonical.clear();
    keyOfCanonical.set(canonical, key);
  }
  return key;
}

/** Fingerprint and key together, or null for an unavailable verdict. */
export function keyedFingerprintOf(v: Verdict): { key: string; fingerprint: Fingerprint } | null {
  const fingerprint = fingerprintOf(v);
  return fingerprint ? { key: fingerprintKey(fingerprint), fingerprint } : null;
}
