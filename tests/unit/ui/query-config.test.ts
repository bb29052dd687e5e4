import { describe, expect, it } from 'vitest';
import { DEFAULT_REFRESH_MS } from '@/lib/query/make-query-client';
import { internalOrigin } from '@/lib/query/server-fetcher';
import { parseSettings, SettingsError } from '@/lib/settings';

describe('ERAWATCH_UI_REFRESH_MS', () => {
  it.each([
    [undefined, DEFAULT_REFRESH_MS],
    ['', DEFAULT_REFRESH_MS],
    ['1000', 1000],
    ['500', 500],
    ['60000', 60000],
  ])('%s gives %i', (raw, ms) => {
    expect(parseSettings({ ERAWATCH_UI_REFRESH_MS: raw }).uiRefreshMs).toBe(ms);
  });

  it.each(['499', '60001', '1.5', 'soon'])('%s is refused, naming the variable', (raw) => {
    expect(() => parseSettings({ ERAWATCH_UI_REFRESH_MS: raw })).toThrow(
      new SettingsError([`ERAWATCH_UI_REFRESH_MS must be an integer from 500 to 60000, got '${raw}'`]),
    );
  });
});

describe('internalOrigin', () => {
  it('prefers the explicit setting, then the origin Next.js listens on, then loopback and PORT', () => {
    const origin = (env: Record<string, string>) => internalOrigin(parseSettings(env));
    expect(origin({ ERAWATCH_INTERNAL_URL: 'http://127.0.0.1:9000/', PORT: '1' })).toBe(
      'http://127.0.0.1:9000',
    );
    expect(origin({ __NEXT_PRIVATE_ORIGIN: 'http://127.0.0.1:4000', PORT: '4000' })).toBe(
      'http://127.0.0.1:4000',
    );
    expect(origin({ PORT: '3100' })).toBe('http://127.0.0.1:3100');
    expect(origin({})).toBe('http://127.0.0.1:3000');
  });
});
