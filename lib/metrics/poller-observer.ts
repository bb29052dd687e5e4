// The poll role's events as stored metric series: every probe's duration and failure reason, failed and
// fenced cycles, whichever process runs the role. The poller knows nothing of this module.
import type { PollerEvents } from '@/lib/poller/events';
import { recordCycleFailed, recordCycleFenced, recordProbe, recordSeverityChange } from './stored';

export function observePoller(events: PollerEvents): void {
  events.on('probe', (v) => recordProbe(v.verdict, v.reason, v.durationMs));
  events.on('cycleFailed', () => recordCycleFailed());
  events.on('cycleFenced', () => recordCycleFenced());
  // Counted from the events the cycle stored, so each transition counts once, as it is recorded.
  events.on('cycle', (result) => {
    for (const e of result.events) {
      if (e.type !== 'balancer.severity_changed') continue;
      recordSeverityChange(String(e.data.from), String(e.data.to));
    }
  });
}
