'use client';
import { useVirtualizer } from '@tanstack/react-virtual';
import Link from 'next/link';
import { useMemo, useRef } from 'react';
import { Age } from '@/components/ui/age';
import { Badge } from '@/components/ui/badge';
import type { NodeSummary } from '@/lib/query/types';
import { SERVED_ERA_LABELS } from '@/lib/rollout/labels';
import type { BalancerAnalysisView } from '@/lib/query/types';
import { regionOfRow, revisionColumns, rowRegions } from '@/lib/ui/balancer';
import { nodeLabel } from '@/lib/schemas/node-label';
import { presentEra, presentVerdict } from '@/lib/ui/presentation';

const ROW_HEIGHT = 36;

function letter(index: number): string {
  return index < 26 ? String.fromCharCode(65 + index) : `G${index + 1}`;
}

/**
 * The node × revision matrix: one row per node (per node and region, when several regions probe it) with its
 * client verdict and a mark per revision it serves.
 */
export function NodeMatrix({
  nodes,
  analysis,
  label = 'Nodes by revision',
}: {
  nodes: NodeSummary[];
  analysis: Pick<BalancerAnalysisView, 'partition'> | null;
  label?: string;
}) {
  const scrollRef = useRef<HTMLDivElement>(null);
  const revisions = useMemo(
    () => revisionColumns(nodes.map((n) => n.state?.verdict.supported ?? [])),
    [nodes],
  );
  const regions = useMemo(() => rowRegions(nodes), [nodes]);
  const showRegion = regions.length > 1 || (regions.length === 1 && regions[0] !== 'default');
  // A row carries its group's fingerprint key; the group's letter is its place in the partition.
  const letterOf = useMemo(
    () => new Map((analysis?.partition ?? []).map((g, i) => [g.key, letter(i)])),
    [analysis],
  );
  const groupOfRow = (n: NodeSummary) => (n.groupKey === null ? undefined : letterOf.get(n.groupKey));
  const multiGroup = (analysis?.partition.length ?? 0) > 1;
  // Nodes whose group is not the largest come first, so contradicting nodes are visible without scrolling.
  const rows = useMemo(
    () =>
      [...nodes].sort((a, b) => {
        const ga = (a.groupKey === null ? undefined : letterOf.get(a.groupKey)) ?? '~';
        const gb = (b.groupKey === null ? undefined : letterOf.get(b.groupKey)) ?? '~';
        const wa = ga === 'A' ? 1 : 0;
        const wb = gb === 'A' ? 1 : 0;
        return (
          wa - wb ||
          ga.localeCompare(gb) ||
          nodeLabel(a).localeCompare(nodeLabel(b)) ||
          regionOfRow(a).localeCompare(regionOfRow(b))
        );
      }),
    [nodes, letterOf],
  );
  // See fleet-view: no React Compiler memoisation here, so the virtualizer's changing functions are fine.
  // eslint-disable-next-line react-hooks/incompatible-library
  const virtualizer = useVirtualizer({
    count: rows.length,
    getScrollElement: () => scrollRef.current,
    estimateSize: () => ROW_HEIGHT,
    overscan: 12,
    initialRect: { width: 1200, height: 600 },
    getItemKey: (i) => {
      const r = rows[i];
      return r ? `${r.id}|${regionOfRow(r)}` : i;
    },
  });

  if (nodes.length === 0) {
    return (
      <p className="empty">
        No nodes known yet. Nodes come from the listed node URLs, the DNS records of the host (when enabled)
        and attributed samples of the public URL.
      </p>
    );
  }
  const template = `minmax(200px, 2.2fr) ${showRegion ? '96px ' : ''}168px minmax(120px, 1.2fr) ${revisions
    .map(() => '84px')
    .join(' ')} 118px 56px 68px 84px`;
  return (
    <div className="table-wrap">
      <div
        className="vlist"
        role="table"
        aria-label={label}
        aria-rowcount={rows.length + 1}
        style={{ minWidth: 760 + revisions.length * 90 + (showRegion ? 96 : 0) }}
      >
        <div role="rowgroup">
          <div className="vrow vhead" role="row" aria-rowindex={1} style={{ gridTemplateColumns: template }}>
            <span role="columnheader">Node</span>
            {showRegion ? <span role="columnheader">Region</span> : null}
            <span role="columnheader">Client verdict</span>
            <span role="columnheader">Reason</span>
            {revisions.map((r) => (
              <span role="columnheader" key={r} className="mono" style={{ textAlign: 'center' }}>
                {r}
              </span>
            ))}
            <span role="columnheader">Served</span>
            <span role="columnheader">Group</span>
            <span role="columnheader" className="num">
              Latency
            </span>
            <span role="columnheader">Probed</span>
          </div>
        </div>
        {/* The scroller is the rows' group (rows must sit in a row group, not a plain box), focusable so
            keyboard users can scroll rows that are not rendered yet. */}
        <div
          ref={scrollRef}
          className="vscroll"
          role="rowgroup"
          aria-label={`${label}: rows`}
          tabIndex={0}
          style={{ height: `min(${rows.length * ROW_HEIGHT + 2}px, 60vh)`, minHeight: 80 }}
        >
          <div className="vbody" role="presentation" style={{ height: virtualizer.getTotalSize() }}>
            {virtualizer.getVirtualItems().map((item) => {
              const n = rows[item.index];
              if (!n) return null;
              const v = n.state?.verdict ?? null;
              const group = groupOfRow(n) ?? null;
              const served = new Set(v?.supported ?? []);
              return (
                <div
                  key={item.key}
                  role="row"
                  aria-rowindex={item.index + 2}
                  className={`vrow${multiGroup && group !== null && group !== 'A' ? ' is-flagged' : ''}`}
                  data-testid="node-row"
                  data-node-url={n.url}
                  data-region={n.state ? regionOfRow(n) : undefined}
                  style={{
                    gridTemplateColumns: template,
                    transform: `translateY(${item.start}px)`,
                    height: item.size,
                  }}
                >
                  <span role="cell" title={n.url}>
                    <Link href={`/nodes/${encodeURIComponent(n.id)}`}>{nodeLabel(n)}</Link>
                  </span>
                  {showRegion ? (
                    <span role="cell" className="mono" data-testid="node-row-region">
                      {n.state ? regionOfRow(n) : '—'}
                    </span>
                  ) : null}
                  <span role="cell">
                    {v ? (
                      <Badge
                        p={presentVerdict(v)}
                        text={
                          v.negotiatedVersion
                            ? `${presentEra(v.verdict).label} ${v.negotiatedVersion}`
                            : undefined
                        }
                        testId="node-verdict"
                      />
                    ) : (
                      <span className="muted">not probed</span>
                    )}
                  </span>
                  <span role="cell" className="mono muted" title={v?.reason}>
                    {v?.reason ?? '—'}
                  </span>
                  {revisions.map((r) => (
                    <span
                      role="cell"
                      key={r}
                      style={{ textAlign: 'center' }}
                      className={served.has(r) ? 'cell-yes' : 'cell-no'}
                    >
                      {served.has(r) ? '✓ serves' : '–'}
                    </span>
                  ))}
                  <span role="cell">{v ? SERVED_ERA_LABELS[v.servedEras] : '—'}</span>
                  <span role="cell">{group ?? (v?.verdict === 'unavailable' ? '—' : '')}</span>
                  <span role="cell" className="num">
                    {v ? `${v.durationMs} ms` : '—'}
                  </span>
                  <span role="cell" className="muted">
                    <Age at={n.state?.probedAt ?? null} />
                  </span>
                </div>
              );
            })}
          </div>
        </div>
      </div>
    </div>
  );
}
