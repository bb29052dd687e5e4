// The balancer history query (GET /api/v1/balancers/{id}/history) for the time-range picker.
import { queryOptions } from '@tanstack/react-query';
import type { BalancerHistory } from '@/lib/schemas/history';
import { historyParams, type TimeRange } from '@/lib/ui/time-range';
import { requestJson, type Fetcher } from './fetch-json';

export function balancerHistoryQuery(fetcher: Fetcher, id: string, range: TimeRange) {
  return queryOptions({
    queryKey: ['balancer', id, 'history', range.key] as const,
    queryFn: () => {
      // Relative to each refresh, so "the last hour" keeps sliding.
      const p = historyParams(range, Date.now());
      const qs = new URLSearchParams({ from: String(p.from), to: String(p.to), step: p.step });
      return requestJson<BalancerHistory>(
        fetcher,
        `/api/v1/balancers/${encodeURIComponent(id)}/history?${qs.toString()}`,
      );
    },
    // A minute step moves every minute; an hour's step far less often.
    refetchInterval: range.stepMs < 3_600_000 ? 15_000 : 60_000,
  });
}
