// The production probe and resolver: the real probe engine over one shared keep-alive Agent, and the
// system resolver for every A/AAAA record of a host.
import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import type { Agent } from 'undici';
import { createProbeAgent, egressPolicyFromEnv, probeNode } from '@/lib/probe';
import type { ProbeFn, ResolveFn } from './types';

let agent: Agent | null = null;

/** Probes with the egress policy of the environment (`ERAWATCH_ALLOW_LOOPBACK=1` allows loopback). */
export function createDefaultProbe(env: NodeJS.ProcessEnv = process.env): ProbeFn {
  const egress = egressPolicyFromEnv(env);
  return (target, options) => {
    agent ??= createProbeAgent(egress);
    return probeNode(target, options, { dispatcher: agent, egress });
  };
}

export async function closeDefaultProbe(): Promise<void> {
  const a = agent;
  agent = null;
  if (a) await a.close();
}

export const resolveAllAddresses: ResolveFn = async (hostname) => {
  if (isIP(hostname)) return [hostname];
  const records = await lookup(hostname, { all: true, verbatim: true });
  return [...new Set(records.map((r) => r.address))];
};
