// Where this process probes from: its region (ERAWATCH_REGION) and, when one host sits in several networks,
// the source address its probes bind (ERAWATCH_PROBE_SOURCE_ADDRESS). A bad value refuses start-up.
import { isIP } from 'node:net';
import { DEFAULT_REGION, regionProblem } from '@/lib/rollout/regions';

export class WorkerSettingError extends Error {
  override readonly name = 'WorkerSettingError';
}

/** The region named by ERAWATCH_REGION, `default` when unset or empty. */
export function regionFromEnv(env: Record<string, string | undefined>): string {
  const raw = env.ERAWATCH_REGION;
  if (raw === undefined || raw.trim() === '') return DEFAULT_REGION;
  const problem = regionProblem(raw);
  if (problem) throw new WorkerSettingError(`ERAWATCH_REGION ${problem}, got '${raw}'`);
  return raw;
}

/** The address probes connect from (an IPv4 or IPv6 literal), or null for the system's choice. */
export function probeSourceAddressFromEnv(env: Record<string, string | undefined>): string | null {
  const raw = env.ERAWATCH_PROBE_SOURCE_ADDRESS;
  if (raw === undefined || raw.trim() === '') return null;
  if (isIP(raw.trim()) === 0) {
    throw new WorkerSettingError(
      `ERAWATCH_PROBE_SOURCE_ADDRESS must be an IP address of this host, got '${raw}'`,
    );
  }
  return raw.trim();
}

/** The one line start-up prints and refuses with when a setting is bad, or null when all are good. */
export function workerSettingsRefusal(env: Record<string, string | undefined>): string | null {
  try {
    regionFromEnv(env);
    probeSourceAddressFromEnv(env);
    return null;
  } catch (err) {
    if (err instanceof WorkerSettingError) return err.message;
    throw err;
  }
}
