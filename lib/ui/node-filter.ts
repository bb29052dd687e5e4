// The node matrix's filter and sort as the URL keeps them (`?q=&group=&clientEra=&served=&region=&lacks=
// &availability=&sort=&order=`), read leniently (an unknown value is dropped, never an error on the screen)
// and written back without the defaults, so a shared link says only what was picked.
import { CLIENT_ERAS, SERVED_ERAS, type ClientEra, type ServedEra } from '@/lib/probe/types';

export const NODE_SORTS = [
  'name',
  'url',
  'clientEra',
  'served',
  'group',
  'region',
  'probedAt',
  'latency',
] as const;
export type NodeSort = (typeof NODE_SORTS)[number];
export const NODE_AVAILABILITIES = ['available', 'unavailable', 'auth-gated'] as const;
export type NodeAvailability = (typeof NODE_AVAILABILITIES)[number];

/** What narrows the rows; '' is "any". */
export interface NodeFilter {
  q: string;
  group: string;
  clientEra: ClientEra | '';
  served: ServedEra | '';
  region: string;
  lacks: string;
  availability: NodeAvailability | '';
}

export interface MatrixQuery extends NodeFilter {
  sort: NodeSort;
  order: 'asc' | 'desc';
}

export const FILTER_KEYS = ['q', 'group', 'clientEra', 'served', 'region', 'lacks', 'availability'] as const;
const MATRIX_KEYS = [...FILTER_KEYS, 'sort', 'order'] as const;

export const NO_FILTER: NodeFilter = {
  q: '',
  group: '',
  clientEra: '',
  served: '',
  region: '',
  lacks: '',
  availability: '',
};
export const DEFAULT_QUERY: MatrixQuery = { ...NO_FILTER, sort: 'name', order: 'asc' };

function oneOf<T extends string>(values: readonly T[], value: string | null): T | '' {
  return value !== null && (values as readonly string[]).includes(value) ? (value as T) : '';
}

/** The matrix's query from a URL's parameters; what is missing or unknown is the default. */
export function readMatrixQuery(params: { get(name: string): string | null }): MatrixQuery {
  const text = (name: string) => (params.get(name) ?? '').trim().slice(0, 200);
  return {
    q: text('q'),
    group: text('group'),
    clientEra: oneOf(CLIENT_ERAS, params.get('clientEra')),
    served: oneOf(SERVED_ERAS, params.get('served')),
    region: text('region'),
    lacks: text('lacks'),
    availability: oneOf(NODE_AVAILABILITIES, params.get('availability')),
    sort: oneOf(NODE_SORTS, params.get('sort')) || 'name',
    order: params.get('order') === 'desc' ? 'desc' : 'asc',
  };
}

/** The non-default parts of a query, as query-string parameters. */
export function matrixParams(query: Partial<MatrixQuery>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const key of MATRIX_KEYS) {
    const value = query[key];
    if (value && value !== DEFAULT_QUERY[key]) out[key] = value;
  }
  return out;
}

/** `current` (the page's URL parameters) with the matrix's keys replaced by `query`'s; other keys are kept. */
export function withMatrixQuery(current: URLSearchParams, query: MatrixQuery): URLSearchParams {
  const next = new URLSearchParams(current);
  for (const key of MATRIX_KEYS) next.delete(key);
  for (const [key, value] of Object.entries(matrixParams(query))) next.set(key, value);
  return next;
}

export function isFiltered(filter: NodeFilter): boolean {
  return FILTER_KEYS.some((key) => filter[key] !== '');
}

/** Where a link to a balancer's matrix with this filter goes: the balancer page, scrolled to its nodes. */
export function matrixHref(balancerId: string, filter: Partial<NodeFilter>): string {
  const qs = new URLSearchParams(matrixParams(filter)).toString();
  return `/balancers/${encodeURIComponent(balancerId)}${qs ? `?${qs}` : ''}#nodes`;
}

/** A click on a column header: the same column flips the order, another one sorts ascending by it. */
export function toggleSort(query: MatrixQuery, sort: NodeSort): Pick<MatrixQuery, 'sort' | 'order'> {
  if (query.sort !== sort) return { sort, order: 'asc' };
  return { sort, order: query.order === 'asc' ? 'desc' : 'asc' };
}
