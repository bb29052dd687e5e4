// The keep-alive undici Agent probes share. Build one per policy and pass it as `deps.dispatcher`: a pool
// of warm sockets per node is what keeps thousands of probes a minute cheap.
import type { Agent } from 'undici';
import { createEgressAgent, type EgressAgentOptions, type EgressPolicy } from '@/lib/net/egress';

export function createProbeAgent(policy: EgressPolicy, options: EgressAgentOptions = {}): Agent {
  return createEgressAgent(policy, { keepAliveTimeoutMs: 30_000, ...options });
}

const shared = new Map<string, Agent>();

/** One lazily built Agent per policy, for callers that pass no dispatcher (the CLI, tests). */
export function sharedProbeAgent(policy: EgressPolicy): Agent {
  const key = `${policy.allowLoopback ? 1 : 0}${policy.allowPrivate ? 1 : 0}`;
  let agent = shared.get(key);
  if (!agent) {
    agent = createProbeAgent(policy);
    shared.set(key, agent);
  }
  return agent;
}

/** Closes the shared Agents so a short-lived process can exit without waiting for idle sockets. */
export async function closeSharedProbeAgents(): Promise<void> {
  const agents = [...shared.values()];
  shared.clear();
  await Promise.all(agents.map((a) => a.close()));
}
