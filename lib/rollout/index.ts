// The rollout analysis: pure functions over verdicts, safe to import in the browser.
export * from './types';
export { fingerprintOf, fingerprintKey, keyedFingerprintOf, normalizeRevisions } from './fingerprint';
export { analyzeCycle, pickDisplayStatus } from './analyze';
export { evaluateGate, judgeGate, isAuthGated, GATE_STATES, type GateState } from './gate';
export { diffSnapshots } from './events';
export { describeTarget, matchesTarget } from './window';
export { RolloutInputError, DEFAULT_FLAP_THRESHOLD, DEFAULT_FLAP_WINDOW_MS } from './validate';
export * from './labels';
