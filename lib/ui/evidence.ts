// Words for the evidence screen: what each probe step, outcome, check and reason means to an operator.
import type { EvidenceStep, LegacyCheckName, Outcome, ProbeStep, Verdict } from '@/lib/probe/types';
import { certificateExpiresSoon } from '@/lib/probe/types';

export const STEP_TEXT: Record<ProbeStep, string> = {
  discover: 'server/discover at the newest modern revision',
  'discover-retry': 'server/discover retried at a revision from -32022 data.supported',
  'discover-reauth': 'server/discover again with a new token, after a 401 on the cached one',
  initialize: 'one bounded legacy initialize (allowLegacy)',
  'discover-late': 'the answer to server/discover after its deadline (stdio keeps the request open)',
  audit: 'legacy audit initialize (served set only)',
  catalog: 'tools/list page (the tool catalog, after a settled verdict)',
};

export const LEGACY_CHECK_TEXT: Record<LegacyCheckName, string> = {
  id_match: 'JSON-RPC 2.0 response whose id matches the request',
  single_result: 'exactly one result and no error',
  protocol_version: 'result.protocolVersion is in the configured legacy revision set',
  capabilities_object: 'result.capabilities is an object',
  server_info: 'result.serverInfo has non-empty string name and version',
};

const OUTCOME_TEXT: Record<Outcome, string> = {
  result: 'result',
  rpc_error: 'JSON-RPC error',
  timeout: 'timed out',
  refused: 'connection refused',
  reset: 'connection reset',
  closed: 'connection closed',
  empty: 'empty body',
  invalid_json: 'invalid JSON',
  not_jsonrpc: 'not JSON-RPC',
  wrong_id: 'wrong response id',
  body_too_large: 'body too large',
  redirect_refused: 'redirect refused',
  http_5xx: 'HTTP 5xx',
  http_4xx: 'HTTP 4xx',
  auth_required: 'authentication required',
  unsupported_content_type: 'unsupported content type',
  egress_refused: 'refused by the egress guard',
  dns_failed: 'DNS lookup failed',
  tls_error: 'TLS error',
  tls_untrusted: 'certificate not trusted',
  tls_expired: 'certificate expired',
  tls_name_mismatch: 'certificate names another host',
  network_error: 'network error',
  process_exited: 'process exited',
  spawn_failed: 'could not start the process',
};

const MODERN_ERRORS: Record<number, string> = {
  [-32020]: 'HeaderMismatch',
  [-32021]: 'MissingRequiredClientCapability',
  [-32022]: 'UnsupportedProtocolVersion',
  [-32601]: 'method not found',
};

/** "result", "-32022 UnsupportedProtocolVersion", "timed out", … */
export function describeOutcome(step: Pick<EvidenceStep, 'outcome' | 'rpcError'>): string {
  if (step.outcome === 'rpc_error' && step.rpcError) {
    const name = MODERN_ERRORS[step.rpcError.code];
    return name ? `${step.rpcError.code} ${name}` : `error ${step.rpcError.code}`;
  }
  return OUTCOME_TEXT[step.outcome];
}

const REASON_TEXT: Record<string, string> = {
  discover_result: 'server/discover answered with a DiscoverResult: a modern server.',
  negotiated_after_32022:
    'The first discover got -32022; the retry at a revision from data.supported succeeded: a modern server.',
  modern_incompatible:
    'A modern error with no mutually supported revision (or a legacy-only list): unavailable, and initialize was never sent.',
  legacy_positive_evidence:
    'discover was ambiguous; the one bounded initialize passed all five positive-evidence checks.',
  auth_required:
    'The node refused the probe (401/403) and no credential was sent: auth-gated, not down. Auth status is never era evidence, so no initialize followed.',
  auth_failed:
    'The node refused the credential that was sent (401/403): auth-gated, not down. Auth status is never era evidence, so no initialize followed.',
  ambiguous_not_allowlisted:
    'discover gave no era (timeout, close, -32601, …) and this target does not allow legacy: fail closed.',
  tls_untrusted:
    "The node's TLS certificate is not signed by a trusted CA (the system roots, or the balancer's CA bundle): unavailable, nothing was sent.",
  tls_expired: "The node's TLS certificate has expired: unavailable, nothing was sent.",
  tls_name_mismatch:
    "The node's TLS certificate names another host than the one probed: unavailable, nothing was sent.",
};

/** The node's certificate expiry, and whether it is within the warning window (14 days) or past. */
export function describeCertificate(
  v: Pick<Verdict, 'tls'>,
  now: number,
): { text: string; warn: boolean } | null {
  const at = v.tls?.certificateExpiresAt;
  if (typeof at !== 'number') return null;
  const date = new Date(at).toISOString().slice(0, 10);
  const days = Math.floor((at - now) / 86_400_000);
  if (at <= now) return { text: `expired on ${date}`, warn: true };
  const left = days < 1 ? 'in less than a day' : `in ${days} day${days === 1 ? '' : 's'}`;
  return { text: `expires on ${date}, ${left}`, warn: certificateExpiresSoon(v, now) };
}

/** One sentence on why the verdict is what it is. */
export function describeReason(v: Pick<Verdict, 'verdict' | 'reason'>): string {
  const known = REASON_TEXT[v.reason];
  if (known) return known;
  const token = /^oauth_token_failed: (.+)$/.exec(v.reason);
  if (token?.[1]) {
    return `No access token could be obtained from the authorization server (${token[1]}): auth-gated, the node was not asked.`;
  }
  const failed = /^legacy_check_failed:(.+)$/.exec(v.reason);
  if (failed?.[1]) {
    const check = LEGACY_CHECK_TEXT[failed[1] as LegacyCheckName] ?? failed[1];
    return `The legacy initialize failed a positive-evidence check (${check}): unavailable, not legacy.`;
  }
  if (v.verdict === 'unavailable')
    return `No era could be decided: ${v.reason}. A broken server is not a legacy one.`;
  return v.reason;
}
