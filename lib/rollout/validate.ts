// Input checks for the analysis. Inputs come from the store and the API, so a malformed one is
// refused whole with every problem named, before anything is computed.
import { CLIENT_ERAS, SERVED_ERAS } from '@/lib/probe/types';
import type { CycleInput, RolloutTarget } from './types';

export class RolloutInputError extends Error {
  readonly issues: string[];
  constructor(issues: string[]) {
    super(`invalid rollout analysis input: ${issues.join('; ')}`);
    this.name = 'RolloutInputError';
    this.issues = issues;
  }
}

export const DEFAULT_FLAP_THRESHOLD = 3;
export const DEFAULT_FLAP_WINDOW_MS = 10 * 60_000;

const isText = (v: unknown): v is string => typeof v === 'string' && v.trim().length > 0;
const isInstant = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);
const isClientEra = (v: unknown) => (CLIENT_ERAS as readonly unknown[]).includes(v);
const isServedEra = (v: unknown) => (SERVED_ERAS as readonly unknown[]).includes(v);

function checkVerdict(where: string, v: unknown, issues: string[]): void {
  if (typeof v !== 'object' || v === null) {
    issues.push(`${where}.verdict must be a verdict object`);
    return;
  }
  const verdict = v as Record<string, unknown>;
  if (!isClientEra(verdict.verdict)) {
    issues.push(`${where}.verdict.verdict must be one of ${CLIENT_ERAS.join(', ')}`);
  }
  if (!isServedEra(verdict.servedEras)) {
    issues.push(`${where}.verdict.servedEras must be one of ${SERVED_ERAS.join(', ')}`);
  }
  if (!Array.isArray(verdict.supported) || !verdict.supported.every((s) => typeof s === 'string')) {
    issues.push(`${where}.verdict.supported must be an array of revision strings`);
  }
}

export function checkTarget(target: RolloutTarget | undefined, issues: string[]): void {
  if (typeof target !== 'object' || target === null) {
    issues.push('window.target must be an object');
    return;
  }
  const given = Object.entries(target).filter(([, v]) => v !== undefined);
  if (given.length === 0) {
    issues.push(
      'window.target must name at least one of era, negotiatedVersion, servedEras, supportedIncludes, fingerprintKey',
    );
  }
  if (target.era !== undefined && target.era !== 'modern' && target.era !== 'legacy') {
    issues.push('window.target.era must be modern or legacy');
  }
  if (target.servedEras !== undefined && !isServedEra(target.servedEras)) {
    issues.push(`window.target.servedEras must be one of ${SERVED_ERAS.join(', ')}`);
  }
  for (const field of ['negotiatedVersion', 'supportedIncludes', 'fingerprintKey'] as const) {
    const value = target[field];
    if (value !== undefined && !isText(value))
      issues.push(`window.target.${field} must be a non-empty string`);
  }
}

/** Throws RolloutInputError listing every problem; returns the effective flap options. */
export function validateCycleInput(input: CycleInput): { flapThreshold: number; flapWindowMs: number } {
  const issues: string[] = [];
  if (!isText(input.balancerId)) issues.push('balancerId must be a non-empty string');
  if (!isInstant(input.at)) issues.push('at must be a finite epoch-ms number');

  if (!Array.isArray(input.nodes)) {
    issues.push('nodes must be an array');
  } else {
    const seen = new Set<string>();
    input.nodes.forEach((node, i) => {
      if (!isText(node.nodeId)) {
        issues.push(`nodes[${i}].nodeId must be a non-empty string`);
      } else if (seen.has(node.nodeId)) {
        issues.push(`nodes[${i}].nodeId "${node.nodeId}" appears more than once`);
      } else {
        seen.add(node.nodeId);
      }
      checkVerdict(`nodes[${i}]`, node.verdict, issues);
      if (!Array.isArray(node.recentChanges) || !node.recentChanges.every(isInstant)) {
        issues.push(`nodes[${i}].recentChanges must be an array of epoch-ms numbers`);
      }
    });
  }

  if (!Array.isArray(input.samples)) {
    issues.push('samples must be an array');
  } else {
    input.samples.forEach((sample, i) => {
      checkVerdict(`samples[${i}]`, sample.verdict, issues);
      if (sample.nodeId !== null && !isText(sample.nodeId)) {
        issues.push(`samples[${i}].nodeId must be null or a non-empty string`);
      }
    });
  }

  if (input.window !== null) {
    const w = input.window;
    if (typeof w !== 'object') {
      issues.push('window must be an object or null');
    } else {
      if (!isText(w.id)) issues.push('window.id must be a non-empty string');
      if (!isInstant(w.openedAt)) issues.push('window.openedAt must be a finite epoch-ms number');
      if (!isInstant(w.deadline)) issues.push('window.deadline must be a finite epoch-ms number');
      if (isInstant(w.openedAt) && isInstant(w.deadline) && w.deadline <= w.openedAt) {
        issues.push('window.deadline must be after window.openedAt');
      }
      checkTarget(w.target, issues);
    }
  }

  if (!Array.isArray(input.gateRevisions) || !input.gateRevisions.every(isText)) {
    issues.push('gateRevisions must be an array of non-empty revision strings');
  }

  const flapThreshold = input.options?.flapThreshold ?? DEFAULT_FLAP_THRESHOLD;
  const flapWindowMs = input.options?.flapWindowMs ?? DEFAULT_FLAP_WINDOW_MS;
  if (!Number.isInteger(flapThreshold) || flapThreshold < 0) {
    issues.push('options.flapThreshold must be a non-negative integer');
  }
  if (!isInstant(flapWindowMs) || flapWindowMs <= 0) {
    issues.push('options.flapWindowMs must be a positive number of milliseconds');
  }

  const prev = input.previous;
  if (
    prev !== undefined &&
    prev !== null &&
    isText(input.balancerId) &&
    prev.balancerId !== input.balancerId
  ) {
    issues.push(`previous snapshot belongs to balancer "${prev.balancerId}", not "${input.balancerId}"`);
  }

  if (issues.length > 0) throw new RolloutInputError(issues);
  return { flapThreshold, flapWindowMs };
}
