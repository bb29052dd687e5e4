import { DEFAULT_REFRESH_MS } from './make-query-client';

/** The polling interval the server suggests to the browser, from ERAWATCH_UI_REFRESH_MS (500 ms to 60 s). */
export function readRefreshMs(env: Record<string, string | undefined>): number {
  const raw = env.ERAWATCH_UI_REFRESH_MS;
  if (raw === undefined || raw.trim() === '') return DEFAULT_REFRESH_MS;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 500 || value > 60_000) return DEFAULT_REFRESH_MS;
  return value;
}
