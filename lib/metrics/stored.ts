// Probe, cycle and delivery series kept in the store: the process that probes or delivers adds its deltas
// (flushed about once a second), and /metrics on any web process renders the fleet-wide totals.
import type { Store } from '@/db/index';
import { addToSeries, listSeries, type SeriesDelta } from '@/db/queries/metric-series';

interface Family {
  type: 'counter' | 'histogram';
  help: string;
  buckets?: readonly number[];
}

export const PROBE_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10] as const;
export const ATTEMPT_BUCKETS = [0.01, 0.05, 0.1, 0.5, 1, 5, 15] as const;

export const STORED_FAMILIES: Record<string, Family> = {
  erawatch_probe_duration_seconds: {
    type: 'histogram',
    help: 'Duration of node probes, by resulting client era',
    buckets: PROBE_BUCKETS,
  },
  erawatch_probe_failures_total: {
    type: 'counter',
    help: 'Probes that left a node unavailable, by reason class',
  },
  erawatch_cycles_failed_total: {
    type: 'counter',
    help: 'Poll cycles (balancer or stdio target) that failed before writing their result',
  },
  erawatch_cycles_fenced_total: {
    type: 'counter',
    help: 'Poll cycles whose results were refused because another worker took their unit over',
  },
  erawatch_severity_changes_total: {
    type: 'counter',
    help: 'Recorded balancer.severity_changed events, by the level they moved from and to',
  },
  erawatch_webhook_attempts_total: {
    type: 'counter',
    help: 'Webhook delivery attempts by outcome (ok, http_5xx, timeout, gone, ...)',
  },
  erawatch_webhook_attempt_duration_seconds: {
    type: 'histogram',
    help: 'Duration of webhook delivery attempts',
    buckets: ATTEMPT_BUCKETS,
  },
};

function escapeLabel(v: string): string {
  return v.replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/"/g, '\\"');
}

function labelText(labels: ReadonlyArray<readonly [string, string]>): string {
  return labels.map(([k, v]) => `${k}="${escapeLabel(v)}"`).join(',');
}

const pending = new Map<string, SeriesDelta>();

/** One series' name and labels with its pending-map key, built once per series (see histogramKeys). */
interface SeriesKey {
  key: string;
  name: string;
  labels: string;
}

function seriesKey(name: string, labels: string): SeriesKey {
  return { key: `${name}\u0000${labels}`, name, labels };
}

function addTo(s: SeriesKey, delta: number): void {
  const entry = pending.get(s.key);
  if (entry) entry.delta += delta;
  else pending.set(s.key, { name: s.name, labels: s.labels, delta });
}

function add(name: string, labels: string, delta: number): void {
  addTo(seriesKey(name, labels), delta);
}

interface HistogramKeys {
  buckets: Array<{ le: number; series: SeriesKey }>;
  inf: SeriesKey;
  sum: SeriesKey;
  count: SeriesKey;
}

// Series keys per (family, label set), built once: the poller observes thousands of probes a second.
const histogramKeys = new Map<string, HistogramKeys>();

function keysFor(family: string, labels: ReadonlyArray<readonly [string, string]>): HistogramKeys {
  const plain = labelText(labels);
  const cacheKey = `${family}\u0000${plain}`;
  let keys = histogramKeys.get(cacheKey);
  if (!keys) {
    keys = {
      buckets: (STORED_FAMILIES[family]?.buckets ?? []).map((le) => ({
        le,
        series: seriesKey(`${family}_bucket`, labelText([...labels, ['le', String(le)]])),
      })),
      inf: seriesKey(`${family}_bucket`, labelText([...labels, ['le', '+Inf']])),
      sum: seriesKey(`${family}_sum`, plain),
      count: seriesKey(`${family}_count`, plain),
    };
    histogramKeys.set(cacheKey, keys);
  }
  return keys;
}

function observeWith(keys: HistogramKeys, seconds: number): void {
  for (const b of keys.buckets) if (seconds <= b.le) addTo(b.series, 1);
  addTo(keys.inf, 1);
  addTo(keys.sum, seconds);
  addTo(keys.count, 1);
}

function observe(family: string, labels: ReadonlyArray<readonly [string, string]>, seconds: number): void {
  observeWith(keysFor(family, labels), seconds);
}

// The probe families by era and by reason class: a handful of values, looked up per probe without
// building any label text.
const probeDurationByEra = new Map<string, HistogramKeys>();
const probeFailuresByReason = new Map<string, SeriesKey>();

/** One probe's outcome (reason trimmed to its class, e.g. `legacy_check_failed`). */
export function recordProbe(era: string, reason: string, durationMs: number): void {
  let keys = probeDurationByEra.get(era);
  if (!keys) {
    keys = keysFor('erawatch_probe_duration_seconds', [['era', era]]);
    probeDurationByEra.set(era, keys);
  }
  observeWith(keys, durationMs / 1000);
  if (era !== 'unavailable') return;
  const colon = reason.indexOf(':');
  const reasonClass = colon < 0 ? reason : reason.slice(0, colon);
  let failures = probeFailuresByReason.get(reasonClass);
  if (!failures) {
    failures = seriesKey('erawatch_probe_failures_total', labelText([['reason', reasonClass]]));
    probeFailuresByReason.set(reasonClass, failures);
  }
  addTo(failures, 1);
}

/** A balancer's or stdio target's cycle that failed before writing its result. */
export function recordCycleFailed(): void {
  add('erawatch_cycles_failed_total', '', 1);
}

/** A cycle whose write was refused by its unit's fencing token (the unit was taken over while it ran). */
export function recordCycleFenced(): void {
  add('erawatch_cycles_fenced_total', '', 1);
}

/** A stored `balancer.severity_changed` event (levels such as era-split, drift, flapping, degraded, uniform). */
export function recordSeverityChange(from: string, to: string): void {
  add(
    'erawatch_severity_changes_total',
    labelText([
      ['from', from],
      ['to', to],
    ]),
    1,
  );
}

export function recordWebhookAttempt(outcome: string, durationMs: number): void {
  add('erawatch_webhook_attempts_total', labelText([['outcome', outcome]]), 1);
  observe('erawatch_webhook_attempt_duration_seconds', [], durationMs / 1000);
}

/** Writes what this process observed since the last flush; on a failed write the deltas wait for the next. */
export async function flushStoredMetrics(store: Store): Promise<void> {
  if (pending.size === 0) return;
  const deltas = [...pending.values()];
  pending.clear();
  try {
    await addToSeries(store, deltas);
  } catch (err) {
    for (const d of deltas) add(d.name, d.labels, d.delta);
    throw err;
  }
}

export interface MetricFlusher {
  /** Stops the timer and writes what is left. */
  stop(): Promise<void>;
}

/** Flushes every `everyMs` until stopped, and once more on stop. */
export function startMetricFlusher(
  store: Store,
  everyMs = 1_000,
  log: (l: string) => void = console.error,
): MetricFlusher {
  let failing = false;
  let running: Promise<void> | null = null;
  const flushOnce = async () => {
    try {
      await flushStoredMetrics(store);
      failing = false;
    } catch (err) {
      if (!failing)
        log(
          `erawatch metrics: writing probe series failed: ${err instanceof Error ? err.message : String(err)}`,
        );
      failing = true;
    }
  };
  // One write at a time: a slow store would otherwise gather a flush per tick, each holding a connection.
  const flush = () =>
    (running ??= flushOnce().finally(() => {
      running = null;
    }));
  const timer = setInterval(() => void flush(), everyMs);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await running;
      await flush();
    },
  };
}

function series(name: string, labels: string, value: number): string {
  return labels === '' ? `${name} ${value}` : `${name}{${labels}} ${value}`;
}

function leOf(labels: string): number {
  const m = /le="([^"]+)"/.exec(labels);
  if (!m?.[1]) return Number.NaN;
  return m[1] === '+Inf' ? Number.POSITIVE_INFINITY : Number(m[1]);
}

/** The stored families in the Prometheus text format. */
export async function renderStoredSeries(store: Store): Promise<string> {
  const rows = await listSeries(store, Object.keys(STORED_FAMILIES));
  const out: string[] = [];
  for (const [family, meta] of Object.entries(STORED_FAMILIES)) {
    out.push(`# HELP ${family} ${meta.help}`, `# TYPE ${family} ${meta.type}`);
    if (meta.type === 'counter') {
      for (const r of rows) if (r.name === family) out.push(series(family, r.labels, r.value));
      continue;
    }
    const groups = new Map<string, string[]>();
    for (const r of rows.filter((x) => x.name === `${family}_count`)) {
      const lines: string[] = [];
      const buckets = rows
        .filter((x) => x.name === `${family}_bucket` && x.labels.replace(/,?le="[^"]+"/, '') === r.labels)
        .sort((a, b) => leOf(a.labels) - leOf(b.labels));
      for (const b of buckets) lines.push(series(`${family}_bucket`, b.labels, b.value));
      const sum = rows.find((x) => x.name === `${family}_sum` && x.labels === r.labels);
      lines.push(
        series(`${family}_sum`, r.labels, sum?.value ?? 0),
        series(`${family}_count`, r.labels, r.value),
      );
      groups.set(r.labels, lines);
    }
    for (const lines of groups.values()) out.push(...lines);
  }
  return `${out.join('\n')}\n`;
}
