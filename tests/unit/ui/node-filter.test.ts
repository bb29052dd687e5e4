import { describe, expect, it } from 'vitest';
import {
  DEFAULT_QUERY,
  isFiltered,
  matrixHref,
  matrixParams,
  readMatrixQuery,
  toggleSort,
  withMatrixQuery,
  type MatrixQuery,
} from '@/lib/ui/node-filter';

describe('the node matrix query in the URL', () => {
  it('reads every filter and the sort, dropping unknown values', () => {
    const q = readMatrixQuery(
      new URLSearchParams(
        'q=%20search-3%20&group=abc&clientEra=legacy&served=bogus&region=eu-west&lacks=2026-07-28&availability=unavailable&sort=latency&order=desc',
      ),
    );
    expect(q).toEqual({
      q: 'search-3',
      group: 'abc',
      clientEra: 'legacy',
      served: '',
      region: 'eu-west',
      lacks: '2026-07-28',
      availability: 'unavailable',
      sort: 'latency',
      order: 'desc',
    });
    expect(readMatrixQuery(new URLSearchParams('sort=nope&order=up&availability=maybe'))).toEqual(
      DEFAULT_QUERY,
    );
  });

  it('writes only what differs from the defaults, keeping the page’s other parameters', () => {
    expect(matrixParams(DEFAULT_QUERY)).toEqual({});
    const next = withMatrixQuery(new URLSearchParams('range=6h&q=old&sort=url'), {
      ...DEFAULT_QUERY,
      group: 'k1',
    });
    expect(next.toString()).toBe('range=6h&group=k1');
  });

  it('round-trips: what is written reads back the same', () => {
    const q = {
      ...DEFAULT_QUERY,
      q: 'a b&c',
      served: 'dual-era' as const,
      sort: 'group' as const,
      order: 'desc' as const,
    };
    expect(readMatrixQuery(withMatrixQuery(new URLSearchParams(), q))).toEqual(q);
  });

  it('links to the balancer page’s matrix with a filter', () => {
    expect(matrixHref('bal_1', { group: 'k/1' })).toBe('/balancers/bal_1?group=k%2F1#nodes');
    expect(matrixHref('bal_1', {})).toBe('/balancers/bal_1#nodes');
  });

  it('a header click sorts by its column ascending, a second click descending', () => {
    expect(toggleSort(DEFAULT_QUERY, 'latency')).toEqual({ sort: 'latency', order: 'asc' });
    expect(toggleSort({ ...DEFAULT_QUERY, sort: 'latency' }, 'latency')).toEqual({
      sort: 'latency',
      order: 'desc',
    });
    expect(toggleSort({ ...DEFAULT_QUERY, order: 'desc' }, 'name')).toEqual({ sort: 'name', order: 'asc' });
  });

  it('is filtered by any filter, not by the sort', () => {
    expect(isFiltered(DEFAULT_QUERY)).toBe(false);
    const sorted: MatrixQuery = { ...DEFAULT_QUERY, sort: 'url' };
    expect(isFiltered(sorted)).toBe(false);
    expect(isFiltered({ ...DEFAULT_QUERY, lacks: '2026-07-28' })).toBe(true);
  });
});
