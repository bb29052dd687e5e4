// The node matrix's filter and sort as the URL keeps them (`?q=&group=&clientEra=&served=&region=&lacks=
// &availability=&sort=&order=`), read leniently (an unknown value is dropped, never an error on the screen)
// and written back without the defaults, so a shared link says only what was picked.
import type { AVAILABILITIES, ClientEra, ServedEra } from '@/lib/probe/types';
import { NODE_SORTS, NodeFilter as NodeFilterSchema, type NodeSort } from '@/lib/schemas/node-query';

export { NODE_SORTS, type NodeSort };
export { AVAILABILITIES as NODE_AVAILABILITIES } from '@/lib/probe/types';
export type NodeAvailability = (typeof AVAILABILITIES)[number];

/** What narrows the rows, as the screen holds it: '' is "any". */
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

/** A filter's value from the URL as the server's schema takes it, '' when it would refuse it. */
function field<K extends keyof NodeFilter>(key: K, value: string | null): NodeFilter[K] {
  const parsed = NodeFilterSchema.shape[key].safeParse(value ?? undefined);
  return (parsed.success && typeof parsed.data === 'string' ? parsed.data : '') as NodeFilter[K];
}

/** The matrix's query from a URL's parameters; what is missing or would be refused is the default. */
export function readMatrixQuery(params: { get(name: string): string | null }): MatrixQuery {
  const filter = Object.fromEntries(FILTER_KEYS.map((key) => [key, field(key, params.get(key))]));
  const sort = params.get('sort') ?? '';
  return {
    ...(filter as unknown as NodeFilter),
    sort: (NODE_SORTS as readonly string[]).includes(sort) ? (sort as NodeSort) : 'name',
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
