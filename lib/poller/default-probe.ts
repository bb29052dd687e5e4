// The production probe and resolver: the real probe engine over one shared keep-alive Agent, and the
// system resolver for every A/AAAA record of a host.
import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { createProbeAgent, probeEgressPolicy, probeNode, type ProbeAgent } from '@/lib/probe';
import type { Settings } from '@/lib/settings';
import type { ProbeFn, ResolveFn } from './types';

/** One keep-alive agent per source address ('' for the system's choice), and one without loopback. */
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
    const agent = agentFor(localAddress ?? '', egress);
    // URLs a server names get the loopback exemption only on the target's own host.
    const strictDispatcher = egress.allowLoopback
      ? agentFor(`strict:${localAddress ?? ''}`, { ...egress, allowLoopback: false })
      : agent;
    return probeNode(target, options, { dispatcher: agent, egress, strictDispatcher });
  };
}

function agentFor(key: string, egress: ReturnType<typeof probeEgressPolicy>): ProbeAgent {
  let agent = agents.get(key);
  if (!agent) {
    const localAddress = key.replace(/^strict:/, '');
    agent = createProbeAgent(egress, localAddress ? { localAddress } : {});
    agents.set(key, agent);
  }
  return agent;
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
