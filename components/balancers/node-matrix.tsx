'use client';
// The node × revision matrix of a balancer: one row per node (per node and region, when several regions probe
// it), filtered and sorted on the server and fetched a page at a time as the window scrolls. The rows scroll
// with the page (window virtualisation): no scroller of their own. Filter and sort live in the URL.
import { keepPreviousData, useInfiniteQuery } from '@tanstack/react-query';
import { useWindowVirtualizer, type VirtualItem } from '@tanstack/react-virtual';
import Link from 'next/link';
import { useEffect, useLayoutEffect, useMemo, useRef, useState } from 'react';
import { Age } from '@/components/ui/age';
import { Badge } from '@/components/ui/badge';
import { LoadError, Loading } from '@/components/ui/query-state';
import { NARROW_QUERY, useMediaQuery } from '@/components/ui/use-media';
import { browserFetcher } from '@/lib/query/fetch-json';
import { balancerNodePagesQuery } from '@/lib/query/options';
import type { BalancerAnalysisView, NodeRow } from '@/lib/query/types';
import { SERVED_ERA_LABELS } from '@/lib/rollout/labels';
import { nodeLabel } from '@/lib/schemas/node-label';
import { groupLetter, regionOfRow, revisionColumns } from '@/lib/ui/balancer';
import { presentEra, presentVerdict } from '@/lib/ui/presentation';
import { NO_FILTER, toggleSort, type MatrixQuery, type NodeSort } from '@/lib/ui/node-filter';
import { MatrixFilters, useMatrixQuery } from './node-matrix-filters';

const ROW_HEIGHT = 36;
/** Below 700 px a row is a card of two lines: the node, then its verdict and group (see .node-card). */
const CARD_HEIGHT = 60;
/** Rows past the last rendered one at which the next page is asked for, so it is there before it shows. */
const PREFETCH_ROWS = 30;

interface Column {
  label: string;
  sort?: NodeSort;
  width: string;
  className?: string;
  /** Kept on a phone, where the other columns go. */
  essential?: boolean;
}

function columnsFor(revisions: string[], showRegion: boolean, narrow: boolean): Column[] {
  const all: Column[] = [
    { label: 'Node', sort: 'name', width: 'minmax(200px, 2.2fr)', essential: true },
    ...(showRegion ? [{ label: 'Region', sort: 'region' as const, width: '96px' }] : []),
    { label: 'Client verdict', sort: 'clientEra', width: '168px', essential: true },
    { label: 'Reason', width: 'minmax(120px, 1.2fr)' },
    ...revisions.map((r) => ({ label: r, width: '84px', className: 'mono center' })),
    { label: 'Served', sort: 'served', width: '118px' },
    { label: 'Group', sort: 'group', width: '56px', essential: true },
    { label: 'Latency', sort: 'latency', width: '68px', className: 'num' },
    { label: 'Probed', sort: 'probedAt', width: '84px' },
  ];
  if (!narrow) return all;
  return all
    .filter((c) => c.essential)
    .map((c) => ({
      ...c,
      width: c.label === 'Node' ? 'minmax(0, 1fr)' : c.label === 'Group' ? '44px' : 'auto',
    }));
}

/** Where the matrix's first row is from the top of the document: the window virtualiser's scroll margin. */
function useDocumentTop(ref: React.RefObject<HTMLElement | null>): number {
  const [top, setTop] = useState(0);
  useLayoutEffect(() => {
    const el = ref.current;
    if (!el) return;
    const measure = () => setTop(Math.round(el.getBoundingClientRect().top + window.scrollY));
    measure();
    const observer = new ResizeObserver(measure);
    observer.observe(document.body);
    return () => observer.disconnect();
  }, [ref]);
  return top;
}

export function NodeMatrix({
  balancerId,
  analysis,
}: {
  balancerId: string;
  analysis: BalancerAnalysisView | null;
}) {
  const [query, setQuery] = useMatrixQuery();
  const nodes = useInfiniteQuery({
    ...balancerNodePagesQuery(browserFetcher, balancerId, query),
    placeholderData: keepPreviousData,
  });
  const pages = nodes.data?.pages;
  const rows = useMemo(() => pages?.flatMap((p) => p.items) ?? [], [pages]);
  const matched = pages?.[0]?.matched ?? 0;
  const total = pages?.[0]?.total ?? 0;
  const groups = useMemo(
    () => new Map((analysis?.partition ?? []).map((g, i) => [g.key, groupLetter(i)])),
    [analysis],
  );
  const revisions = useMemo(
    () =>
      revisionColumns([
        ...(analysis?.partition ?? []).map((g) => g.fingerprint.supported),
        ...rows.map((n) => n.state?.verdict.supported ?? []),
      ]),
    [analysis, rows],
  );
  const regions = (analysis?.regions ?? []).map((r) => r.region);
  const showRegion = regions.length > 1 || rows.some((n) => n.state && regionOfRow(n) !== 'default');
  return (
    <>
      <MatrixFilters
        query={query}
        onChange={setQuery}
        analysis={analysis}
        revisions={revisions}
        regions={regions}
        matched={matched}
        total={total}
        loaded={nodes.data !== undefined}
      />
      {nodes.isPending ? <Loading what="nodes" /> : null}
      {nodes.error && !nodes.data ? <LoadError error={nodes.error} what="the nodes" /> : null}
      {nodes.data && matched === 0 ? (
        <MatrixEmpty filtered={total > 0} onClear={() => setQuery({ ...query, ...NO_FILTER })} />
      ) : null}
      {matched > 0 ? (
        <MatrixTable
          rows={rows}
          count={nodes.hasNextPage ? Math.max(matched, rows.length) : rows.length}
          query={query}
          onSort={(sort) => setQuery({ ...query, ...toggleSort(query, sort) })}
          revisions={revisions}
          showRegion={showRegion}
          groups={groups}
          more={() => {
            if (nodes.hasNextPage && !nodes.isFetchingNextPage) void nodes.fetchNextPage();
          }}
          stale={nodes.isPlaceholderData}
        />
      ) : null}
    </>
  );
}

function MatrixEmpty({ filtered, onClear }: { filtered: boolean; onClear: () => void }) {
  if (!filtered) {
    return (
      <p className="empty">
        No nodes known yet. Nodes come from the listed node URLs, the DNS records of the host (when enabled)
        and attributed samples of the public URL.
      </p>
    );
  }
  return (
    <div className="empty" data-testid="matrix-empty">
      <p style={{ margin: '0 0 8px' }}>No node matches these filters.</p>
      <button type="button" onClick={onClear}>
        Clear filters
      </button>
    </div>
  );
}

function MatrixTable(props: {
  rows: NodeRow[];
  count: number;
  query: MatrixQuery;
  onSort: (sort: NodeSort) => void;
  revisions: string[];
  showRegion: boolean;
  groups: Map<string, string>;
  more: () => void;
  stale: boolean;
}) {
  const { rows, count, revisions, showRegion, groups } = props;
  const narrow = useMediaQuery(NARROW_QUERY);
  const bodyRef = useRef<HTMLDivElement>(null);
  const scrollMargin = useDocumentTop(bodyRef);
  const columns = columnsFor(revisions, showRegion, narrow);
  // A card's layout is the stylesheet's (grid areas); a wide row's columns follow the revisions shown.
  const template = narrow ? undefined : columns.map((c) => c.width).join(' ');
  const virtualizer = useWindowVirtualizer({
    count,
    estimateSize: () => (narrow ? CARD_HEIGHT : ROW_HEIGHT),
    overscan: 12,
    scrollMargin,
    initialRect: { width: 1200, height: 900 },
    getItemKey: (i) => rowKey(rows[i]) ?? `slot-${i}`,
  });
  const items = virtualizer.getVirtualItems();
  const lastIndex = items.at(-1)?.index ?? 0;
  const { more } = props;
  useEffect(() => {
    if (lastIndex + PREFETCH_ROWS >= rows.length) more();
  }, [lastIndex, rows.length, more]);
  const multiGroup = groups.size > 1;
  const firstGroup = [...groups.keys()][0];
  return (
    <div className={`table-wrap matrix-wrap${narrow ? ' matrix-cards' : ''}`}>
      <div
        className="vlist"
        role="table"
        aria-label="Nodes by revision"
        aria-rowcount={count + 1}
        aria-busy={props.stale}
        data-testid="node-matrix"
        // Set once the page has measured where the rows start (after hydration): tests wait for it.
        data-measured={scrollMargin > 0 ? 'true' : undefined}
        style={{ minWidth: narrow ? 0 : 760 + revisions.length * 90 + (showRegion ? 96 : 0) }}
      >
        <div role="rowgroup">
          <div className="vrow vhead" role="row" aria-rowindex={1} style={{ gridTemplateColumns: template }}>
            {columns.map((c) => (
              <HeaderCell key={c.label} column={c} query={props.query} onSort={props.onSort} />
            ))}
          </div>
        </div>
        <div
          ref={bodyRef}
          className="vbody"
          role="rowgroup"
          aria-label="Nodes by revision: rows"
          style={{ height: virtualizer.getTotalSize() }}
        >
          {items.map((item) => {
            const n = rows[item.index];
            const style = {
              gridTemplateColumns: template,
              transform: `translateY(${item.start - virtualizer.options.scrollMargin}px)`,
              height: item.size,
            };
            if (!n) return <PendingRow key={item.key} item={item} style={style} />;
            const group = n.groupKey ? (groups.get(n.groupKey) ?? null) : null;
            return (
              <MatrixRow
                key={item.key}
                node={n}
                index={item.index}
                style={style}
                columns={columns}
                revisions={revisions}
                group={group}
                flagged={multiGroup && n.groupKey != null && n.groupKey !== firstGroup}
              />
            );
          })}
        </div>
      </div>
    </div>
  );
}

function rowKey(n: NodeRow | undefined): string | null {
  return n ? `${n.id}|${regionOfRow(n)}` : null;
}

function HeaderCell(props: { column: Column; query: MatrixQuery; onSort: (sort: NodeSort) => void }) {
  const { column: c, query } = props;
  if (!c.sort) {
    return (
      <span role="columnheader" className={c.className}>
        {c.label}
      </span>
    );
  }
  const active = query.sort === c.sort;
  const sort = c.sort;
  return (
    <span
      role="columnheader"
      className={c.className}
      aria-sort={active ? (query.order === 'asc' ? 'ascending' : 'descending') : undefined}
    >
      <button type="button" className="sort-button" onClick={() => props.onSort(sort)}>
        {c.label}
        <span aria-hidden="true" className="sort-mark">
          {active ? (query.order === 'asc' ? '▲' : '▼') : '↕'}
        </span>
      </button>
    </span>
  );
}

function PendingRow({ item, style }: { item: VirtualItem; style: React.CSSProperties }) {
  return (
    <div role="row" aria-rowindex={item.index + 2} className="vrow" style={style}>
      <span role="cell" className="muted">
        Loading…
      </span>
    </div>
  );
}

function MatrixRow(props: {
  node: NodeRow;
  index: number;
  style: React.CSSProperties;
  columns: Column[];
  revisions: string[];
  group: string | null;
  flagged: boolean;
}) {
  const { node: n, columns } = props;
  const v = n.state?.verdict ?? null;
  const served = new Set(v?.supported ?? []);
  const shown = new Set(columns.map((c) => c.label));
  return (
    <div
      role="row"
      aria-rowindex={props.index + 2}
      className={`vrow node-card${props.flagged ? ' is-flagged' : ''}`}
      data-testid="node-row"
      data-node-url={n.url}
      data-region={n.state ? regionOfRow(n) : undefined}
      style={props.style}
    >
      <span role="cell" className="col-node" title={n.url}>
        <Link href={`/nodes/${encodeURIComponent(n.id)}`}>{nodeLabel(n)}</Link>
      </span>
      {shown.has('Region') ? (
        <span role="cell" className="mono" data-testid="node-row-region">
          {n.state ? regionOfRow(n) : '—'}
        </span>
      ) : null}
      <span role="cell" className="col-verdict">
        {v ? (
          <Badge
            p={presentVerdict(v)}
            text={v.negotiatedVersion ? `${presentEra(v.verdict).label} ${v.negotiatedVersion}` : undefined}
            testId="node-verdict"
          />
        ) : (
          <span className="muted">not probed</span>
        )}
      </span>
      {shown.has('Reason') ? (
        <span role="cell" className="mono muted" title={v?.reason}>
          {v?.reason ?? '—'}
        </span>
      ) : null}
      {props.revisions
        .filter((r) => shown.has(r))
        .map((r) => (
          <span role="cell" key={r} className={`center ${served.has(r) ? 'cell-yes' : 'cell-no'}`}>
            {served.has(r) ? '✓ serves' : '–'}
          </span>
        ))}
      {shown.has('Served') ? <span role="cell">{v ? SERVED_ERA_LABELS[v.servedEras] : '—'}</span> : null}
      <span role="cell" className="col-group" data-testid="node-row-group">
        {props.group ? <span className="card-label">Group </span> : null}
        {props.group ?? (v?.verdict === 'unavailable' ? '—' : '')}
      </span>
      {shown.has('Latency') ? (
        <span role="cell" className="num">
          {v ? `${v.durationMs} ms` : '—'}
        </span>
      ) : null}
      {shown.has('Probed') ? (
        <span role="cell" className="muted">
          <Age at={n.state?.probedAt ?? null} />
        </span>
      ) : null}
    </div>
  );
}
