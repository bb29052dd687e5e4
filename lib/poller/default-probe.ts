// The production probe and resolver: the real probe engine over one shared keep-alive Agent, and the
// system resolver for every A/AAAA record of a host.
import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { createProbeAgent, probeEgressPolicy, probeNode, type ProbeAgent } from '@/lib/probe';
import type { Settings } from '@/lib/settings';
import type { ProbeFn, ResolveFn } from './types';

/** One keep-alive agent per source address ('' for the system's choice). */
const agents = new Map<string, ProbeAgent>();

/**
 * Probes with the settings' egress policy (`ERAWATCH_ALLOW_LOOPBACK=1` allows loopback), from the source
 * address ERAWATCH_PROBE_SOURCE_ADDRESS names, if any.
 */
export function createDefaultProbe(
  settings: Pick<Settings, 'allowLoopback' | 'probeSourceAddress'>,
): ProbeFn {
  const egress = probeEgressPolicy(settings);
  const localAddress = settings.probeSourceAddress;
  return (target, options) => {
    let agent = agents.get(localAddress ?? '');
    if (!agent) {
      agent = createProbeAgent(egress, localAddress ? { localAddress } : {});
      agents.set(localAddress ?? '', agent);
    }
    return probeNode(target, options, { dispatcher: agent, egress });
  };
}

export async function closeDefaultProbe(): Promise<void> {
  const open = [...agents.values()];
  agents.clear();
  await Promise.all(open.map((a) => a.close()));
}

export const resolveAllAddresses: ResolveFn = async (hostname) => {
  if (isIP(hostname)) return [hostname];
  const records = await lookup(hostname, { all: true, verbatim: true });
  return [...new Set(records.map((r) => r.address))];
};
