// The probe's data contract. The poller, the store, the rollout analysis, the API and the UI all read
// these shapes, so a change here is a change of contract: extend, do not rename.

export const CLIENT_ERAS = ['modern', 'legacy', 'unavailable'] as const;
export type ClientEra = (typeof CLIENT_ERAS)[number];

export const SERVED_ERAS = ['modern-only', 'dual-era', 'legacy-only', 'unknown'] as const;
export type ServedEra = (typeof SERVED_ERAS)[number];

export const PROBE_STEPS = [
  'discover',
  'discover-retry',
  'discover-reauth',
  'initialize',
  'discover-late',
  'audit',
  'catalog',
] as const;
export type ProbeStep = (typeof PROBE_STEPS)[number];

/** What one request/response exchange came to. `result` and `rpc_error` are protocol answers; the rest are not. */
export const OUTCOMES = [
  'result',
  'rpc_error',
  'timeout',
  'refused',
  'reset',
  'closed',
  'empty',
  'invalid_json',
  'not_jsonrpc',
  'wrong_id',
  'body_too_large',
  'redirect_refused',
  'http_5xx',
  'http_4xx',
  'auth_required',
  'unsupported_content_type',
  'egress_refused',
  'dns_failed',
  'tls_error',
  /** The certificate chain is not trusted (unknown CA, self-signed) or not yet valid. */
  'tls_untrusted',
  'tls_expired',
  /** The certificate does not name the host asked for. */
  'tls_name_mismatch',
  'network_error',
  'process_exited',
  'spawn_failed',
] as const;
export type Outcome = (typeof OUTCOMES)[number];

export const LEGACY_CHECKS = [
  'id_match',
  'single_result',
  'protocol_version',
  'capabilities_object',
  'server_info',
] as const;
export type LegacyCheckName = (typeof LEGACY_CHECKS)[number];

export interface LegacyCheck {
  name: LegacyCheckName;
  passed: boolean;
  detail?: string;
}

export interface RpcErrorInfo {
  code: number;
  message: string;
  data?: unknown;
}

export interface EvidenceStep {
  step: ProbeStep;
  method: string;
  protocolVersion: string;
  requestId: string | number;
  httpStatus: number | null;
  contentType: string | null;
  outcome: Outcome;
  rpcError: RpcErrorInfo | null;
  elapsedMs: number;
  /** Human detail: the socket error, the failed check, the anomaly. */
  detail?: string;
  /** The five positive-evidence checks, on `initialize` and `audit` steps that got as far as a response. */
  checks?: LegacyCheck[];
  /** True when the server issued an Mcp-Session-Id (which the probe then ended with DELETE). */
  sessionIssued?: boolean;
  /** The attribution header's value on this response, when configured and present. */
  servedBy?: string;
}

export interface ServerInfo {
  name: string;
  version: string;
}

export interface CacheHint {
  ttlMs: number;
  cacheScope: string;
}

export const CATALOG_STATUSES = ['listed', 'carried', 'failed'] as const;
export type CatalogStatus = (typeof CATALOG_STATUSES)[number];

/**
 * The node's tools/list, reduced to what a fingerprint compares. `listed`: complete this probe; `carried`:
 * kept from an earlier probe (cadence, or this listing failed: `reason`); `failed`: never listed in full.
 */
export interface ToolCatalog {
  status: CatalogStatus;
  /** Tool names, sorted. */
  names: string[];
  /** Per tool (in `names` order), a short digest of its name, description and input schema. */
  toolDigests: string[];
  /** Digest over every tool's name, description and input schema; null when never listed in full. */
  digest: string | null;
  ttlMs: number | null;
  cacheScope: string | null;
  pages: number;
  /** Epoch ms of the listing these names come from. */
  listedAt: number;
  /** What the verdict was when listed (era, version, server): a change triggers a new listing. */
  settledKey: string;
  /** Why the latest listing did not complete, when it did not. */
  reason?: string;
}

/** When the probe lists tools after a settled verdict: always, or only when the settled verdict changed. */
export type CatalogRequest = { list: 'always' } | { list: 'if-changed'; settledKey: string };

export interface Verdict {
  url: string;
  verdict: ClientEra;
  /** Machine code: discover_result, negotiated_after_32022, modern_incompatible, legacy_positive_evidence, ambiguous_not_allowlisted, legacy_check_failed:<check>, timeout, ... */
  reason: string;
  negotiatedVersion: string | null;
  /** Every revision seen served, newest first. */
  supported: string[];
  servedEras: ServedEra;
  serverInfo: ServerInfo | null;
  cache: CacheHint | null;
  initializeSent: boolean;
  /** Set when the server's answers contradict themselves, e.g. a -32022 listing only handshake-era revisions. */
  anomaly: string | null;
  evidence: EvidenceStep[];
  /** Epoch ms when the probe started, and its total duration. */
  probedAt: number;
  durationMs: number;
  /** The IP actually connected to, when known. */
  address: string | null;
  /** Value of the target's attribution response header (e.g. x-served-by), when configured and present. */
  servedBy: string | null;
  /** The tool catalog; absent or null when not listed (catalog off, cadence, or no settled verdict). */
  catalog?: ToolCatalog | null;
  /** Set when the node refused us (401/403) or a credential was involved; absent for an open node. */
  auth?: AuthEvidence;
  /** Over HTTPS: the node's certificate as the probe saw it; absent on plain HTTP and stdio. */
  tls?: TlsEvidence;
}

/** What the probe saw of a node's TLS certificate. */
export interface TlsEvidence {
  /** The certificate's notAfter (epoch ms); null when the handshake never got as far as a certificate. */
  certificateExpiresAt: number | null;
}

/** A certificate expiring within this long is flagged (node page, metric). */
export const CERTIFICATE_EXPIRY_WARNING_MS = 14 * 24 * 3_600_000;

/** Certificate failures: the node is unavailable with this reason, never an era. */
export const CERTIFICATE_OUTCOMES: ReadonlySet<Outcome> = new Set<Outcome>([
  'tls_untrusted',
  'tls_expired',
  'tls_name_mismatch',
]);

/** True when a verdict's certificate expires within `CERTIFICATE_EXPIRY_WARNING_MS` of `now` (or has). */
export function certificateExpiresSoon(v: Pick<Verdict, 'tls'>, now: number): boolean {
  const at = v.tls?.certificateExpiresAt;
  return typeof at === 'number' && at - now <= CERTIFICATE_EXPIRY_WARNING_MS;
}

/** The parsed WWW-Authenticate challenge of a 401/403 (RFC 9110, RFC 6750, RFC 9728 `resource_metadata`). */
export interface AuthChallengeEvidence {
  scheme: string;
  resourceMetadata: string | null;
  scope: string | null;
  error: string | null;
  errorDescription: string | null;
  realm: string | null;
  /** Schemes of the other challenges in the header, if any. */
  otherSchemes: string[];
}

export const METADATA_SOURCES = ['challenge', 'path', 'root'] as const;
export type MetadataSource = (typeof METADATA_SOURCES)[number];

/** One bounded GET of an RFC 9728 protected-resource metadata document. */
export interface MetadataAttempt {
  source: MetadataSource;
  url: string;
  httpStatus: number | null;
  /** `found`, `not_found` (no usable document), `invalid` (not PRM JSON), or the transport outcome. */
  outcome: string;
  detail?: string;
}

/** The protected-resource metadata that was found, and whether it may be trusted. */
export interface ProtectedResourceEvidence {
  url: string;
  source: MetadataSource;
  resource: string | null;
  /** `resource` equals the URL probed (fragment and one trailing slash ignored). */
  resourceMatches: boolean;
  /** False when `resource` mismatches: its authorization servers are then not used. */
  trusted: boolean;
  authorizationServers: string[];
  scopesSupported: string[];
}

export const CREDENTIAL_KINDS = ['none', 'header', 'oauth'] as const;
export type CredentialKind = (typeof CREDENTIAL_KINDS)[number];

export const SCOPE_SOURCES = ['configured', 'challenge', 'metadata', 'none'] as const;
export type ScopeSource = (typeof SCOPE_SOURCES)[number];

export interface TokenEvidence {
  /** The token endpoint used (or tried), when known. */
  tokenEndpoint: string | null;
  /** Where the endpoint came from: configured (`tokenUrl`), or the credential's issuer's RFC 8414 metadata. */
  endpointSource: 'configured' | 'discovered' | null;
  /** The issuer the credential is bound to, when it names one. */
  issuer?: string | null;
  /** The scope asked for (null: no scope parameter) and where it came from (the MCP authorization rule). */
  scope?: string | null;
  scopeSource?: ScopeSource | null;
  /** A cached token was rejected with a 401 and a new one obtained (once). */
  refreshed: boolean;
  /** The authorization server's `error` (or our own code) when no token could be had. */
  error: string | null;
  detail?: string;
}

export interface AuthEvidence {
  /** What the probe presented: nothing, a static credential header, or an OAuth access token. */
  credential: CredentialKind;
  /** The refusal's status (401/403), null when the node let us in. */
  httpStatus: number | null;
  challenge: AuthChallengeEvidence | null;
  /** "no challenge" when a refusal carried no usable WWW-Authenticate header. */
  detail?: string;
  metadataAttempts: MetadataAttempt[];
  metadata: ProtectedResourceEvidence | null;
  token: TokenEvidence | null;
}

/** OAuth 2.1 client credentials for a target, the secret already resolved. */
export interface OAuthClientCredentials {
  clientId: string;
  clientSecret: string;
  /**
   * The authorization server the credential belongs to: its RFC 8414 metadata names the token endpoint
   * (its `issuer` must be this, exactly), and a protected resource must list it. Needed without tokenUrl.
   */
  issuer?: string;
  tokenUrl?: string;
  /** Default: the challenge's scope, else the metadata's scopes_supported, else no scope parameter. */
  scope?: string;
  /** RFC 8707 resource indicator; defaults to the public URL. */
  resource?: string;
}

/** How a verdict is shown beside its era: an auth-gated node is unavailable, but not down. */
export const AVAILABILITIES = ['available', 'auth-gated', 'unavailable'] as const;
export type Availability = (typeof AVAILABILITIES)[number];

export function availabilityOf(v: Pick<Verdict, 'verdict' | 'reason'>): Availability {
  if (v.verdict !== 'unavailable') return 'available';
  return isAuthGatedReason(v.reason) ? 'auth-gated' : 'unavailable';
}

/** Reasons that mean "refused at the door", not "down": the node's era could not be asked. */
export function isAuthGatedReason(reason: string): boolean {
  return reason === 'auth_required' || reason === 'auth_failed' || reason.startsWith('oauth_token_failed');
}

export interface ProbeTarget {
  url: string;
  /** Connect to this IP instead of resolving the URL's host; Host header and TLS SNI stay the URL's. */
  connectAddress?: string;
  /** Static request headers (auth), values already resolved. */
  headers?: Record<string, string>;
  allowLegacy?: boolean;
  auditLegacy?: boolean;
  /** Response header whose value names the node that answered (for samples through a balancer). */
  attributionHeader?: string;
  /** List the tool catalog after a settled verdict; omitted: never. */
  catalog?: CatalogRequest;
  /** The balancer's public URL: the default OAuth resource, and a `resource` that metadata may name. */
  publicUrl?: string;
  /** OAuth client credentials: a bearer token is obtained (and cached) before discover. */
  oauth?: OAuthClientCredentials;
  /**
   * CA certificates (PEM, already read) the node's certificate is verified with instead of the system
   * roots. The caller picks a dispatcher built with them (the poller keeps one per bundle).
   */
  tlsCa?: string;
}

/** A probe's whole deadline: two discover attempts (the -32022 retry) and one legacy initialize. */
export function probeDeadlineMs(t: { timeoutMs: number; legacyProbeTimeoutMs: number }): number {
  return 2 * t.timeoutMs + t.legacyProbeTimeoutMs;
}

export interface ProbeOptions {
  /** Modern revisions we speak, newest first. */
  modernVersions: string[];
  /** Handshake-era revisions we accept as positive legacy evidence, newest first. */
  legacyVersions: string[];
  timeoutMs: number;
  legacyProbeTimeoutMs: number;
  maxBodyBytes: number;
  clientInfo: ServerInfo;
  /** tools/list pages followed at most, and bytes read at most across them. */
  catalogMaxPages?: number;
  catalogMaxBytes?: number;
}

export const DEFAULT_MODERN_VERSIONS = ['2026-07-28'] as const;
export const DEFAULT_LEGACY_VERSIONS = ['2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05'] as const;

export const DEFAULT_PROBE_OPTIONS: ProbeOptions = {
  modernVersions: [...DEFAULT_MODERN_VERSIONS],
  legacyVersions: [...DEFAULT_LEGACY_VERSIONS],
  timeoutMs: 5_000,
  legacyProbeTimeoutMs: 3_000,
  maxBodyBytes: 1024 * 1024,
  clientInfo: { name: 'erawatch', version: '0.1.0' },
  catalogMaxPages: 20,
  catalogMaxBytes: 1024 * 1024,
};

/** A verdict that concluded nothing yet: unavailable, no evidence. Probes start from it; so do skipped nodes. */
export function unavailableVerdict(
  url: string,
  reason: string,
  at: number,
  address: string | null = null,
): Verdict {
  return {
    url,
    verdict: 'unavailable',
    reason,
    negotiatedVersion: null,
    supported: [],
    servedEras: 'unknown',
    serverInfo: null,
    cache: null,
    initializeSent: false,
    anomaly: null,
    evidence: [],
    probedAt: at,
    durationMs: 0,
    address,
    servedBy: null,
  };
}
