import { describe, expect, it } from 'vitest';
import { DEFAULT_REFRESH_MS } from '@/lib/query/make-query-client';
import { readRefreshMs } from '@/lib/query/refresh';
import { internalOrigin } from '@/lib/query/server-fetcher';

describe('readRefreshMs', () => {
  it.each([
    [undefined, DEFAULT_REFRESH_MS],
    ['', DEFAULT_REFRESH_MS],
    ['1000', 1000],
    ['500', 500],
    ['60000', 60000],
    ['499', DEFAULT_REFRESH_MS],
    ['60001', DEFAULT_REFRESH_MS],
    ['1.5', DEFAULT_REFRESH_MS],
    ['soon', DEFAULT_REFRESH_MS],
  ])('ERAWATCH_UI_REFRESH_MS=%s gives %i', (raw, ms) => {
    expect(readRefreshMs({ ERAWATCH_UI_REFRESH_MS: raw })).toBe(ms);
  });
});

describe('internalOrigin', () => {
  it('prefers the explicit setting, then the origin Next.js listens on, then loopback and PORT', () => {
    expect(internalOrigin({ ERAWATCH_INTERNAL_URL: 'http://127.0.0.1:9000/', PORT: '1' })).toBe(
      'http://127.0.0.1:9000',
    );
    expect(internalOrigin({ __NEXT_PRIVATE_ORIGIN: 'http://127.0.0.1:4000', PORT: '4000' })).toBe(
      'http://127.0.0.1:4000',
    );
    expect(internalOrigin({ PORT: '3100' })).toBe('http://127.0.0.1:3100');
    expect(internalOrigin({})).toBe('http://127.0.0.1:3000');
  });
});
