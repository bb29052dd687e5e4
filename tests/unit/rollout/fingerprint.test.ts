import { describe, expect, it } from 'vitest';
import type { Verdict } from '@/lib/probe/types';
import { fingerprintKey, fingerprintOf, normalizeRevisions, type Fingerprint } from '@/lib/rollout';
import {
  LEGACY,
  MODERN,
  dualVerdict,
  legacyVerdict,
  modernVerdict,
  unavailableVerdict,
} from './verdict-factory';

function keyOf(v: Verdict): string {
  const fp = fingerprintOf(v);
  if (!fp) throw new Error('expected an available verdict');
  return fingerprintKey(fp);
}

describe('fingerprintOf', () => {
  it.each(['timeout', 'refused', 'http_5xx', 'modern_incompatible'])(
    'is null for an unavailable verdict (%s)',
    (r) => {
      expect(fingerprintOf(unavailableVerdict(r))).toBeNull();
    },
  );

  it('takes era, versions, served set and server identity, with the set distinct and newest first', () => {
    const fp = fingerprintOf(
      dualVerdict({
        supported: ['2024-11-05', MODERN, LEGACY, MODERN],
        serverInfo: { name: 'a', version: '9' },
      }),
    );
    expect(fp).toEqual<Fingerprint>({
      era: 'modern',
      negotiatedVersion: MODERN,
      supported: [MODERN, LEGACY, '2024-11-05'],
      servedEras: 'dual-era',
      serverName: 'a',
      serverVersion: '9',
      catalogDigest: null,
    });
  });

  it('takes the catalog digest, and a catalog makes a different key than none', () => {
    const catalog = {
      status: 'listed' as const,
      names: ['echo'],
      toolDigests: ['abc'],
      digest: 'cat_1',
      ttlMs: 0,
      cacheScope: 'private',
      pages: 1,
      listedAt: 0,
      settledKey: '[]',
    };
    expect(fingerprintOf(modernVerdict({ catalog }))?.catalogDigest).toBe('cat_1');
    expect(keyOf(modernVerdict({ catalog }))).not.toBe(keyOf(modernVerdict()));
    expect(keyOf(modernVerdict({ catalog: { ...catalog, digest: 'cat_2' } }))).not.toBe(
      keyOf(modernVerdict({ catalog })),
    );
    // A verdict without a catalog keeps the key it had before catalogs existed.
    expect(keyOf(modernVerdict({ catalog: null }))).toBe('fp_e6c0b1c20fdceab3');
  });

  it('keeps a missing server identity as null', () => {
    expect(fingerprintOf(legacyVerdict({ serverInfo: null }))).toMatchObject({
      serverName: null,
      serverVersion: null,
    });
  });
});

describe('normalizeRevisions', () => {
  it.each([
    ['already newest first', ['2026-07-28', '2025-11-25'], ['2026-07-28', '2025-11-25']],
    ['oldest first', ['2025-06-18', '2025-11-25', '2026-07-28'], ['2026-07-28', '2025-11-25', '2025-06-18']],
    ['repeated, in order', ['2026-07-28', '2026-07-28', '2025-11-25'], ['2026-07-28', '2025-11-25']],
    ['one', ['2026-07-28'], ['2026-07-28']],
    ['none', [], []],
  ])('%s', (_name, input, want) => {
    const copy = [...input];
    expect(normalizeRevisions(input)).toEqual(want);
    // A new array every time: callers may sort or push without touching the verdict's own list.
    expect(normalizeRevisions(input)).not.toBe(input);
    expect(input).toEqual(copy);
  });
});

describe('fingerprintKey', () => {
  it('is short, prefixed and stable across runs', () => {
    const key = keyOf(modernVerdict());
    expect(key).toMatch(/^fp_[0-9a-f]{16}$/);
    // Pinned: keys are persisted, so the hash must never change silently.
    expect(key).toBe(keyOf(modernVerdict()));
    expect(key).toBe('fp_e6c0b1c20fdceab3');
  });

  it('ignores the order and repetition of supported revisions', () => {
    const a = keyOf(dualVerdict({ supported: [MODERN, LEGACY] }));
    expect(keyOf(dualVerdict({ supported: [LEGACY, MODERN] }))).toBe(a);
    expect(keyOf(dualVerdict({ supported: [LEGACY, MODERN, LEGACY] }))).toBe(a);
  });

  it('is order-insensitive for a hand-built fingerprint too', () => {
    const fp: Fingerprint = {
      era: 'modern',
      negotiatedVersion: MODERN,
      supported: [MODERN, LEGACY],
      servedEras: 'dual-era',
      serverName: 'x',
      serverVersion: '1',
    };
    expect(fingerprintKey({ ...fp, supported: [LEGACY, MODERN, MODERN] })).toBe(fingerprintKey(fp));
  });

  it('ignores what is not part of the fingerprint (timing, address, cache hint, evidence)', () => {
    const a = keyOf(modernVerdict());
    expect(
      keyOf(
        modernVerdict({
          durationMs: 999,
          probedAt: 1,
          address: '127.0.0.9',
          cache: { ttlMs: 5, cacheScope: 'public' },
        }),
      ),
    ).toBe(a);
  });

  const base = modernVerdict();
  it.each<[string, Verdict]>([
    ['client era', legacyVerdict({ ...base, verdict: 'legacy' })],
    ['negotiated version', modernVerdict({ negotiatedVersion: '2026-12-01' })],
    ['served set', modernVerdict({ supported: [MODERN, '2026-12-01'] })],
    ['served class', modernVerdict({ servedEras: 'dual-era' })],
    ['server name', modernVerdict({ serverInfo: { name: 'other', version: '2.4.0' } })],
    ['server version', modernVerdict({ serverInfo: { name: 'fleet-server', version: '2.4.1' } })],
    ['server identity missing', modernVerdict({ serverInfo: null })],
  ])('changes when the %s changes', (_field, changed) => {
    expect(keyOf(changed)).not.toBe(keyOf(base));
  });

  it('does not confuse field boundaries', () => {
    const a = keyOf(modernVerdict({ serverInfo: { name: 'ab', version: 'c' } }));
    const b = keyOf(modernVerdict({ serverInfo: { name: 'a', version: 'bc' } }));
    expect(a).not.toBe(b);
  });
});
