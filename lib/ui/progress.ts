// The words and arrow a progress measure is shown with (lib/rollout/progress.ts): pure, for the balancer page's
// bar and the fleet list's compact one.
import type { BalancerProgressView } from '@/lib/schemas/progress';
import { formatDuration } from './balancer';

export interface ProgressText {
  /** "3 of 4 available nodes on modern 2026-07-28 · modern only", "3 of 5 available nodes in the largest group". */
  headline: string;
  /** "4 of 4 serve 2026-07-28", or null without a target revision. */
  revision: string | null;
  /** "+1 in 10 min · +2 in 1 h", or "no history yet". */
  change: string;
  /** "uniform in about 5 min", "stalled: no node moved for 5 cycles", "uniform", or null. */
  outlook: string | null;
  arrow: '↑' | '↓' | '→' | '';
  percent: number;
}

function signed(n: number | null): string | null {
  if (n === null) return null;
  return n > 0 ? `+${n}` : n < 0 ? `−${-n}` : '±0';
}

export function progressText(p: BalancerProgressView, now: number): ProgressText {
  const headline =
    p.basis === 'window'
      ? `${p.onTarget} of ${p.available} available nodes on ${p.targetLabel}`
      : `${p.onTarget} of ${p.available} available nodes in the largest group (no declared target)`;
  const changes = [
    signed(p.change10m) === null ? null : `${signed(p.change10m)} in 10 min`,
    signed(p.change1h) === null ? null : `${signed(p.change1h)} in 1 h`,
  ].filter((x): x is string => x !== null);
  let outlook: string | null = null;
  if (p.complete) outlook = p.basis === 'window' ? 'uniform on the target' : 'uniform';
  else if (p.stalled) outlook = 'stalled: no node moved for 5 poll cycles';
  else if (p.etaAt !== null)
    outlook = `uniform in about ${formatDuration(Math.max(0, p.etaAt - now))} at this rate`;
  return {
    headline,
    revision:
      p.targetRevision === null
        ? null
        : `${p.servingTargetRevision} of ${p.available} serve ${p.targetRevision}`,
    change: changes.length > 0 ? changes.join(' · ') : 'no history yet',
    outlook,
    arrow: p.trend === 'up' ? '↑' : p.trend === 'down' ? '↓' : p.trend === 'flat' ? '→' : '',
    percent: Math.round(p.share * 100),
  };
}
