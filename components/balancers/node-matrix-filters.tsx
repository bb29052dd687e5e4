'use client';
// The node matrix's filter bar: search by name or URL, group, client verdict, served class, region, a revision
// the node lacks and availability, a sort for phones (wider screens sort by the column headers), the count of
// matching rows and a way to clear. The picks live in the URL, so a link or a reload keeps them.
import { useSearchParams } from 'next/navigation';
import { replaceUrlQuery } from '@/components/ui/url-query';
import { useCallback, useEffect, useMemo, useState } from 'react';
import { Badge } from '@/components/ui/badge';
import { CLIENT_ERAS, SERVED_ERAS } from '@/lib/probe/types';
import type { BalancerAnalysisView } from '@/lib/query/types';
import { CLIENT_ERA_LABELS, SERVED_ERA_LABELS } from '@/lib/rollout/labels';
import { groupLetter } from '@/lib/ui/balancer';
import {
  NODE_AVAILABILITIES,
  NODE_SORTS,
  NO_FILTER,
  isFiltered,
  readMatrixQuery,
  withMatrixQuery,
  type MatrixQuery,
  type NodeSort,
} from '@/lib/ui/node-filter';
import { presentStatus } from '@/lib/ui/presentation';

/**
 * The matrix's query from the page's URL, and a setter that rewrites the URL in place (replaceUrlQuery). Links
 * to a filtered matrix are ordinary navigations, so the back button leaves them.
 */
export function useMatrixQuery(): [MatrixQuery, (next: MatrixQuery) => void] {
  const params = useSearchParams();
  const query = useMemo(() => readMatrixQuery(params), [params]);
  const set = useCallback(
    (next: MatrixQuery) => replaceUrlQuery((current) => withMatrixQuery(current, next)),
    [],
  );
  return [query, set];
}

const SORT_LABELS: Record<NodeSort, string> = {
  name: 'Name',
  url: 'URL',
  clientEra: 'Client verdict',
  served: 'Served class',
  group: 'Group',
  region: 'Region',
  probedAt: 'Last probe',
  latency: 'Latency',
};

const AVAILABILITY_LABELS = {
  available: 'Available',
  unavailable: 'Unavailable',
  'auth-gated': 'Auth-gated',
};

/** The search box: typed text reaches the URL (and the server) once typing pauses. */
function SearchBox({ value, onChange }: { value: string; onChange: (q: string) => void }) {
  const [text, setText] = useState(value);
  const [seen, setSeen] = useState(value);
  if (seen !== value) {
    // The URL changed from elsewhere (clear, a link): show what it says.
    setSeen(value);
    setText(value);
  }
  useEffect(() => {
    if (text.trim() === value) return;
    const timer = setTimeout(() => onChange(text.trim()), 250);
    return () => clearTimeout(timer);
  }, [text, value, onChange]);
  return (
    <>
      <label className="visually-hidden" htmlFor="nodes-search">
        Search nodes by name or URL
      </label>
      <input
        id="nodes-search"
        className="search"
        type="search"
        placeholder="Search name or URL"
        value={text}
        onChange={(e) => setText(e.target.value)}
      />
    </>
  );
}

function Select(props: {
  id: string;
  label: string;
  value: string;
  any: string;
  options: ReadonlyArray<readonly [string, string]>;
  onChange: (value: string) => void;
}) {
  // A value from a link that this screen does not offer (an old group, a revision) is still shown as picked.
  const options =
    props.value && !props.options.some(([v]) => v === props.value)
      ? [...props.options, [props.value, props.value] as const]
      : props.options;
  return (
    <>
      <label className="visually-hidden" htmlFor={props.id}>
        {props.label}
      </label>
      <select id={props.id} value={props.value} onChange={(e) => props.onChange(e.target.value)}>
        <option value="">{props.any}</option>
        {options.map(([value, text]) => (
          <option key={value} value={value}>
            {text}
          </option>
        ))}
      </select>
    </>
  );
}

export function MatrixFilters(props: {
  query: MatrixQuery;
  onChange: (next: MatrixQuery) => void;
  analysis: BalancerAnalysisView | null;
  revisions: string[];
  regions: string[];
  matched: number;
  total: number;
  loaded: boolean;
}) {
  const { query, onChange, analysis: a } = props;
  const set = (patch: Partial<MatrixQuery>) => onChange({ ...query, ...patch });
  const onSearch = useCallback((q: string) => onChange({ ...query, q }), [onChange, query]);
  const groups = (a?.partition ?? []).map((g, i) => [g.key, `Group ${groupLetter(i)}`] as const);
  const region = query.region ? a?.regions?.find((r) => r.region === query.region) : undefined;
  return (
    <div className="panel-body toolbar matrix-filters" role="search" aria-label="Filter nodes">
      <SearchBox value={query.q} onChange={onSearch} />
      {groups.length > 0 || query.group ? (
        <Select
          id="nodes-group"
          label="Fingerprint group"
          value={query.group}
          any="Any group"
          options={groups}
          onChange={(group) => set({ group })}
        />
      ) : null}
      <Select
        id="nodes-era"
        label="Client verdict"
        value={query.clientEra}
        any="Any client verdict"
        options={CLIENT_ERAS.map((e) => [e, CLIENT_ERA_LABELS[e]] as const)}
        onChange={(v) => set({ clientEra: v as MatrixQuery['clientEra'] })}
      />
      <Select
        id="nodes-served"
        label="Served class"
        value={query.served}
        any="Any served class"
        options={SERVED_ERAS.map((e) => [e, SERVED_ERA_LABELS[e]] as const)}
        onChange={(v) => set({ served: v as MatrixQuery['served'] })}
      />
      {props.regions.length > 1 || query.region ? (
        <Select
          id="nodes-region"
          label="Region"
          value={query.region}
          any="Every region"
          options={props.regions.map((r) => [r, r] as const)}
          onChange={(v) => set({ region: v })}
        />
      ) : null}
      <Select
        id="nodes-lacks"
        label="Lacks a revision"
        value={query.lacks}
        any="Any revision served"
        options={props.revisions.map((r) => [r, `Lacks ${r}`] as const)}
        onChange={(lacks) => set({ lacks })}
      />
      <Select
        id="nodes-availability"
        label="Availability"
        value={query.availability}
        any="Any availability"
        options={NODE_AVAILABILITIES.map((v) => [v, AVAILABILITY_LABELS[v]] as const)}
        onChange={(v) => set({ availability: v as MatrixQuery['availability'] })}
      />
      <span className="narrow-only">
        <Select
          id="nodes-sort"
          label="Sort nodes by"
          value={query.sort === 'name' && query.order === 'asc' ? '' : `${query.sort}:${query.order}`}
          any="Sort: name"
          options={NODE_SORTS.flatMap((s) => [
            [`${s}:asc`, `Sort: ${SORT_LABELS[s].toLowerCase()} ↑`] as const,
            [`${s}:desc`, `Sort: ${SORT_LABELS[s].toLowerCase()} ↓`] as const,
          ]).filter(([v]) => v !== 'name:asc')}
          onChange={(v) => {
            const [sort, order] = v ? v.split(':') : ['name', 'asc'];
            set({ sort: sort as NodeSort, order: order === 'desc' ? 'desc' : 'asc' });
          }}
        />
      </span>
      <span className="muted matrix-count" data-testid="matrix-count" aria-live="polite">
        {props.loaded ? `${props.matched} of ${props.total} nodes` : ''}
      </span>
      {region ? <Badge p={presentStatus(region.displayStatus)} testId="region-status" /> : null}
      {isFiltered(query) ? (
        <button
          type="button"
          onClick={() => onChange({ ...query, ...NO_FILTER })}
          data-testid="clear-filters"
        >
          Clear filters
        </button>
      ) : null}
    </div>
  );
}
