// A Fetcher for server components: calls this same Next.js process over loopback (never the Host header,
// which a client controls) and forwards the visitor's cookie so a logged-in UI session reads as itself.
import { cookies } from 'next/headers';
import { internalRequestHeaders } from '@/lib/net/internal-requests';
import { processSettings, type Settings } from '@/lib/settings';
import type { Fetcher } from './fetch-json';

/** ERAWATCH_INTERNAL_URL, else the origin Next.js says it listens on, else loopback at its PORT. */
export function internalOrigin(settings: Pick<Settings, 'internalUrl' | 'environment'>): string {
  if (settings.internalUrl) return settings.internalUrl;
  const next = settings.environment.__NEXT_PRIVATE_ORIGIN;
  if (next) return next.replace(/\/$/, '');
  return `http://127.0.0.1:${settings.environment.PORT ?? '3000'}`;
}

export async function makeServerFetcher(): Promise<Fetcher> {
  const origin = internalOrigin(processSettings());
  const cookie = (await cookies()).toString();
  return (path, init) =>
    fetch(`${origin}${path}`, {
      ...init,
      cache: 'no-store',
      signal: AbortSignal.timeout(5_000),
      headers: {
        accept: 'application/json',
        ...(cookie ? { cookie } : {}),
        ...internalRequestHeaders(),
        ...init?.headers,
      },
    });
}
