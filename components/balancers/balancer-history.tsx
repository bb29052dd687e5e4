'use client';
// A balancer's history over the picked range: a state band (uniform, drift, era-split, degraded) above a
// stacked chart of its nodes per client era, with the nodes serving the target beside it.
import { useQuery } from '@tanstack/react-query';
import { LoadError, Loading } from '@/components/ui/query-state';
import { RangePicker, useTimeRange } from '@/components/ui/range-picker';
import { browserFetcher } from '@/lib/query/fetch-json';
import { balancerHistoryQuery } from '@/lib/query/history';
import type { BalancerHistory, HistoryBand, HistoryStepEntry } from '@/lib/schemas/history';
import { formatDuration } from '@/lib/ui/balancer';
import { clockLabel, describeRange, type TimeRange } from '@/lib/ui/time-range';

export const BAND_LOOK: Record<HistoryBand, { label: string; fill: string; hint: string }> = {
  uniform: { label: 'Uniform', fill: 'var(--ok)', hint: 'every available node presents one fingerprint' },
  drift: { label: 'Drift', fill: 'var(--warn)', hint: 'one client era, differing served sets' },
  'era-split': { label: 'Era-split', fill: 'var(--bad)', hint: 'modern and legacy nodes side by side' },
  degraded: { label: 'Degraded', fill: 'var(--auth-gated)', hint: 'some nodes unavailable' },
  'no-data': { label: 'No data', fill: 'var(--line)', hint: 'no node was probed' },
};

const SERIES = [
  { key: 'modern', label: 'Modern', fill: 'var(--modern)' },
  { key: 'dualEra', label: 'Dual-era', fill: 'url(#hist-dual)' },
  { key: 'legacy', label: 'Legacy', fill: 'var(--legacy)' },
  { key: 'authGated', label: 'Auth-gated', fill: 'var(--auth-gated)' },
  { key: 'unavailable', label: 'Unavailable', fill: 'url(#hist-unavail)' },
] as const;
type SeriesKey = (typeof SERIES)[number]['key'];

function valueOf(s: HistoryStepEntry, key: SeriesKey): number {
  if (key === 'modern' || key === 'dualEra' || key === 'legacy') return s.eras[key];
  return s[key];
}

export function BalancerHistoryPanel({ id }: { id: string }) {
  const range = useTimeRange();
  const q = useQuery(balancerHistoryQuery(browserFetcher, id, range));
  return (
    <section className="panel" aria-labelledby="history-h" data-testid="history" data-range={range.key}>
      <div className="panel-head" style={{ flexWrap: 'wrap', gap: 8 }}>
        <h2 id="history-h">History</h2>
        <RangePicker label="History range" />
      </div>
      <div className="panel-body">
        {q.error && !q.data ? <LoadError error={q.error} what="the history" /> : null}
        {q.data ? (
          <HistoryChart history={q.data} range={range} />
        ) : q.isPending ? (
          <Loading what="history" />
        ) : null}
      </div>
    </section>
  );
}

const W = 560;
const H = 176;
const PAD = { l: 30, r: 8, b: 20 };
const BAND = { y: 2, h: 14 };
const TOP = 26;

/** The band's changes over the range, oldest first: "uniform", then "era-split at 08:01", … */
export function bandChanges(steps: HistoryStepEntry[]): Array<{ at: number; band: HistoryBand }> {
  const out: Array<{ at: number; band: HistoryBand }> = [];
  for (const s of steps) {
    if (s.band === 'no-data') continue;
    if (out.at(-1)?.band !== s.band) out.push({ at: s.at, band: s.band });
  }
  return out;
}

export function HistoryChart({ history: h, range }: { history: BalancerHistory; range: TimeRange }) {
  const steps = h.steps;
  const withData = steps.filter((s) => s.band !== 'no-data');
  const last = withData.at(-1) ?? null;
  const period = `${describeRange(range)} (${clockLabel(h.from, range)}–${clockLabel(h.to, range)} UTC), a bar per ${formatDuration(h.stepMs)}`;
  if (withData.length === 0) {
    return (
      <p className="muted" data-testid="history-empty">
        No probes in {period}.
      </p>
    );
  }
  const bw = (W - PAD.l - PAD.r) / Math.max(1, steps.length);
  const gap = bw > 4 ? 1 : 0;
  const max = Math.max(1, ...steps.map((s) => s.nodes));
  const y = (v: number) => H - PAD.b - (v / max) * (H - PAD.b - TOP);
  const x = (i: number) => PAD.l + i * bw;
  const changes = bandChanges(steps);
  const ticks = [0, Math.floor(steps.length / 2), steps.length - 1];
  const title = `State and nodes per client era over ${describeRange(range)}`;
  return (
    <figure style={{ margin: 0 }}>
      <svg
        className="chart"
        viewBox={`0 0 ${W} ${H}`}
        role="img"
        aria-label={title}
        data-testid="history-chart"
      >
        <title>{title}</title>
        <defs>
          <pattern
            id="hist-dual"
            width="6"
            height="6"
            patternUnits="userSpaceOnUse"
            patternTransform="rotate(45)"
          >
            <rect width="6" height="6" fill="var(--modern)" />
            <rect width="3" height="6" fill="var(--legacy)" />
          </pattern>
          <pattern
            id="hist-unavail"
            width="4"
            height="4"
            patternUnits="userSpaceOnUse"
            patternTransform="rotate(-45)"
          >
            <rect width="4" height="4" fill="var(--unavailable)" />
            <line x1="0" y1="0" x2="0" y2="4" stroke="rgba(255,255,255,.55)" strokeWidth="1.5" />
          </pattern>
        </defs>
        <g data-testid="state-band">
          {steps.map((s, i) => (
            <rect
              key={s.at}
              x={x(i)}
              y={BAND.y}
              width={Math.max(0.5, bw)}
              height={BAND.h}
              fill={BAND_LOOK[s.band].fill}
              data-band={s.band}
            >
              <title>{`${clockLabel(s.at, range)} UTC: ${BAND_LOOK[s.band].label}`}</title>
            </rect>
          ))}
        </g>
        <line x1={PAD.l} y1={H - PAD.b} x2={W - PAD.r} y2={H - PAD.b} stroke="var(--line)" />
        <text x={PAD.l - 4} y={y(max) + 4} textAnchor="end">
          {max}
        </text>
        <text x={PAD.l - 4} y={H - PAD.b} textAnchor="end">
          0
        </text>
        {steps.map((s, i) => {
          let below = 0;
          return (
            <g key={s.at}>
              {SERIES.map((series) => {
                const v = valueOf(s, series.key);
                if (v === 0) return null;
                const top = y(below + v);
                const bottom = y(below);
                below += v;
                return (
                  <rect
                    key={series.key}
                    x={x(i)}
                    y={top}
                    width={Math.max(0.5, bw - gap)}
                    height={Math.max(0, bottom - top)}
                    fill={series.fill}
                  />
                );
              })}
              <title>{`${clockLabel(s.at, range)} UTC: ${SERIES.map((se) => `${valueOf(s, se.key)} ${se.label.toLowerCase()}`).join(', ')}; ${s.servingTarget} serving ${s.targetRevision ?? 'no known revision'}`}</title>
            </g>
          );
        })}
        {ticks.map((i, k) => {
          const s = steps[i];
          if (!s) return null;
          return (
            <text
              key={k}
              x={k === 2 ? x(i) + bw : x(i)}
              y={H - 5}
              textAnchor={k === 0 ? 'start' : k === 2 ? 'end' : 'middle'}
            >
              {clockLabel(k === 2 ? Math.min(s.at + h.stepMs, h.to) : s.at, range)}
            </text>
          );
        })}
      </svg>
      <figcaption className="legend" style={{ flexWrap: 'wrap' }}>
        {(['uniform', 'drift', 'era-split', 'degraded'] as const).map((b) => (
          <span key={b} title={BAND_LOOK[b].hint}>
            <svg
              width="12"
              height="10"
              aria-hidden="true"
              style={{ verticalAlign: 'middle', marginRight: 4 }}
            >
              <rect width="12" height="10" fill={BAND_LOOK[b].fill} />
            </svg>
            {BAND_LOOK[b].label}
          </span>
        ))}
        {SERIES.map((series) => (
          <span key={series.key} data-testid={`history-${series.key}`}>
            <svg
              width="12"
              height="10"
              aria-hidden="true"
              style={{ verticalAlign: 'middle', marginRight: 4 }}
            >
              <rect width="12" height="10" fill={series.fill} />
            </svg>
            {series.label}: {last ? valueOf(last, series.key) : 0}
          </span>
        ))}
      </figcaption>
      <p className="muted" style={{ margin: '6px 0 0' }} data-testid="history-period">
        {last ? (
          <>
            Latest step: <strong data-testid="history-serving">{last.servingTarget}</strong> of{' '}
            {last.available} available nodes serve {last.targetRevision ?? 'no known revision'}
            {last.windowOpen ? ' (the rollout window’s target)' : ''}.{' '}
          </>
        ) : null}
        Covers {period}.
      </p>
      <p style={{ margin: '6px 0 0' }} data-testid="history-changes">
        {changes.map((c, i) => (
          <span key={c.at}>
            {i > 0 ? ' → ' : 'State: '}
            <strong>{BAND_LOOK[c.band].label}</strong>
            {i > 0 ? <span className="muted"> at {clockLabel(c.at, range)}</span> : null}
          </span>
        ))}
      </p>
    </figure>
  );
}
