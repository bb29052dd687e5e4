// A Fetcher for server components: calls this same Next.js process over loopback (never the Host header,
// which a client controls) and forwards the visitor's cookie so a logged-in UI session reads as itself.
import { cookies } from 'next/headers';
import type { Fetcher } from './fetch-json';

export function internalOrigin(env: Record<string, string | undefined>): string {
  if (env.ERAWATCH_INTERNAL_URL) return env.ERAWATCH_INTERNAL_URL.replace(/\/$/, '');
  if (env.__NEXT_PRIVATE_ORIGIN) return env.__NEXT_PRIVATE_ORIGIN.replace(/\/$/, '');
  return `http://127.0.0.1:${env.PORT ?? '3000'}`;
}

export async function makeServerFetcher(): Promise<Fetcher> {
  const origin = internalOrigin(process.env);
  const cookie = (await cookies()).toString();
  return (path, init) =>
    fetch(`${origin}${path}`, {
      ...init,
      cache: 'no-store',
      signal: AbortSignal.timeout(5_000),
      headers: { accept: 'application/json', ...(cookie ? { cookie } : {}), ...init?.headers },
    });
}
