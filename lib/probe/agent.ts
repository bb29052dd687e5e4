// The keep-alive agent probes share. Build one per policy and pass it as `deps.dispatcher`: a pool of warm
// sockets per node is what keeps thousands of probes a minute cheap.
import type { EgressPolicy } from '@/lib/net/egress';
import { H1Agent, type H1AgentOptions } from './h1-agent';

export type ProbeAgent = H1Agent;

/**
 * How long an idle connection to a node is kept at most: longer than a poll interval, so a node probed every
 * 30 or 60 s keeps its (TLS) connection between cycles. A server's `Keep-Alive: timeout=N` shortens it (to
 * 2 s under N), and one that closes sooner without saying so costs one retry on a fresh connection.
 */
export const PROBE_KEEP_ALIVE_MS = 120_000;

export function createProbeAgent(policy: EgressPolicy, options: H1AgentOptions = {}): ProbeAgent {
  return new H1Agent(policy, { keepAliveTimeoutMs: PROBE_KEEP_ALIVE_MS, ...options });
}

const shared = new Map<string, ProbeAgent>();

/** One lazily built agent per policy, for callers that pass no dispatcher (the CLI, tests). */
export function sharedProbeAgent(policy: EgressPolicy): ProbeAgent {
  const key = `${policy.allowLoopback ? 1 : 0}${policy.allowPrivate ? 1 : 0}`;
  let agent = shared.get(key);
  if (!agent) {
    agent = createProbeAgent(policy);
    shared.set(key, agent);
  }
  return agent;
}

/** Closes the shared agents so a short-lived process can exit without waiting for idle sockets. */
export async function closeSharedProbeAgents(): Promise<void> {
  const agents = [...shared.values()];
  shared.clear();
  await Promise.all(agents.map((a) => a.close()));
}
