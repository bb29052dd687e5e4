import { QueryClient, defaultShouldDehydrateQuery, isServer } from '@tanstack/react-query';
import { ERROR_CODES, errorCode } from '@/lib/errors';
import { ApiProblem } from './problem';

/** Default live refresh of every dashboard query, overridable by ERAWATCH_UI_REFRESH_MS on the server. */
export const DEFAULT_REFRESH_MS = 2_000;

export function makeQueryClient(refreshMs: number = DEFAULT_REFRESH_MS): QueryClient {
  return new QueryClient({
    defaultOptions: {
      queries: {
        // Server-prefetched data is fresh on arrival; the interval keeps it live without reloads.
        staleTime: Math.min(refreshMs, 5_000),
        refetchInterval: refreshMs,
        refetchIntervalInBackground: false,
        // A 4xx will not change by asking again (the next refresh interval still does); nor will a server
        // page's in-process read that found nothing.
        retry: (failures, error) =>
          failures < 1 && !(error instanceof ApiProblem && error.status < 500) && !isNotFound(error),
      },
      dehydrate: {
        shouldDehydrateQuery: (query) =>
          defaultShouldDehydrateQuery(query) || query.state.status === 'pending',
      },
    },
  });
}

let browserClient: QueryClient | undefined;

/** One client per server request, one per browser tab. */
export function getQueryClient(refreshMs?: number): QueryClient {
  if (isServer) return makeQueryClient(refreshMs);
  browserClient ??= makeQueryClient(refreshMs);
  return browserClient;
}

function isNotFound(error: unknown): boolean {
  return (error instanceof ApiProblem && error.status === 404) || errorCode(error) === ERROR_CODES.notFound;
}

/**
 * True when a prefetched query found nothing (the page's in-process read threw NotFoundError, or the API
 * answered 404): the page then answers 404 too (`notFound()`).
 */
export function answeredNotFound(client: QueryClient, queryKey: readonly unknown[]): boolean {
  return isNotFound(client.getQueryState(queryKey)?.error);
}
