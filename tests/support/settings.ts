// Settings for code a test runs in-process: parsed from the variables given (nothing from this process's
// environment), with loopback allowed unless the test says otherwise, as the peers all listen on loopback.
import { parseSettings, type Settings } from '@/lib/settings';

export function testSettings(env: Record<string, string> = {}, overrides: Partial<Settings> = {}): Settings {
  return { ...parseSettings({ ERAWATCH_ALLOW_LOOPBACK: '1', ...env }), ...overrides };
}
