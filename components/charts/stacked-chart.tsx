// The one stacked bar chart of the dashboard: columns of stacked series over time, with the y axis (0 and the
// largest total), three time ticks, the era patterns (so no series is told by colour alone) and a legend
// swatch. The balancer's History panel draws with it.
import type { ReactNode } from 'react';

export const CHART_W = 560;
const PAD = { l: 30, r: 8, b: 20 };

export interface StackSeries<K extends string> {
  key: K;
  label: string;
  /** A colour or one of the patterns below (`url(#chart-…)`). */
  fill: string;
}

export interface StackColumn<K extends string> {
  /** Unique per column (the step's time). */
  id: number;
  values: Record<K, number>;
  /** Hover text: the column's time and counts. */
  title: string;
}

/** Where a column sits: its left edge and width, for anything drawn above the stacks (the state band). */
export interface ColumnGeometry {
  x: (index: number) => number;
  width: number;
}

/** The era patterns: dual-era striped in both eras' colours, legacy and unavailable hatched, auth-gated dotted. */
export const PATTERN = {
  dualEra: 'url(#chart-dual)',
  legacy: 'url(#chart-legacy)',
  unavailable: 'url(#chart-unavail)',
  authGated: 'url(#chart-gated)',
} as const;

function Patterns() {
  return (
    <defs>
      <pattern
        id="chart-dual"
        width="6"
        height="6"
        patternUnits="userSpaceOnUse"
        patternTransform="rotate(45)"
      >
        <rect width="6" height="6" fill="var(--modern)" />
        <rect width="3" height="6" fill="var(--legacy)" />
      </pattern>
      <pattern
        id="chart-legacy"
        width="5"
        height="5"
        patternUnits="userSpaceOnUse"
        patternTransform="rotate(45)"
      >
        <rect width="5" height="5" fill="var(--legacy)" />
        <line x1="0" y1="0" x2="0" y2="5" stroke="rgba(255,255,255,.45)" strokeWidth="2" />
      </pattern>
      <pattern
        id="chart-unavail"
        width="4"
        height="4"
        patternUnits="userSpaceOnUse"
        patternTransform="rotate(-45)"
      >
        <rect width="4" height="4" fill="var(--unavailable)" />
        <line x1="0" y1="0" x2="0" y2="4" stroke="rgba(255,255,255,.55)" strokeWidth="1.5" />
      </pattern>
      <pattern id="chart-gated" width="5" height="5" patternUnits="userSpaceOnUse">
        <rect width="5" height="5" fill="var(--auth-gated)" />
        <circle cx="2.5" cy="2.5" r="1" fill="rgba(255,255,255,.6)" />
      </pattern>
    </defs>
  );
}

/** Each series' share of a column, bottom to top: where its segment starts and how tall it is. */
function segments<K extends string>(column: StackColumn<K>, series: ReadonlyArray<StackSeries<K>>) {
  const out: Array<{ series: StackSeries<K>; from: number; value: number }> = [];
  let below = 0;
  for (const s of series) {
    const value = column.values[s.key];
    if (value > 0) out.push({ series: s, from: below, value });
    below += value;
  }
  return out;
}

function Stack<K extends string>(props: {
  column: StackColumn<K>;
  series: ReadonlyArray<StackSeries<K>>;
  x: number;
  width: number;
  y: (v: number) => number;
}) {
  return (
    <g>
      {segments(props.column, props.series).map(({ series: s, from, value }) => {
        const top = props.y(from + value);
        return (
          <rect
            key={s.key}
            x={props.x}
            y={top}
            width={props.width}
            height={Math.max(0, props.y(from) - top)}
            fill={s.fill}
          />
        );
      })}
      <title>{props.column.title}</title>
    </g>
  );
}

/**
 * Stacked columns, bottom to top in `series` order, scaled to the largest total. `ticks` label the first
 * column's start, the middle column and the last column's end; `above` draws over the top `top` pixels.
 */
export function StackedChart<K extends string>(props: {
  title: string;
  testId?: string;
  height: number;
  top: number;
  series: ReadonlyArray<StackSeries<K>>;
  columns: ReadonlyArray<StackColumn<K>>;
  ticks: readonly [string, string, string];
  above?: (g: ColumnGeometry) => ReactNode;
}) {
  const { columns, series, height: H, top } = props;
  const width = (CHART_W - PAD.l - PAD.r) / Math.max(1, columns.length);
  const gap = width > 4 ? 1 : 0;
  const total = (c: StackColumn<K>) => series.reduce((sum, s) => sum + c.values[s.key], 0);
  const max = Math.max(1, ...columns.map(total));
  const y = (v: number) => H - PAD.b - (v / max) * (H - PAD.b - top);
  const x = (i: number) => PAD.l + i * width;
  const mid = Math.floor(columns.length / 2);
  return (
    <svg
      className="chart"
      viewBox={`0 0 ${CHART_W} ${H}`}
      role="img"
      aria-label={props.title}
      data-testid={props.testId}
    >
      <title>{props.title}</title>
      <Patterns />
      {props.above?.({ x, width })}
      <line x1={PAD.l} y1={H - PAD.b} x2={CHART_W - PAD.r} y2={H - PAD.b} stroke="var(--line)" />
      <text x={PAD.l - 4} y={y(max) + 4} textAnchor="end">
        {max}
      </text>
      <text x={PAD.l - 4} y={H - PAD.b} textAnchor="end">
        0
      </text>
      {columns.map((c, i) => (
        <Stack key={c.id} column={c} series={series} x={x(i)} width={Math.max(0.5, width - gap)} y={y} />
      ))}
      <text x={x(0)} y={H - 5} textAnchor="start">
        {props.ticks[0]}
      </text>
      <text x={x(mid)} y={H - 5} textAnchor="middle">
        {props.ticks[1]}
      </text>
      <text x={x(columns.length)} y={H - 5} textAnchor="end">
        {props.ticks[2]}
      </text>
    </svg>
  );
}

/** A legend entry: the series' swatch (its colour or pattern) and its text. */
export function LegendItem(props: { fill: string; hint?: string; testId?: string; children: ReactNode }) {
  return (
    <span title={props.hint} data-testid={props.testId}>
      <svg width="12" height="10" aria-hidden="true" style={{ verticalAlign: 'middle', marginRight: 4 }}>
        <rect width="12" height="10" fill={props.fill} />
      </svg>
      {props.children}
    </span>
  );
}
