// Query options for the read-only stdio servers screens (server page prefetch and client useQuery share them).
import { queryOptions } from '@tanstack/react-query';
import type { StdioTargetHistoryView, StdioTargetView } from '@/lib/schemas/stdio-target';
import type { Verdict } from '@/lib/probe/types';
import { requestJson, type Fetcher } from './fetch-json';

export interface StdioTargetDetail extends StdioTargetView {
  verdict: Verdict | null;
  history: StdioTargetHistoryView[];
}

export const stdioQueryKeys = {
  list: ['stdio-targets'] as const,
  one: (id: string) => ['stdio-targets', id] as const,
};

export function stdioTargetsQuery(fetcher: Fetcher) {
  return queryOptions({
    queryKey: stdioQueryKeys.list,
    queryFn: async () =>
      (await requestJson<{ items: StdioTargetView[] }>(fetcher, '/api/v1/stdio-targets')).items,
  });
}

export function stdioTargetQuery(fetcher: Fetcher, id: string) {
  return queryOptions({
    queryKey: stdioQueryKeys.one(id),
    queryFn: () => requestJson<StdioTargetDetail>(fetcher, `/api/v1/stdio-targets/${encodeURIComponent(id)}`),
  });
}
