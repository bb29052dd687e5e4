// Config at start-up: apply the file if there is one; on any error log it (file, line, field) and keep the
// state the database already has.
import fs from 'node:fs';
import type { Store } from '@/db/index';
import { applyConfig, type ApplySummary } from './apply';
import { ConfigError, DEFAULT_CONFIG_FILE, loadConfigFile } from './load';
import type { Settings } from '@/lib/settings';

/** The config file the settings name (ERAWATCH_CONFIG), else the default one if it exists. */
export function configFileOf(settings: Pick<Settings, 'configFile'>): { file: string; explicit: boolean } {
  const given = settings.configFile;
  return given ? { file: given, explicit: true } : { file: DEFAULT_CONFIG_FILE, explicit: false };
}

export async function applyConfigAtStartup(
  store: Store,
  settings: Settings,
  log: (line: string) => void = (l) => console.error(l),
): Promise<ApplySummary | null> {
  const { file, explicit } = configFileOf(settings);
  if (!explicit && !fs.existsSync(file)) return null;
  try {
    const summary = await applyConfig(store, loadConfigFile(file, settings));
    log(
      `erawatch: applied ${file}: ${summary.created.length} created, ${summary.updated.length} updated, ${summary.unchanged.length} unchanged`,
    );
    return summary;
  } catch (err) {
    const detail =
      err instanceof ConfigError
        ? err.message
        : `${file}: ${err instanceof Error ? err.message : String(err)}`;
    log(`erawatch: config not applied, keeping the last good state:\n${detail}`);
    return null;
  }
}
