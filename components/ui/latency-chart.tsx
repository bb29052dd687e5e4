import type { LatencyPoint } from '@/lib/query/types';

const W = 560;
const H = 150;
// The left margin holds the axis label ("12345 ms") whole at any width the chart is drawn.
const PAD = { l: 60, r: 10, t: 10, b: 20 };

function hour(at: number): string {
  return new Date(at).toISOString().slice(5, 16).replace('T', ' ');
}

/** p50 (solid) and p95 (dashed, squares) probe latency per minute for the last hours, per hour before; a legend names both, so the dash is not the only cue. */
export function LatencyChart({ rollups }: { rollups: LatencyPoint[] }) {
  const pts = rollups.filter((r) => r.p50Ms !== null || r.p95Ms !== null);
  if (pts.length === 0) return <p className="muted">No latency recorded yet.</p>;
  const first = pts[0]?.at ?? 0;
  const last = pts[pts.length - 1]?.at ?? first;
  const span = Math.max(5 * 60_000, last - first);
  const minutes = pts.filter((p) => p.spanMs < 3_600_000).length;
  const unit =
    minutes === pts.length ? 'per minute' : minutes > 0 ? 'per minute lately, per hour before' : 'per hour';
  const max = Math.max(1, ...pts.map((p) => Math.max(p.p50Ms ?? 0, p.p95Ms ?? 0)));
  const x = (t: number) => PAD.l + ((t - first) / span) * (W - PAD.l - PAD.r);
  const y = (v: number) => H - PAD.b - (v / max) * (H - PAD.t - PAD.b);
  const line = (key: 'p50Ms' | 'p95Ms') =>
    pts
      .filter((p) => p[key] !== null)
      .map((p, i) => `${i === 0 ? 'M' : 'L'}${x(p.at)},${y(p[key] ?? 0)}`)
      .join('');
  const latest = pts[pts.length - 1];
  return (
    <figure style={{ margin: 0 }}>
      <svg
        className="chart"
        viewBox={`0 0 ${W} ${H}`}
        role="img"
        aria-label={`Probe latency ${unit}, p50 and p95`}
      >
        <title>{`Probe latency ${unit}`}</title>
        <line x1={PAD.l} y1={H - PAD.b} x2={W - PAD.r} y2={H - PAD.b} stroke="var(--line)" />
        <text x={PAD.l - 4} y={y(max) + 4} textAnchor="end">
          {Math.round(max)} ms
        </text>
        <text x={PAD.l - 4} y={H - PAD.b} textAnchor="end">
          0
        </text>
        <path d={line('p95Ms')} fill="none" stroke="var(--warn)" strokeWidth="1.6" strokeDasharray="4 3" />
        <path d={line('p50Ms')} fill="none" stroke="var(--accent)" strokeWidth="2" />
        {pts.map((p) =>
          p.p95Ms === null ? null : (
            <rect
              key={`p95-${p.at}`}
              x={x(p.at) - 2.5}
              y={y(p.p95Ms) - 2.5}
              width="5"
              height="5"
              fill="var(--warn)"
            />
          ),
        )}
        {pts.map((p) =>
          p.p50Ms === null ? null : (
            <circle key={`p50-${p.at}`} cx={x(p.at)} cy={y(p.p50Ms)} r="2.5" fill="var(--accent)" />
          ),
        )}
        <text x={PAD.l} y={H - 5}>
          {hour(first)}
        </text>
        <text x={W - PAD.r} y={H - 5} textAnchor="end">
          {hour(last)}
        </text>
      </svg>
      <figcaption className="legend">
        <span>
          <span className="swatch" style={{ background: 'var(--accent)', height: 3 }} aria-hidden="true" />
          p50 (solid, dots)
          {latest?.p50Ms !== null && latest ? `: ${Math.round(latest.p50Ms ?? 0)} ms latest` : ''}
        </span>
        <span>
          <span
            className="swatch"
            style={{
              background: 'repeating-linear-gradient(90deg, var(--warn) 0 4px, transparent 4px 7px)',
              height: 3,
            }}
            aria-hidden="true"
          />
          p95 (dashed, squares)
          {latest?.p95Ms !== null && latest ? `: ${Math.round(latest.p95Ms ?? 0)} ms latest` : ''}
        </span>
        <span className="muted">
          {pts.reduce((s, p) => s + p.probes, 0)} probes, {pts.reduce((s, p) => s + p.failures, 0)} failures ·
          {` ${unit} · UTC`}
        </span>
      </figcaption>
    </figure>
  );
}
