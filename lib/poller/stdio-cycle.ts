// Stdio targets in the poller: each probe launches the configured command, probes it over stdin/stdout,
// and ends the process (by its pid, through the transport) before the result is stored. State and history
// are written like a node's: the state row in place, a history row only when the fingerprint changes.
import type { Store } from '@/db';
import { getStdioTargetRow, stdioSpecOf, type StdioTarget } from '@/db/queries/stdio-targets';
import { writeProbes } from '@/db/queries/subjects';
import { probeNode } from '@/lib/probe/probe-node';
import { describeCommand, StdioTransport, type StdioTransportOptions } from '@/lib/probe/stdio-transport';
import {
  DEFAULT_PROBE_OPTIONS,
  unavailableVerdict,
  type ProbeOptions,
  type Verdict,
} from '@/lib/probe/types';
import { keyedFingerprintOf } from '@/lib/rollout/fingerprint';
import { CycleAbandonedError, fencedWrite, type Fence } from './balancer-cycle';
import type { Limiter } from './limiter';
import type { Env } from '@/lib/settings';
import type { Clock } from './types';

/** Probes one stdio target; never throws for the server's fault. An abort ends the process at once. */
export type StdioProbeFn = (
  target: StdioTarget,
  options: ProbeOptions,
  signal?: AbortSignal,
) => Promise<Verdict>;

export interface StdioCycleDeps {
  probe: StdioProbeFn;
  now: Clock;
  /** The poller's global cap on probes in flight, shared with the balancers. */
  limiter: Limiter;
  dueAt?: number;
  onProbeStart?: (lagMs: number) => void;
  signal?: AbortSignal;
  /** Checked inside the result's write transaction (see CycleDeps.fence). */
  fence?: Fence;
  /** The region the target is probed from, whose state the result is. */
  region: string;
}

export interface StdioCycleResult {
  targetId: string;
  at: number;
  verdict: Verdict;
  /** False when the target's command changed during the probe: the answer was about another program. */
  stored: boolean;
}

export function stdioProbeOptionsFor(t: StdioTarget): ProbeOptions {
  return {
    ...DEFAULT_PROBE_OPTIONS,
    legacyVersions: [...t.legacyVersions],
    timeoutMs: t.timeoutMs,
    legacyProbeTimeoutMs: t.legacyProbeTimeoutMs,
  };
}

/** The verdict's `url` for a stdio target: the command line, env values left out. */
export function stdioUrlOf(t: StdioTarget): string {
  return `stdio:${describeCommand(stdioSpecOf(t))}`;
}

/**
 * Launches the target's exact configured command, probes it, and always closes the transport, which ends
 * the process (SIGTERM, then SIGKILL) and waits for its exit. `allowLegacy` comes from the same row as
 * the command, so the allowlist is bound to this launch and nothing else. The process inherits `baseEnv` (the
 * settings' environment) under the target's own `env`.
 */
export function createStdioProbe(
  baseEnv: Env,
  transportOptions: Omit<StdioTransportOptions, 'baseEnv'> = {},
): StdioProbeFn {
  // The variables the settings were parsed from, typed as a child's environment (Node's type adds NODE_ENV).
  const launchOptions = { ...transportOptions, baseEnv: { ...baseEnv } as NodeJS.ProcessEnv };
  return async (target, options, signal) => {
    const transport = StdioTransport.launch(stdioSpecOf(target), launchOptions);
    const onAbort = () => void transport.close();
    signal?.addEventListener('abort', onAbort, { once: true });
    try {
      return await probeNode(
        { url: stdioUrlOf(target), allowLegacy: target.allowLegacy, auditLegacy: target.auditLegacy },
        options,
        { transport },
      );
    } finally {
      signal?.removeEventListener('abort', onAbort);
      await transport.close();
    }
  };
}

/** Probes one stdio target under the global cap and stores the result (its unit's lease keeps it one at a time). */
export async function runStdioCycle(
  store: Store,
  targetId: string,
  deps: StdioCycleDeps,
): Promise<StdioCycleResult> {
  const target = await getStdioTargetRow(store, targetId);
  const dueAt = deps.dueAt ?? deps.now();
  const verdict = await deps.limiter.run(async () => {
    if (deps.signal?.aborted) throw new CycleAbandonedError(targetId);
    const at = deps.now();
    deps.onProbeStart?.(at - dueAt);
    try {
      return await deps.probe(target, stdioProbeOptionsFor(target), deps.signal);
    } catch (err) {
      // The probe reports the server's faults in the verdict; a throw is ours, kept visible.
      const v = unavailableVerdict(stdioUrlOf(target), 'probe_error', at);
      return { ...v, anomaly: err instanceof Error ? err.message : String(err) };
    }
  });
  if (deps.signal?.aborted) throw new CycleAbandonedError(targetId);
  // The target may have been changed by a config apply while it was probed: store nothing about another program.
  const current = await getStdioTargetRow(store, targetId);
  if (JSON.stringify(stdioSpecOf(current)) !== JSON.stringify(stdioSpecOf(target)))
    return { targetId, at: deps.now(), verdict, stored: false };
  await fencedWrite(store, deps.fence, `stdio target ${targetId}`, verdict.probedAt, () =>
    writeProbes(store, {
      kind: 'stdio',
      region: deps.region,
      targetId,
      verdict,
      fingerprintKey: keyedFingerprintOf(verdict)?.key ?? null,
    }),
  );
  return { targetId, at: deps.now(), verdict, stored: true };
}
