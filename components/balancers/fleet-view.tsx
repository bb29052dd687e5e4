'use client';
import { FleetProgressCell } from './progress-bar';
import { useQuery } from '@tanstack/react-query';
import { useVirtualizer } from '@tanstack/react-virtual';
import Link from 'next/link';
import { RoleGate } from '@/components/session/role';
import { useSearchParams } from 'next/navigation';
import { replaceUrlQuery } from '@/components/ui/url-query';
import { useDeferredValue, useMemo, useRef, useState } from 'react';
import { NARROW_QUERY, useMediaQuery } from '@/components/ui/use-media';
import { useSlashFocus } from '@/components/ui/use-slash-focus';
import { Age, Since } from '@/components/ui/age';
import { Badge } from '@/components/ui/badge';
import { EraMixBar } from '@/components/ui/era-mix';
import { Icon } from '@/components/ui/icon';
import { LoadError, Loading } from '@/components/ui/query-state';
import { browserFetcher } from '@/lib/query/fetch-json';
import { fleetQuery } from '@/lib/query/options';
import { countFleet, filterFleet, type FleetFilter, type FleetRow } from '@/lib/ui/fleet';
import { plural } from '@/lib/rollout/text';
import { FLEET_STATUSES, isFleetStatus, presentGate, presentStatus } from '@/lib/ui/presentation';

const ROW_HEIGHT = 38;
/** Below 700 px a row is a card of three lines (see .fleet-cols in app/globals.css). */
const CARD_HEIGHT = 88;

function readStatus(value: string | null): FleetFilter['status'] {
  if (value === 'non-uniform') return value;
  return isFleetStatus(value) ? value : 'all';
}

export function FleetView() {
  const { data, error, isPending } = useQuery(fleetQuery(browserFetcher));
  const params = useSearchParams();
  const [search, setSearchState] = useState(() => params.get('q') ?? '');
  const [status, setStatusState] = useState<FleetFilter['status']>(() => readStatus(params.get('state')));
  // The filter lives in the URL so it can be shared.
  const syncUrl = (q: string, state: FleetFilter['status']) =>
    replaceUrlQuery((next) => {
      if (q) next.set('q', q);
      else next.delete('q');
      if (state !== 'all') next.set('state', state);
      else next.delete('state');
      return next;
    });
  const setSearch = (q: string) => {
    setSearchState(q);
    syncUrl(q, status);
  };
  const setStatus = (state: FleetFilter['status']) => {
    setStatusState(state);
    syncUrl(search, state);
  };
  const deferredSearch = useDeferredValue(search);
  const searchRef = useRef<HTMLInputElement>(null);
  useSlashFocus(searchRef);
  const narrow = useMediaQuery(NARROW_QUERY);

  const rows = useMemo(() => data ?? [], [data]);
  const counts = useMemo(() => countFleet(rows), [rows]);
  const visible = useMemo(
    () => filterFleet(rows, { search: deferredSearch, status }),
    [rows, deferredSearch, status],
  );

  if (isPending) return <Loading what="the fleet" />;
  if (error && !data) return <LoadError error={error} what="the fleet" />;
  if (rows.length === 0) return <EmptyFleet />;

  const presentStatuses = FLEET_STATUSES.filter((s) => (counts.byStatus[s] ?? 0) > 0);
  return (
    <>
      {error ? <LoadError error={error} what="the latest fleet state" /> : null}
      <ul className="counts" aria-label="Fleet counts">
        <CountButton
          n={counts.total}
          label={counts.total === 1 ? 'balancer' : 'balancers'}
          selected={status === 'all'}
          onClick={() => setStatus('all')}
        />
        <CountButton
          n={counts.nonUniform}
          label="Non-uniform"
          icon="nonuniform"
          selected={status === 'non-uniform'}
          onClick={() => setStatus('non-uniform')}
          testId="count-non-uniform"
        />
        {presentStatuses.map((s) => (
          <CountButton
            key={s}
            n={counts.byStatus[s] ?? 0}
            label={presentStatus(s).label}
            icon={presentStatus(s).icon}
            selected={status === s}
            onClick={() => setStatus(s)}
          />
        ))}
      </ul>
      <div className="panel">
        <div className="panel-body toolbar" style={{ marginBottom: 0 }}>
          <label className="visually-hidden" htmlFor="fleet-search">
            Search balancers
          </label>
          <input
            ref={searchRef}
            id="fleet-search"
            className="search"
            type="search"
            placeholder="Search name or URL  ( / )"
            aria-keyshortcuts="/"
            value={search}
            onChange={(e) => setSearch(e.target.value)}
          />
          <label className="visually-hidden" htmlFor="fleet-status">
            Filter by state
          </label>
          <select
            id="fleet-status"
            value={status}
            onChange={(e) => setStatus(e.target.value as FleetFilter['status'])}
          >
            <option value="all">All states</option>
            <option value="non-uniform">Non-uniform</option>
            {FLEET_STATUSES.map((s) => (
              <option key={s} value={s}>
                {presentStatus(s).label}
              </option>
            ))}
          </select>
          <span className="muted" role="status" aria-live="polite">
            {visible.length === rows.length
              ? plural(rows.length, 'balancer', 'balancers')
              : `${visible.length} of ${plural(rows.length, 'balancer', 'balancers')}`}
          </span>
        </div>
        <FleetList
          key={narrow ? 'cards' : 'rows'}
          rows={visible}
          rowHeight={narrow ? CARD_HEIGHT : ROW_HEIGHT}
        />
      </div>
    </>
  );
}

function CountButton(props: {
  n: number;
  label: string;
  icon?: Parameters<typeof Icon>[0]['name'];
  selected: boolean;
  onClick: () => void;
  testId?: string;
}) {
  return (
    <li className={`count${props.selected ? ' selected' : ''}`} data-testid={props.testId}>
      <button type="button" onClick={props.onClick} aria-pressed={props.selected}>
        <span className="count-n">{props.n}</span>
        <span className="count-label">
          {props.icon ? <Icon name={props.icon} /> : null}
          {props.label}
        </span>
      </button>
    </li>
  );
}

function FleetList({ rows, rowHeight }: { rows: FleetRow[]; rowHeight: number }) {
  const scrollRef = useRef<HTMLDivElement>(null);
  // The virtualizer's functions change every render; nothing here memoises them, so the warning does not apply.
  // eslint-disable-next-line react-hooks/incompatible-library
  const virtualizer = useVirtualizer({
    count: rows.length,
    getScrollElement: () => scrollRef.current,
    estimateSize: () => rowHeight,
    overscan: 12,
    initialRect: { width: 1200, height: 720 },
    getItemKey: (i) => rows[i]?.id ?? i,
  });
  if (rows.length === 0) {
    return <p className="empty">No balancer matches this filter.</p>;
  }
  return (
    <div className="vlist" role="table" aria-label="Balancers" aria-rowcount={rows.length + 1}>
      <div role="rowgroup" className="vhead-group">
        <div className="vrow vhead fleet-cols" role="row" aria-rowindex={1}>
          <span role="columnheader" className="col-name">
            Balancer
          </span>
          <span role="columnheader" className="col-state">
            State
          </span>
          <span role="columnheader" className="col-mix">
            Era mix or progress
          </span>
          <span role="columnheader" className="col-gate" title="Ready to advertise 2026-07-28">
            Gate
          </span>
          <span role="columnheader" className="col-probe">
            Last probe
          </span>
          <span role="columnheader" className="col-url">
            Public URL
          </span>
        </div>
      </div>
      {/* The scroller is the rows' group (a table's rows must sit in a row group, not in a plain box), and
          focusable so keyboard users can scroll rows that are not rendered yet. */}
      <div
        ref={scrollRef}
        className="vscroll"
        role="rowgroup"
        aria-label="Balancer rows"
        tabIndex={0}
        style={{ height: `min(${rows.length * rowHeight + 2}px, max(calc(100vh - 250px), 240px))` }}
      >
        <div className="vbody" role="presentation" style={{ height: virtualizer.getTotalSize() }}>
          {virtualizer.getVirtualItems().map((item) => {
            const row = rows[item.index];
            if (!row) return null;
            return (
              <FleetRowView key={item.key} row={row} top={item.start} index={item.index} height={item.size} />
            );
          })}
        </div>
      </div>
    </div>
  );
}

function FleetRowView({
  row,
  top,
  index,
  height,
}: {
  row: FleetRow;
  top: number;
  index: number;
  height: number;
}) {
  const status = presentStatus(row.status);
  return (
    <div
      className={`vrow fleet-cols${row.nonUniform ? ' is-flagged' : ''}`}
      role="row"
      aria-rowindex={index + 2}
      data-testid="fleet-row"
      data-balancer={row.name}
      style={{ transform: `translateY(${top}px)`, height }}
    >
      <span role="cell" className="col-name">
        <Link href={`/balancers/${encodeURIComponent(row.id)}`}>{row.name}</Link>
      </span>
      <span role="cell" className="badges col-state">
        <Badge p={status} testId="fleet-status" />
        {row.nonUniform &&
        row.status !== 'era-split' &&
        row.status !== 'drift' &&
        row.status !== 'region-split' ? (
          <Badge p={{ ...presentStatus('drift'), label: 'Non-uniform', icon: 'nonuniform' }} />
        ) : null}
        {row.degraded && row.status !== 'degraded' ? <Badge p={presentStatus('degraded')} /> : null}
        {row.nonUniformSince !== null ? <Since at={row.nonUniformSince} /> : null}
      </span>
      {/* The rollout's compact progress bar and trend while it is not uniform, else the era mix. */}
      <span role="cell" className="col-mix">
        {row.progressMeasure && !row.progressMeasure.complete && row.progressMeasure.available > 0 ? (
          <FleetProgressCell progress={row.progressMeasure} />
        ) : row.progress ? (
          <span title={row.progress}>{row.progress}</span>
        ) : (
          <EraMixBar mix={row.mix} />
        )}
      </span>
      <span role="cell" className="col-gate">
        <span className="card-label">Gate </span>
        <Badge p={presentGate(row.gateReady)} />
      </span>
      <span role="cell" className="muted col-probe">
        <span className="card-label">Probed </span>
        <Age at={row.lastProbeAt} />
      </span>
      <span role="cell" className="col-url mono muted" title={row.publicUrl}>
        {row.publicUrl}
      </span>
    </div>
  );
}

function EmptyFleet() {
  return (
    <div className="panel empty" data-testid="fleet-empty">
      <h2>No balancers yet</h2>
      <p>
        Register a balancer (its public URL and, optionally, its node URLs) and Erawatch starts probing it on
        its interval.
      </p>
      <RoleGate need="operator" what="Registering balancers">
        <p>
          <Link className="btn btn-primary" href="/balancers/new">
            Register a balancer
          </Link>
        </p>
      </RoleGate>
      <p className="muted">
        Or run <code>erawatch demo</code> (<code>npm run demo</code> in a checkout) to start a demo fleet of
        real MCP servers mid-rollout.
      </p>
    </div>
  );
}
