import { describe, expect, it } from 'vitest';
import { DEFAULT_REFRESH_MS } from '@/lib/query/make-query-client';
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
