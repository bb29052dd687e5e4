// The probe engine's public surface: probeNode, its dependencies, the shared Agent and the data contract.
export * from './types';
export { probeNode, validateProbeOptions, DEFAULT_EGRESS, type ProbeDeps } from './probe-node';
export { createProbeAgent, sharedProbeAgent, closeSharedProbeAgents, type ProbeAgent } from './agent';
export { deriveServedEras, isHandshakeEra, sortRevisions, MODERN_ERA_START } from './classify';
export type { ProbeTransport, Exchange, SendOptions } from './transport';
export { probeEgressPolicy, type EgressPolicy, type LookupFn } from '@/lib/net/egress';
