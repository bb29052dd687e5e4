// Which single sign-on settings apply: the environment's (ERAWATCH_OIDC_*), else the config file's `auth.oidc`.
import type { OidcSettings, Settings } from '@/lib/settings';

export function oidcSettingsOf(settings: Pick<Settings, 'oidc'>): OidcSettings | null {
  return settings.oidc;
}
