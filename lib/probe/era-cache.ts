// The era of a server, cached per transport peer as the seed prescribes: one probe, then every call is
// driven by the cached decision until it expires, the peer restarts or moves, or an answer contradicts it.
// Pure: the clock is a parameter, nothing here does I/O.
import type { ClientEra, Verdict } from './types';

/** What launches a stdio server. Only the configured parts count: the host's inherited environment does not. */
export interface StdioPeerSpec {
  command: string;
  args: readonly string[];
  env?: Readonly<Record<string, string>>;
  cwd?: string;
}

/**
 * Cache key of a stdio peer: command, arguments, configured environment and cwd (which changes what a
 * relative command runs), plus which configured launch it is. Two host entries with the same command line
 * are two launched processes, so two peers; the key stays bound to the command the allowlist names.
 */
export function stdioPeerKey(spec: StdioPeerSpec, launch = ''): string {
  const env = Object.entries(spec.env ?? {}).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `stdio:${JSON.stringify([spec.command, [...spec.args], env, spec.cwd ?? null, launch])}`;
}

/**
 * Cache key of an HTTP peer: its endpoint (origin and path, as configured) and the credential it is reached
 * with. Two endpoints on one origin are two peers: a gateway routes paths to different servers, and one
 * path's unavailable verdict must not discard the era another path proved. An era learned with a
 * credential says nothing about what the same endpoint answers without it (a gateway lets the token
 * through and refuses the rest), so entries that share an endpoint but not a credential are two peers.
 * `credential` is an opaque identity, never a secret.
 */
export function httpPeerKey(url: string, credential = ''): string {
  const parsed = new URL(url);
  const endpoint = `http:${parsed.origin}${parsed.pathname}`;
  return credential === '' ? endpoint : `${endpoint}#${credential}`;
}

/**
 * Which incarnation of the peer answered. `endpoint` is the full URL or command line (plus connect address);
 * `instance` identifies one process (its pid) or null when the transport cannot tell. A change of either
 * means the cached era is about another server and is discarded.
 */
export interface PeerIncarnation {
  endpoint: string;
  instance: string | null;
}

export type CachedEra = Exclude<ClientEra, 'unavailable'>;

export interface EraEntry {
  key: string;
  endpoint: string;
  instance: string | null;
  era: CachedEra;
  /** Negotiated modern revision, or the legacy protocolVersion. */
  version: string | null;
  verdict: Verdict;
  storedAt: number;
  expiresAt: number;
  /** Methods that have answered with a result since the era was cached. */
  working: Set<string>;
}

export type DiscardReason =
  'expired' | 'endpoint_changed' | 'restarted' | 'contradicted' | 'unavailable' | 'forgotten';

export interface EraCacheOptions {
  /**
   * How long an era decision stands. Deliberately not the DiscoverResult's ttlMs: that hint governs
   * the discovery payload, and real servers send 0, which would mean probing before every call.
   */
  ttlMs: number;
  /** Upper bound on entries; the oldest are dropped first. */
  maxEntries?: number;
}

export const DEFAULT_ERA_CACHE_OPTIONS: Required<EraCacheOptions> = {
  ttlMs: 10 * 60_000,
  maxEntries: 10_000,
};

/** An answer to a call made under the cached era; only protocol answers are observed, never transport failures. */
export type ObservedAnswer =
  { method: string; result: true } | { method: string; result: false; errorCode: number };

export type Observation =
  | { action: 'keep' }
  | {
      action: 'reprobe';
      reason: 'unsupported_version_32022' | 'method_vanished_32601' | 'late_modern_answer';
      discarded: EraEntry;
    };

/** Outcome of comparing one sample's verdict with what a caching client holds for the same peer. */
export interface SampleComparison {
  /** `stored`: nothing was cached, the sample became the cached era; `agrees`/`contradicts`: compared; `unavailable`: the sample had no era (not a contradiction). */
  outcome: 'stored' | 'agrees' | 'contradicts' | 'unavailable';
  /** The fields that differ, on `contradicts`: `era`, `version`. */
  differs: Array<'era' | 'version'>;
  cached: EraEntry | null;
}

export class EraCache {
  private readonly entries = new Map<string, EraEntry>();
  private readonly options: Required<EraCacheOptions>;
  private readonly discards: Array<{ key: string; reason: DiscardReason; at: number }> = [];

  constructor(
    options: Partial<EraCacheOptions> = {},
    private readonly now: () => number = Date.now,
  ) {
    this.options = { ...DEFAULT_ERA_CACHE_OPTIONS, ...options };
    if (!Number.isFinite(this.options.ttlMs) || this.options.ttlMs <= 0)
      throw new RangeError('ttlMs must be a positive number');
    if (!Number.isInteger(this.options.maxEntries) || this.options.maxEntries < 1)
      throw new RangeError('maxEntries must be a positive integer');
  }

  /** The cached era for this incarnation of the peer, or null (an expired or stale entry is discarded on the way). */
  lookup(key: string, at: PeerIncarnation): EraEntry | null {
    const entry = this.entries.get(key);
    if (!entry) return null;
    if (this.now() >= entry.expiresAt) return this.discardEntry(entry, 'expired');
    if (entry.endpoint !== at.endpoint) return this.discardEntry(entry, 'endpoint_changed');
    if (entry.instance !== at.instance) return this.discardEntry(entry, 'restarted');
    return entry;
  }

  /** Caches a probe's verdict; an `unavailable` verdict caches nothing and discards what was there. */
  remember(key: string, at: PeerIncarnation, verdict: Verdict): EraEntry | null {
    if (verdict.verdict === 'unavailable') {
      const old = this.entries.get(key);
      if (old) this.discardEntry(old, 'unavailable');
      return null;
    }
    const storedAt = this.now();
    const entry: EraEntry = {
      key,
      endpoint: at.endpoint,
      instance: at.instance,
      era: verdict.verdict,
      version: verdict.negotiatedVersion,
      verdict,
      storedAt,
      expiresAt: storedAt + this.options.ttlMs,
      working: new Set(),
    };
    this.entries.delete(key);
    this.entries.set(key, entry);
    this.evictOverflow();
    return entry;
  }

  /**
   * Reads one answer given under the cached era. A -32022 (the server no longer serves the era we cached)
   * or a -32601 for a method that had been working means the peer changed under us: the entry is
   * discarded and the caller re-probes instead of reporting a transport failure.
   */
  observe(key: string, answer: ObservedAnswer): Observation {
    const entry = this.entries.get(key);
    if (!entry) return { action: 'keep' };
    if (answer.result) {
      entry.working.add(answer.method);
      return { action: 'keep' };
    }
    if (answer.errorCode === -32022) {
      this.discardEntry(entry, 'contradicted');
      return { action: 'reprobe', reason: 'unsupported_version_32022', discarded: entry };
    }
    if (answer.errorCode === -32601 && entry.working.has(answer.method)) {
      this.discardEntry(entry, 'contradicted');
      return { action: 'reprobe', reason: 'method_vanished_32601', discarded: entry };
    }
    return { action: 'keep' };
  }

  /**
   * A modern answer that came after a legacy verdict (stdio: the discover's DiscoverResult, past the
   * initialize's deadline) contradicts the cached legacy era: the entry is discarded and the peer re-probed.
   */
  observeLateModern(key: string): Observation {
    const entry = this.entries.get(key);
    if (!entry || entry.era !== 'legacy') return { action: 'keep' };
    this.discardEntry(entry, 'contradicted');
    return { action: 'reprobe', reason: 'late_modern_answer', discarded: entry };
  }

  /**
   * Models a caching client meeting one sample of a peer (the poller's sample-contradiction measure): the
   * first available sample is cached; each later one agrees or contradicts it. With `adopt`, a
   * contradicting sample replaces the entry, as a client that re-probes would; without, the first stands.
   */
  compareSample(
    key: string,
    at: PeerIncarnation,
    verdict: Verdict,
    opts: { adopt?: boolean } = {},
  ): SampleComparison {
    if (verdict.verdict === 'unavailable')
      return { outcome: 'unavailable', differs: [], cached: this.entries.get(key) ?? null };
    const cached = this.lookup(key, at);
    if (!cached) {
      this.remember(key, at, verdict);
      return { outcome: 'stored', differs: [], cached: null };
    }
    const differs: Array<'era' | 'version'> = [];
    if (cached.era !== verdict.verdict) differs.push('era');
    if (cached.version !== verdict.negotiatedVersion) differs.push('version');
    if (differs.length === 0) return { outcome: 'agrees', differs, cached };
    if (opts.adopt) this.remember(key, at, verdict);
    return { outcome: 'contradicts', differs, cached };
  }

  forget(key: string): boolean {
    const entry = this.entries.get(key);
    if (!entry) return false;
    this.discardEntry(entry, 'forgotten');
    return true;
  }

  get size(): number {
    return this.entries.size;
  }

  /** Recent discards, newest last (bounded), so a report can say why an era was probed again. */
  recentDiscards(): ReadonlyArray<{ key: string; reason: DiscardReason; at: number }> {
    return this.discards;
  }

  private discardEntry(entry: EraEntry, reason: DiscardReason): null {
    this.entries.delete(entry.key);
    this.discards.push({ key: entry.key, reason, at: this.now() });
    if (this.discards.length > 100) this.discards.shift();
    return null;
  }

  private evictOverflow(): void {
    while (this.entries.size > this.options.maxEntries) {
      const oldest = this.entries.keys().next();
      if (oldest.done) return;
      this.entries.delete(oldest.value);
    }
  }
}

/** Share of comparable samples (those compared against a cached era) that contradicted it. */
export function summarizeContradictions(comparisons: readonly SampleComparison[]): {
  compared: number;
  contradicting: number;
  share: number;
} {
  let compared = 0;
  let contradicting = 0;
  for (const c of comparisons) {
    if (c.outcome === 'agrees' || c.outcome === 'contradicts') compared += 1;
    if (c.outcome === 'contradicts') contradicting += 1;
  }
  return { compared, contradicting, share: compared === 0 ? 0 : contradicting / compared };
}
