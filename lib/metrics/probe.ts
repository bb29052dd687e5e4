// Wraps a probe function so every probe lands in the stored duration histogram and, when it fails, in the
// failure counter by reason class.
import type { ProbeFn } from '@/lib/poller/types';
import { recordProbe } from './stored';

export function instrumentProbe(probe: ProbeFn, clock: () => number = Date.now): ProbeFn {
  return async (target, options) => {
    const started = clock();
    const verdict = await probe(target, options);
    recordProbe(verdict.verdict, verdict.reason, verdict.durationMs || clock() - started);
    return verdict;
  };
}
