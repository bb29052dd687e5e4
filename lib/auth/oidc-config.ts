// Which single sign-on settings apply: the environment's (ERAWATCH_OIDC_*) when the issuer is set there, else
// the config file's `auth.oidc`. The file is read when it changes (its modification time), not per request.
import fs from 'node:fs';
import { ConfigError, loadConfigFile } from '@/lib/config/load';
import { configFileOf } from '@/lib/config/startup';
import type { OidcSettings, Settings } from '@/lib/settings';

type OidcSource = Pick<
  Settings,
  'oidc' | 'configFile' | 'environment' | 'allowLoopback' | 'webhookAllowPrivate'
>;

let cached: { file: string; mtimeMs: number; oidc: OidcSettings | null } | null = null;

/** The config file's `auth.oidc`, or null (no file, no section, or a file that does not validate: logged). */
export function oidcFromConfigFile(settings: Omit<OidcSource, 'oidc'>): OidcSettings | null {
  const { file, explicit } = configFileOf(settings);
  let mtimeMs: number;
  try {
    mtimeMs = fs.statSync(file).mtimeMs;
  } catch {
    if (explicit) console.error(`erawatch: ${file} cannot be read; single sign-on from it is off`);
    return null;
  }
  if (cached && cached.file === file && cached.mtimeMs === mtimeMs) return cached.oidc;
  let oidc: OidcSettings | null = null;
  try {
    oidc = loadConfigFile(file, settings).auth?.oidc ?? null;
  } catch (err) {
    console.error(
      `erawatch: single sign-on from ${file} is off: ${err instanceof ConfigError ? err.message : String(err)}`,
    );
  }
  cached = { file, mtimeMs, oidc };
  return oidc;
}

export function oidcSettingsOf(settings: Pick<Settings, 'oidc'> & Partial<OidcSource>): OidcSettings | null {
  if (settings.oidc) return settings.oidc;
  if (settings.environment === undefined) return null;
  return oidcFromConfigFile({
    configFile: settings.configFile ?? null,
    environment: settings.environment,
    allowLoopback: settings.allowLoopback ?? false,
    webhookAllowPrivate: settings.webhookAllowPrivate ?? false,
  });
}
