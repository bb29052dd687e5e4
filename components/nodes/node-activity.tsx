'use client';
// A node's latency and probe counts over the picked range (the same picker as the balancer's history), each
// saying which period it covers.
import { LatencyChart } from '@/components/ui/latency-chart';
import { Loading } from '@/components/ui/query-state';
import { RangePicker, useTimeRange } from '@/components/ui/range-picker';
import { useNow } from '@/components/ui/use-now';
import type { LatencyPoint } from '@/lib/query/types';
import { clockLabel, describeRange, type TimeRange } from '@/lib/ui/time-range';

/** The buckets that overlap the range ending at `now`, and their probes and failures summed. */
export function pointsInRange(points: LatencyPoint[], range: TimeRange, now: number) {
  const from = now - range.ms;
  const inRange = points.filter((p) => p.at + p.spanMs > from && p.at <= now);
  return {
    from,
    points: inRange,
    probes: inRange.reduce((n, p) => n + p.probes, 0),
    failures: inRange.reduce((n, p) => n + p.failures, 0),
  };
}

export function NodeActivity({ rollups }: { rollups: LatencyPoint[] | undefined }) {
  const range = useTimeRange();
  const now = useNow(15_000);
  const scoped = rollups ? pointsInRange(rollups, range, now) : null;
  return (
    <section className="panel" aria-labelledby="lat-h" data-testid="node-activity" data-range={range.key}>
      <div className="panel-head" style={{ flexWrap: 'wrap', gap: 8 }}>
        <h2 id="lat-h">Latency and probes</h2>
        <RangePicker label="Latency range" />
      </div>
      <div className="panel-body">
        {scoped ? (
          <>
            <p className="muted" style={{ marginTop: 0 }} data-testid="range-probes" suppressHydrationWarning>
              <strong>{scoped.probes}</strong> probes, <strong>{scoped.failures}</strong> failed, in{' '}
              {describeRange(range)} ({clockLabel(scoped.from, range)}–{clockLabel(now, range)} UTC)
            </p>
            <LatencyChart rollups={scoped.points} />
          </>
        ) : (
          <Loading what="latency" />
        )}
      </div>
    </section>
  );
}
