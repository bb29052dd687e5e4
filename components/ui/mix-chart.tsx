import type { MixPoint } from '@/lib/ui/balancer';

const W = 560;
const H = 150;
const PAD = { l: 30, r: 8, t: 8, b: 20 };
const ERAS = [
  { key: 'modern', label: 'Modern', fill: 'var(--modern)', pattern: null },
  { key: 'legacy', label: 'Legacy', fill: 'var(--legacy)', pattern: 'url(#hatch-legacy)' },
  { key: 'unavailable', label: 'Unavailable', fill: 'var(--unavailable)', pattern: 'url(#hatch-unavail)' },
  { key: 'authGated', label: 'Auth-gated', fill: 'var(--auth-gated)', pattern: 'url(#dots-gated)' },
] as const;

function clock(at: number): string {
  return new Date(at).toISOString().slice(11, 16);
}

/** Stacked step areas of the node era mix over time; each era also has a hatch and a legend label. */
export function MixChart({ points, now, title }: { points: MixPoint[]; now: number; title: string }) {
  const first = points[0];
  if (!first) return null;
  const t0 = first.at;
  const span = Math.max(1, now - t0);
  const maxTotal = Math.max(1, ...points.map((p) => p.modern + p.legacy + p.unavailable + p.authGated));
  const x = (t: number) => PAD.l + ((t - t0) / span) * (W - PAD.l - PAD.r);
  const y = (v: number) => H - PAD.b - (v / maxTotal) * (H - PAD.t - PAD.b);

  const bands = ERAS.map((era, layer) => {
    const below = (p: MixPoint) => ERAS.slice(0, layer).reduce((s, e) => s + p[e.key], 0);
    const top: string[] = [];
    const bottom: string[] = [];
    points.forEach((p, i) => {
      const next = points[i + 1]?.at ?? now;
      const lo = below(p);
      const hi = lo + p[era.key];
      top.push(`${x(p.at)},${y(hi)}`, `${x(next)},${y(hi)}`);
      bottom.push(`${x(p.at)},${y(lo)}`, `${x(next)},${y(lo)}`);
    });
    return { era, d: `M${top.join('L')}L${bottom.reverse().join('L')}Z` };
  });

  const ticks = [t0, t0 + span / 2, now];
  const last = points[points.length - 1] ?? first;
  return (
    <figure style={{ margin: 0 }}>
      <svg className="chart" viewBox={`0 0 ${W} ${H}`} role="img" aria-label={title}>
        <title>{title}</title>
        <defs>
          <pattern
            id="hatch-legacy"
            width="5"
            height="5"
            patternUnits="userSpaceOnUse"
            patternTransform="rotate(45)"
          >
            <rect width="5" height="5" fill="var(--legacy)" />
            <line x1="0" y1="0" x2="0" y2="5" stroke="rgba(255,255,255,.45)" strokeWidth="2" />
          </pattern>
          <pattern
            id="hatch-unavail"
            width="4"
            height="4"
            patternUnits="userSpaceOnUse"
            patternTransform="rotate(-45)"
          >
            <rect width="4" height="4" fill="var(--unavailable)" />
            <line x1="0" y1="0" x2="0" y2="4" stroke="rgba(255,255,255,.55)" strokeWidth="1.5" />
          </pattern>
          <pattern id="dots-gated" width="5" height="5" patternUnits="userSpaceOnUse">
            <rect width="5" height="5" fill="var(--auth-gated)" />
            <circle cx="2.5" cy="2.5" r="1" fill="rgba(255,255,255,.6)" />
          </pattern>
        </defs>
        <line x1={PAD.l} y1={H - PAD.b} x2={W - PAD.r} y2={H - PAD.b} stroke="var(--line)" />
        <text x={PAD.l - 4} y={y(maxTotal) + 4} textAnchor="end">
          {maxTotal}
        </text>
        <text x={PAD.l - 4} y={H - PAD.b} textAnchor="end">
          0
        </text>
        {bands.map((b) => (
          <path key={b.era.key} d={b.d} fill={b.era.pattern ?? b.era.fill} stroke="none" />
        ))}
        {ticks.map((t, i) => (
          <text key={i} x={x(t)} y={H - 5} textAnchor={i === 0 ? 'start' : i === 2 ? 'end' : 'middle'}>
            {clock(t)}
          </text>
        ))}
      </svg>
      <figcaption className="legend">
        {ERAS.map((e) => (
          <span key={e.key}>
            <span className={`swatch mix-${e.key}`} aria-hidden="true" />
            {e.label}: {last[e.key]} now
          </span>
        ))}
        <span className="muted">times UTC</span>
      </figcaption>
    </figure>
  );
}
