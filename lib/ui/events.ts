// One line of text per event, for the timeline and the event log.
import { EVENT_LABELS } from '@/lib/rollout/labels';
import type { EventType } from '@/lib/rollout/types';
import type { IconName, Tone } from './presentation';

/** Page sizes the event log offers. */
export const EVENT_LIMITS = [50, 200, 500] as const;

export interface EventLike {
  type: string;
  nodeId: string | null;
  data: Record<string, unknown>;
}

const EVENT_LOOK: Record<EventType, { icon: IconName; tone: Tone }> = {
  'balancer.diverged': { icon: 'split', tone: 'bad' },
  'balancer.converged': { icon: 'check', tone: 'ok' },
  'balancer.severity_changed': { icon: 'rolling', tone: 'warn' },
  'balancer.region_split': { icon: 'split', tone: 'warn' },
  'balancer.region_converged': { icon: 'check', tone: 'ok' },
  'node.unavailable': { icon: 'unavailable', tone: 'bad' },
  'node.auth_gated': { icon: 'lock', tone: 'warn' },
  'node.recovered': { icon: 'check', tone: 'ok' },
  'node.era_changed': { icon: 'rolling', tone: 'info' },
  'node.catalog_changed': { icon: 'rolling', tone: 'info' },
  'node.flapping': { icon: 'flap', tone: 'warn' },
  'rollout.stuck': { icon: 'alert', tone: 'bad' },
  'gate.opened': { icon: 'unlock', tone: 'ok' },
  'gate.closed': { icon: 'lock', tone: 'warn' },
};

function isEventType(t: string): t is EventType {
  return Object.hasOwn(EVENT_LABELS, t);
}

export function eventLook(type: string): { label: string; icon: IconName; tone: Tone } {
  if (!isEventType(type)) return { label: type, icon: 'info', tone: 'muted' };
  return { label: EVENT_LABELS[type], ...EVENT_LOOK[type] };
}

function str(v: unknown): string | null {
  return typeof v === 'string' && v !== '' ? v : null;
}

function eraText(v: unknown): string {
  if (typeof v !== 'object' || v === null) return '?';
  const o = v as { era?: unknown; servedEras?: unknown };
  const era = str(o.era) ?? '?';
  const served = str(o.servedEras);
  return served ? `${era} (${served})` : era;
}

/** "eu-west | us-east": the region groups an event carries, each group's regions joined by commas. */
function regionGroupsText(v: unknown): string {
  if (!Array.isArray(v)) return '';
  return v
    .map((g: unknown) => {
      const regions = (g as { regions?: unknown } | null)?.regions;
      return Array.isArray(regions) ? regions.filter((r) => typeof r === 'string').join(', ') : '';
    })
    .filter((t) => t !== '')
    .join(' | ');
}

/** The detail after the label: "legacy (legacy-only) → modern (dual-era)", "timeout", "2026-07-28". */
export function describeEvent(e: EventLike): string {
  const d = e.data;
  switch (e.type) {
    case 'balancer.diverged':
      return [str(d.severity), d.rolling === true ? 'inside a rollout window' : null]
        .filter(Boolean)
        .join(', ');
    case 'balancer.converged':
      return str(d.fromSeverity) ? `was ${String(d.fromSeverity)}` : '';
    case 'balancer.severity_changed':
      return str(d.from) && str(d.to) ? `${String(d.from)} → ${String(d.to)}` : '';
    case 'balancer.region_split': {
      const groups = regionGroupsText(d.regions);
      return groups ? `${groups} see different answers` : '';
    }
    case 'balancer.region_converged':
      return regionGroupsText(d.regions) ? `${regionGroupsText(d.regions)} agree` : '';
    case 'node.unavailable':
    case 'node.auth_gated':
      return [str(d.reason), str(d.region) ? `from ${String(d.region)}` : null].filter(Boolean).join(', ');
    case 'node.recovered':
      return [str(d.era), str(d.downReason) ? `after ${String(d.downReason)}` : null]
        .filter(Boolean)
        .join(', ');
    case 'node.era_changed':
      return `${eraText(d.from)} → ${eraText(d.to)}`;
    case 'node.catalog_changed': {
      const names = (v: unknown) => (Array.isArray(v) ? v.filter((n) => typeof n === 'string') : []);
      const parts = [
        ...names(d.added).map((n) => `+${n}`),
        ...names(d.removed).map((n) => `−${n}`),
        ...names(d.changed).map((n) => `~${n}`),
      ];
      return parts.length > 0 ? parts.join(' ') : 'descriptions or schemas changed';
    }
    case 'gate.opened':
      return str(d.revision) ?? '';
    case 'gate.closed': {
      const reasons = Array.isArray(d.reasons) ? d.reasons.filter((r) => typeof r === 'string') : [];
      return [str(d.revision), reasons[0]].filter(Boolean).join(': ');
    }
    case 'rollout.stuck':
      return str(d.progress) ?? '';
    default:
      return '';
  }
}

/** The analysis names nodes by id (`nod_…`); operators know them by URL. */
export function withNodeNames(text: string, names: ReadonlyMap<string, string>): string {
  return text.replace(/\bnod_[A-Za-z0-9_-]+/g, (id) => names.get(id) ?? id);
}
