'use client';
// A balancer's history over the picked range: a state band (uniform, drift, era-split, degraded) above a
// stacked chart of its nodes per client era, with the nodes serving the target beside it.
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef } from 'react';
import {
  LegendItem,
  PATTERN,
  StackedChart,
  type ColumnGeometry,
  type StackSeries,
} from '@/components/charts/stacked-chart';
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
  { key: 'dualEra', label: 'Dual-era', fill: PATTERN.dualEra },
  { key: 'legacy', label: 'Legacy', fill: PATTERN.legacy },
  { key: 'authGated', label: 'Auth-gated', fill: PATTERN.authGated },
  { key: 'unavailable', label: 'Unavailable', fill: PATTERN.unavailable },
] as const satisfies ReadonlyArray<StackSeries<string>>;
type SeriesKey = (typeof SERIES)[number]['key'];

function valueOf(s: HistoryStepEntry, key: SeriesKey): number {
  return seriesValues(s)[key];
}

/** `analyzedAt`: the balancer's latest cycle; a new one is read at once, not at the history's next refresh. */
export function BalancerHistoryPanel({ id, analyzedAt }: { id: string; analyzedAt: number | null }) {
  const range = useTimeRange();
  const q = useQuery(balancerHistoryQuery(browserFetcher, id, range));
  const client = useQueryClient();
  const seen = useRef(analyzedAt);
  useEffect(() => {
    if (analyzedAt === seen.current) return;
    seen.current = analyzedAt;
    void client.invalidateQueries({ queryKey: ['balancer', id, 'history'] });
  }, [client, id, analyzedAt]);
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

const H = 176;
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
  const first = steps[0];
  const lastStep = steps.at(-1);
  const ticks = [
    first ? clockLabel(first.at, range) : '',
    clockLabel(steps[Math.floor(steps.length / 2)]?.at ?? h.from, range),
    lastStep ? clockLabel(Math.min(lastStep.at + h.stepMs, h.to), range) : '',
  ] as const;
  return (
    <figure style={{ margin: 0 }}>
      <StackedChart
        title={`State and nodes per client era over ${describeRange(range)}`}
        testId="history-chart"
        height={H}
        top={TOP}
        series={SERIES}
        columns={steps.map((s) => ({ id: s.at, values: seriesValues(s), title: stepTitle(s, range) }))}
        ticks={ticks}
        above={(g) => <StateBand steps={steps} range={range} geometry={g} />}
      />
      <figcaption className="legend" style={{ flexWrap: 'wrap' }}>
        {(['uniform', 'drift', 'era-split', 'degraded'] as const).map((b) => (
          <LegendItem key={b} fill={BAND_LOOK[b].fill} hint={BAND_LOOK[b].hint}>
            {BAND_LOOK[b].label}
          </LegendItem>
        ))}
        {SERIES.map((series) => (
          <LegendItem key={series.key} fill={series.fill} testId={`history-${series.key}`}>
            {series.label}: {last ? valueOf(last, series.key) : 0}
          </LegendItem>
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
      <BandChanges steps={steps} range={range} />
    </figure>
  );
}

function seriesValues(s: HistoryStepEntry): Record<SeriesKey, number> {
  return {
    modern: s.eras.modern,
    dualEra: s.eras.dualEra,
    legacy: s.eras.legacy,
    authGated: s.authGated,
    unavailable: s.unavailable,
  };
}

function stepTitle(s: HistoryStepEntry, range: TimeRange): string {
  const counts = SERIES.map((se) => `${valueOf(s, se.key)} ${se.label.toLowerCase()}`).join(', ');
  return `${clockLabel(s.at, range)} UTC: ${counts}; ${s.servingTarget} serving ${s.targetRevision ?? 'no known revision'}`;
}

/** The state band: one cell per step, above the stacks. */
function StateBand(props: { steps: HistoryStepEntry[]; range: TimeRange; geometry: ColumnGeometry }) {
  const { x, width } = props.geometry;
  return (
    <g data-testid="state-band">
      {props.steps.map((s, i) => (
        <rect
          key={s.at}
          x={x(i)}
          y={BAND.y}
          width={Math.max(0.5, width)}
          height={BAND.h}
          fill={BAND_LOOK[s.band].fill}
          data-band={s.band}
        >
          <title>{`${clockLabel(s.at, props.range)} UTC: ${BAND_LOOK[s.band].label}`}</title>
        </rect>
      ))}
    </g>
  );
}

function BandChanges({ steps, range }: { steps: HistoryStepEntry[]; range: TimeRange }) {
  return (
    <p style={{ margin: '6px 0 0' }} data-testid="history-changes">
      {bandChanges(steps).map((c, i) => (
        <span key={c.at}>
          {i > 0 ? ' → ' : 'State: '}
          <strong>{BAND_LOOK[c.band].label}</strong>
          {i > 0 ? <span className="muted"> at {clockLabel(c.at, range)}</span> : null}
        </span>
      ))}
    </p>
  );
}
