// No phantom answers: a sample of the public URL is placed by what one response carried. Facts that took
// several requests (discover on one node, initialize or the legacy audit on another) never form a group.
import { isHandshakeEra } from '@/lib/probe/classify';
import type { Verdict } from '@/lib/probe/types';
import { fingerprintKey } from './fingerprint';
import type { Fingerprint, PartitionGroup } from './types';

/** The comparable facts of one sample, as far as one response carried them. */
export interface SampleFacts {
  era: Fingerprint['era'];
  negotiatedVersion: string | null;
  /** Modern revisions only: the legacy side of a served set comes from other requests (the audit). */
  modernSupported: string[];
  serverName: string | null;
  serverVersion: string | null;
  /** True when one response carried every fact above (or every response came from one attributed node). */
  singleResponse: boolean;
}

/** Reasons that mean a modern answer settled on one discover (or its retry) alone. */
const ONE_RESPONSE_MODERN = new Set([
  'discover_result',
  'negotiated_after_32022',
  'modern_error_header_mismatch',
  'modern_error_missing_capability',
]);

/** The exchanges a legacy verdict rests on: every discover it sent and the initialize. */
const LEGACY_VERDICT_STEPS: ReadonlySet<string> = new Set(['discover', 'discover-reauth', 'initialize']);

/** Every exchange the verdict rests on named the same node through the attribution header. */
function oneAttributedNode(v: Verdict): boolean {
  const names = new Set<string | undefined>(
    v.evidence.filter((e) => LEGACY_VERDICT_STEPS.has(e.step)).map((e) => e.servedBy),
  );
  const [only] = [...names];
  return names.size === 1 && only !== undefined;
}

export function sampleFactsOf(v: Verdict): SampleFacts | null {
  if (v.verdict === 'unavailable') return null;
  const base = {
    era: v.verdict,
    negotiatedVersion: v.negotiatedVersion,
    serverName: v.serverInfo?.name ?? null,
    serverVersion: v.serverInfo?.version ?? null,
  };
  if (v.verdict === 'modern') {
    return {
      ...base,
      modernSupported: v.supported.filter((r) => !isHandshakeEra(r)),
      singleResponse: ONE_RESPONSE_MODERN.has(v.reason),
    };
  }
  // Legacy needs an ambiguous discover and a positive initialize: two requests, two nodes perhaps.
  return { ...base, modernSupported: [], singleResponse: oneAttributedNode(v) };
}

function sameList(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

/** Whether a group's fingerprint presents these facts: the dimensions one response cannot carry are not compared. */
export function factsMatch(facts: SampleFacts, fp: Fingerprint): boolean {
  return (
    facts.era === fp.era &&
    facts.negotiatedVersion === fp.negotiatedVersion &&
    facts.serverName === fp.serverName &&
    facts.serverVersion === fp.serverVersion &&
    sameList([...facts.modernSupported].sort(), fp.supported.filter((r) => !isHandshakeEra(r)).sort())
  );
}

/** The fingerprint of an answer only samples gave: its facts, with nothing filled in from elsewhere. */
export function sampleOnlyFingerprint(facts: SampleFacts): { key: string; fingerprint: Fingerprint } {
  const supported = facts.era === 'modern' ? [...facts.modernSupported] : [];
  if (facts.era === 'legacy' && facts.negotiatedVersion) supported.push(facts.negotiatedVersion);
  const fingerprint: Fingerprint = {
    era: facts.era,
    negotiatedVersion: facts.negotiatedVersion,
    supported: [...new Set(supported)].sort().reverse(),
    servedEras: facts.era === 'modern' ? 'modern-only' : 'legacy-only',
    serverName: facts.serverName,
    serverVersion: facts.serverVersion,
    catalogDigest: null,
  };
  return { key: fingerprintKey(fingerprint), fingerprint };
}

export type Placement = { kind: 'group'; key: string; fingerprint: Fingerprint } | { kind: 'unplaced' };

/**
 * Where one available sample goes: the group of the node it is attributed to; else the largest node group
 * presenting its facts; else, when one response carried them, a group of its own; else nowhere.
 */
export function placeSample(
  verdict: Verdict,
  attributedKey: string | null,
  nodeGroups: readonly PartitionGroup[],
): Placement {
  const byKey = attributedKey ? nodeGroups.find((g) => g.key === attributedKey) : undefined;
  if (byKey) return { kind: 'group', key: byKey.key, fingerprint: byKey.fingerprint };
  const facts = sampleFactsOf(verdict);
  if (!facts) return { kind: 'unplaced' };
  const match = nodeGroups.find((g) => factsMatch(facts, g.fingerprint));
  if (match) return { kind: 'group', key: match.key, fingerprint: match.fingerprint };
  if (!facts.singleResponse) return { kind: 'unplaced' };
  return { kind: 'group', ...sampleOnlyFingerprint(facts) };
}
