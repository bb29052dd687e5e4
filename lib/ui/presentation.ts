// How each state, era and gate is shown: always an icon and a text label, colour only as a third cue.
// Pure data, shared by components, tests and the benchmark.
import { DISPLAY_STATUSES } from '@/lib/rollout/types';

export const ICON_NAMES = [
  'check',
  'split',
  'drift',
  'degraded',
  'flap',
  'rolling',
  'unknown',
  'modern',
  'legacy',
  'unavailable',
  'lock',
  'unlock',
  'clock',
  'pause',
  'alert',
  'info',
] as const;
export type IconName = (typeof ICON_NAMES)[number];

export const TONES = ['ok', 'bad', 'warn', 'info', 'muted'] as const;
export type Tone = (typeof TONES)[number];

export interface Presentation {
  label: string;
  icon: IconName;
  tone: Tone;
  /** One sentence for a tooltip or a legend. */
  hint: string;
}

/** The fleet list's status: the analysis' display status, or `pending` before the first cycle. */
export const FLEET_STATUSES = [...DISPLAY_STATUSES, 'pending'] as const;
export type FleetStatus = (typeof FLEET_STATUSES)[number];

const STATUS: Record<FleetStatus, Presentation> = {
  stuck: {
    label: 'rollout stuck',
    icon: 'alert',
    tone: 'bad',
    hint: 'The rollout window passed its deadline and the nodes still disagree.',
  },
  rolling: {
    label: 'rolling',
    icon: 'rolling',
    tone: 'info',
    hint: 'Inside an open rollout window: non-uniform is expected, alerts are held.',
  },
  'era-split': {
    label: 'era-split',
    icon: 'split',
    tone: 'bad',
    hint: 'Nodes give different client eras: some clients fail outright.',
  },
  drift: {
    label: 'drift',
    icon: 'drift',
    tone: 'warn',
    hint: 'Same client era, but served sets or versions differ between nodes.',
  },
  down: { label: 'down', icon: 'unavailable', tone: 'bad', hint: 'No node or sample is available.' },
  flapping: {
    label: 'flapping',
    icon: 'flap',
    tone: 'warn',
    hint: 'A node keeps changing its fingerprint (restarts, or a URL that is really a balancer).',
  },
  degraded: {
    label: 'degraded',
    icon: 'degraded',
    tone: 'warn',
    hint: 'Some nodes are unavailable; the available ones agree.',
  },
  uniform: {
    label: 'uniform',
    icon: 'check',
    tone: 'ok',
    hint: 'Every available node gives the same answer.',
  },
  unknown: { label: 'unknown', icon: 'unknown', tone: 'muted', hint: 'The last cycle could not decide.' },
  pending: {
    label: 'not probed yet',
    icon: 'clock',
    tone: 'muted',
    hint: 'Waiting for the first probe cycle.',
  },
};

export function presentStatus(status: FleetStatus): Presentation {
  return STATUS[status];
}

/** Order in the fleet list: the states that hurt clients first. */
export function statusRank(status: FleetStatus): number {
  return FLEET_STATUSES.indexOf(status);
}

export function isFleetStatus(value: unknown): value is FleetStatus {
  return typeof value === 'string' && (FLEET_STATUSES as readonly string[]).includes(value);
}

export const ERAS = ['modern', 'legacy', 'unavailable'] as const;
export type Era = (typeof ERAS)[number];

const ERA: Record<Era, Presentation> = {
  modern: { label: 'modern', icon: 'modern', tone: 'ok', hint: 'Answers server/discover (2026-07-28 era).' },
  legacy: {
    label: 'legacy',
    icon: 'legacy',
    tone: 'info',
    hint: 'Passed the five positive-evidence checks of initialize.',
  },
  unavailable: {
    label: 'unavailable',
    icon: 'unavailable',
    tone: 'bad',
    hint: 'No era could be decided; the reason says why.',
  },
};

export function presentEra(era: Era): Presentation {
  return ERA[era];
}

export function presentGate(ready: boolean | null): Presentation {
  if (ready === null) return { label: 'gate unknown', icon: 'unknown', tone: 'muted', hint: 'No probe yet.' };
  return ready
    ? {
        label: 'gate open',
        icon: 'unlock',
        tone: 'ok',
        hint: 'Every node is available with the same served set.',
      }
    : { label: 'gate closed', icon: 'lock', tone: 'warn', hint: 'Not ready to advertise the revision.' };
}

export function presentCheck(passed: boolean): Presentation {
  return passed
    ? { label: 'pass', icon: 'check', tone: 'ok', hint: 'Check passed.' }
    : { label: 'fail', icon: 'unavailable', tone: 'bad', hint: 'Check failed.' };
}
