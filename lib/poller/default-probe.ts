// The production probe and resolver: the real probe engine over one shared keep-alive Agent, the system
// resolver for every A/AAAA record of a host, and the system's reverse lookup of a DNS node's address.
import { lookup, lookupService } from 'node:dns/promises';
import { isIP } from 'node:net';
import { createProbeAgent, probeEgressPolicy, probeNode, type ProbeAgent } from '@/lib/probe';
import type { Settings } from '@/lib/settings';
import { createReverseNames, type ReverseFn } from './reverse-dns';
import type { ProbeFn, ResolveFn } from './types';

/** One keep-alive agent per source address ('' for the system's choice), and one without loopback. */
const agents = new Map<string, ProbeAgent>();
/**
 * Per CA bundle (its PEM), the agent its balancers' nodes are probed through: the bundle's SecureContext
 * is built once, and its TLS sessions and connections are its own.
 */
const caAgents = new Map<string, ProbeAgent>();
/** Bundles kept at most; a fleet has a handful. Past it, the oldest agent is closed. */
const MAX_CA_AGENTS = 64;

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
    const agent = target.tlsCa
      ? caAgentFor(target.tlsCa, localAddress ?? '', egress)
      : agentFor(localAddress ?? '', egress);
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

function caAgentFor(
  pem: string,
  localAddress: string,
  egress: ReturnType<typeof probeEgressPolicy>,
): ProbeAgent {
  let agent = caAgents.get(pem);
  if (!agent) {
    if (caAgents.size >= MAX_CA_AGENTS) {
      const [oldest, old] = caAgents.entries().next().value ?? [];
      if (oldest !== undefined) caAgents.delete(oldest);
      void old?.close();
    }
    agent = createProbeAgent(egress, { ...(localAddress ? { localAddress } : {}), tls: { ca: pem } });
    caAgents.set(pem, agent);
  }
  return agent;
}

/** TLS counters summed over the default probe's agents: handshakes, resumed ones, certificate failures. */
export function defaultProbeTlsCounters(): { handshakes: number; resumed: number; failed: number } {
  const sum = { handshakes: 0, resumed: 0, failed: 0 };
  for (const a of [...agents.values(), ...caAgents.values()]) {
    sum.handshakes += a.tlsCounters.handshakes;
    sum.resumed += a.tlsCounters.resumed;
    sum.failed += a.tlsCounters.failed;
  }
  return sum;
}

export async function closeDefaultProbe(): Promise<void> {
  const open = [...agents.values(), ...caAgents.values()];
  agents.clear();
  caAgents.clear();
  await Promise.all(open.map((a) => a.close()));
}

export const resolveAllAddresses: ResolveFn = async (hostname) => {
  if (isIP(hostname)) return [hostname];
  const records = await lookup(hostname, { all: true, verbatim: true });
  return [...new Set(records.map((r) => r.address))];
};

/**
 * The system's name for an address (getnameinfo: /etc/hosts, then DNS PTR records, as the host is set up),
 * which answers offline for the addresses /etc/hosts names.
 */
export async function systemReverseLookup(address: string): Promise<string | null> {
  const { hostname } = await lookupService(address, 0);
  return hostname;
}

/** The reverse names every cycle of this process shares: 2 s per lookup, names kept 1 h, failures 5 min. */
export const defaultReverseNames: ReverseFn = createReverseNames({ lookup: systemReverseLookup });
