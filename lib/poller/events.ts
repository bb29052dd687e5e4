// What the poll role reports as it works, for whoever observes it (the stored metric series, a benchmark, a
// test): lib/poller names no observer. Each event carries plain data.
import { EventEmitter } from 'node:events';
import type { UnitRef } from '@/db/queries/units';
import type { Verdict } from '@/lib/probe/types';
import type { CycleResult } from './balancer-cycle';
import type { StdioCycleResult } from './stdio-cycle';

export interface PollerEventMap {
  /** A probe started, `lagMs` after its cycle was due. */
  probeStart: [lagMs: number];
  /** A probe ended with this verdict (a failed one has its reason). */
  probe: [verdict: Pick<Verdict, 'verdict' | 'reason' | 'durationMs'>];
  cycle: [result: CycleResult];
  stdioCycle: [result: StdioCycleResult];
  /** A cycle failed on our side (not a server's fault): nothing was stored. */
  cycleFailed: [unit: UnitRef, error: string];
  /** A cycle's write was refused because another worker took its unit over. */
  cycleFenced: [unit: UnitRef];
}

export type PollerEvents = EventEmitter<PollerEventMap>;

export function createPollerEvents(): PollerEvents {
  return new EventEmitter<PollerEventMap>();
}
