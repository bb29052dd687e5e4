// Text for every state, era and event. The UI pairs each with an icon and never relies on colour
// alone, so these labels are the contract; `tone` lets it pick icon and colour consistently.
import type { ClientEra, ServedEra } from '@/lib/probe/types';
import type { BalancerState, DisplayStatus, EventType, Severity, WindowStatus } from './types';

export type Tone = 'critical' | 'warning' | 'info' | 'ok' | 'neutral';

export interface StatusText {
  label: string;
  description: string;
  tone: Tone;
}

export const DISPLAY_STATUS_TEXT: Record<DisplayStatus, StatusText> = {
  stuck: {
    label: 'Rollout stuck',
    description: 'The rollout window passed its deadline and the nodes are still not uniform on the target.',
    tone: 'critical',
  },
  rolling: {
    label: 'Rolling out',
    description: 'Nodes differ inside an open rollout window: expected, shown as progress; alerts are held.',
    tone: 'info',
  },
  'era-split': {
    label: 'Era split',
    description: 'Nodes would lead a client to different eras: some clients fail outright.',
    tone: 'critical',
  },
  drift: {
    label: 'Drift',
    description: 'Nodes agree on the era but differ in served revisions, versions or server identity.',
    tone: 'warning',
  },
  'region-split': {
    label: 'Region split',
    description:
      'Each region sees one answer, but not the same one: the public URL sends different regions to different pools.',
    tone: 'warning',
  },
  down: {
    label: 'Down',
    description: 'Every node and sample probed this cycle was unavailable.',
    tone: 'critical',
  },
  'auth-gated': {
    label: 'Auth-gated',
    description:
      'Every unavailable node refused the probe at the door (401/403, or no token): not down, but its era cannot be judged without a working credential.',
    tone: 'warning',
  },
  flapping: {
    label: 'Flapping',
    description: 'A node keeps changing its answer: restarts, or a node URL that is really another balancer.',
    tone: 'warning',
  },
  degraded: {
    label: 'Degraded',
    description: 'Some nodes are unavailable; the ones that answered agree.',
    tone: 'warning',
  },
  uniform: { label: 'Uniform', description: 'Every available node gives the same answer.', tone: 'ok' },
  unknown: { label: 'Unknown', description: 'Nothing has been probed yet.', tone: 'neutral' },
};

export const DISPLAY_STATUS_LABELS: Record<DisplayStatus, string> = {
  stuck: DISPLAY_STATUS_TEXT.stuck.label,
  rolling: DISPLAY_STATUS_TEXT.rolling.label,
  'era-split': DISPLAY_STATUS_TEXT['era-split'].label,
  drift: DISPLAY_STATUS_TEXT.drift.label,
  'region-split': DISPLAY_STATUS_TEXT['region-split'].label,
  down: DISPLAY_STATUS_TEXT.down.label,
  'auth-gated': DISPLAY_STATUS_TEXT['auth-gated'].label,
  flapping: DISPLAY_STATUS_TEXT.flapping.label,
  degraded: DISPLAY_STATUS_TEXT.degraded.label,
  uniform: DISPLAY_STATUS_TEXT.uniform.label,
  unknown: DISPLAY_STATUS_TEXT.unknown.label,
};

export const STATE_LABELS: Record<BalancerState, string> = {
  uniform: 'Uniform',
  'non-uniform': 'Non-uniform',
  unknown: 'Unknown',
};

export const SEVERITY_LABELS: Record<Severity, string> = {
  'era-split': 'Era split',
  drift: 'Drift',
  'region-split': 'Region split',
};

export const CLIENT_ERA_LABELS: Record<ClientEra, string> = {
  modern: 'Modern',
  legacy: 'Legacy',
  unavailable: 'Unavailable',
};

export const SERVED_ERA_LABELS: Record<ServedEra, string> = {
  'modern-only': 'Modern only',
  'dual-era': 'Dual-era',
  'legacy-only': 'Legacy only',
  unknown: 'Served set unknown',
};

export const WINDOW_STATUS_LABELS: Record<WindowStatus, string> = {
  scheduled: 'Scheduled',
  open: 'In progress',
  complete: 'Complete',
  stuck: 'Stuck',
};

export const EVENT_LABELS: Record<EventType, string> = {
  'balancer.diverged': 'Balancer diverged',
  'balancer.converged': 'Balancer converged',
  'balancer.severity_changed': 'Severity changed',
  'balancer.region_split': 'Regions split',
  'balancer.region_converged': 'Regions agree again',
  'node.unavailable': 'Node unavailable',
  'node.auth_gated': 'Node auth-gated',
  'node.recovered': 'Node recovered',
  'node.era_changed': 'Node era changed',
  'node.catalog_changed': 'Node catalog changed',
  'node.flapping': 'Node flapping',
  'rollout.stuck': 'Rollout stuck',
  'gate.opened': 'Gate opened',
  'gate.closed': 'Gate closed',
};
