// How each state, era and gate is shown: always an icon and a text label, colour only as a third cue.
// Pure data, shared by components, tests and the benchmark.
import { DISPLAY_STATUS_TEXT, type StatusText } from '@/lib/rollout/labels';
import { isAuthGatedReason } from '@/lib/probe/types';
import { DISPLAY_STATUSES } from '@/lib/rollout/types';

export const ICON_NAMES = [
  'check',
  'split',
  'nonuniform',
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

const STATUS_ICON: Record<FleetStatus, IconName> = {
  stuck: 'alert',
  rolling: 'rolling',
  'era-split': 'split',
  drift: 'drift',
  'region-split': 'split',
  down: 'unavailable',
  'auth-gated': 'lock',
  flapping: 'flap',
  degraded: 'degraded',
  uniform: 'check',
  unknown: 'unknown',
  pending: 'clock',
};

const TONE_OF: Record<StatusText['tone'], Tone> = {
  critical: 'bad',
  warning: 'warn',
  info: 'info',
  ok: 'ok',
  neutral: 'muted',
};

export function presentTone(tone: StatusText['tone']): Tone {
  return TONE_OF[tone];
}

export function presentStatus(status: FleetStatus): Presentation {
  if (status === 'pending') {
    return {
      label: 'Not probed yet',
      icon: 'clock',
      tone: 'muted',
      hint: 'Waiting for the first probe cycle.',
    };
  }
  const text = DISPLAY_STATUS_TEXT[status];
  return { label: text.label, icon: STATUS_ICON[status], tone: TONE_OF[text.tone], hint: text.description };
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
  modern: { label: 'Modern', icon: 'modern', tone: 'ok', hint: 'Answers server/discover (2026-07-28 era).' },
  legacy: {
    label: 'Legacy',
    icon: 'legacy',
    tone: 'info',
    hint: 'Passed the five positive-evidence checks of initialize.',
  },
  unavailable: {
    label: 'Unavailable',
    icon: 'unavailable',
    tone: 'bad',
    hint: 'No era could be decided; the reason says why.',
  },
};

export function presentEra(era: Era): Presentation {
  return ERA[era];
}

const AUTH_GATED: Presentation = {
  label: 'Auth-gated',
  icon: 'lock',
  tone: 'warn',
  hint: 'Refused at the door (401/403, or no token): not down, but its era cannot be judged.',
};

/** A verdict's badge: its era, except that an auth-gated node is shown apart from an unavailable one. */
export function presentVerdict(v: { verdict: Era; reason: string }): Presentation {
  return isAuthGatedReason(v.reason) && v.verdict === 'unavailable' ? AUTH_GATED : ERA[v.verdict];
}

export function presentGate(ready: boolean | null): Presentation {
  if (ready === null) return { label: 'Unknown', icon: 'unknown', tone: 'muted', hint: 'No probe yet.' };
  return ready
    ? {
        label: 'Open',
        icon: 'unlock',
        tone: 'ok',
        hint: 'Every node is available with the same served set.',
      }
    : { label: 'Closed', icon: 'lock', tone: 'warn', hint: 'Not ready to advertise the revision.' };
}

export function presentCheck(passed: boolean): Presentation {
  return passed
    ? { label: 'Pass', icon: 'check', tone: 'ok', hint: 'Check passed.' }
    : { label: 'Fail', icon: 'unavailable', tone: 'bad', hint: 'Check failed.' };
}

export function isEra(value: unknown): value is Era {
  return typeof value === 'string' && (ERAS as readonly string[]).includes(value);
}
