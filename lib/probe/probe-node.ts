// probeNode: DESIGN.md "The probe" for one node. Discover first; a recognised modern error settles the era
// and forbids every initialize in the probe; anything else is ambiguous and fails closed unless the target
// is allowlisted for one bounded legacy probe. Never throws because of anything a server did.
import { isIP } from 'node:net';
import type { Dispatcher } from 'undici';
import {
  checkAddressCached,
  checkUrl,
  resolveAllowed,
  type EgressPolicy,
  type LookupFn,
} from '@/lib/net/egress';
import { sharedProbeAgent } from './agent';
import {
  checkLegacyInitialize,
  classifyDiscover,
  deriveServedEras,
  HEADER_MISMATCH,
  isHandshakeEra,
  keptRevisions,
  MAX_SERVED_REVISIONS,
  isModernError,
  isPlainObject,
  MISSING_CLIENT_CAPABILITY,
  newestMutual,
  rpcErrorOf,
  type DiscoverClass,
  type DiscoverFacts,
} from './classify';
import { listCatalog, settledKeyOf } from './catalog';
import { HttpTransport, outcomeOfError } from './http-transport';
import type { OAuthTokenCache } from './oauth';
import { ProbeAuth } from './probe-auth';
import { redactInPlace, secretForms } from './redact';
import type { Exchange, JsonRpcRequest, ProbeTransport, SendOptions } from './transport';
import { CERTIFICATE_OUTCOMES, unavailableVerdict } from './types';
import type {
  EvidenceStep,
  Outcome,
  ProbeOptions,
  ProbeStep,
  ProbeTarget,
  ToolCatalog,
  Verdict,
} from './types';

export interface ProbeDeps {
  /** The shared keep-alive Agent (createProbeAgent); never one per probe. */
  dispatcher?: Dispatcher;
  /** Defaults to no loopback, private ranges allowed; the CLI allows loopback, the server reads the env. */
  egress?: EgressPolicy;
  now?: () => number;
  lookup?: LookupFn;
  /** A ready transport (e.g. stdio, later); when set, URL resolution and the egress check are the caller's. */
  transport?: ProbeTransport;
  /** OAuth tokens by credential; defaults to the process-wide cache. */
  tokens?: OAuthTokenCache;
  /**
   * The dispatcher for URLs a server names off the target's host (resource metadata, token endpoints from
   * metadata): the same egress without the loopback exemption. Default: the shared one for that policy.
   */
  strictDispatcher?: Dispatcher;
  /**
   * With `transport`: launches a fresh process of the same command, for the legacy audit when the modern
   * catalog is also listed. A stdio process is pinned to the era of its first exchange: the audit's
   * initialize would make it answer the catalog's tools/list as a legacy request, and the catalog's modern
   * tools/list would make it refuse the audit. With this, the catalog is listed on the probed (modern)
   * process and the audit runs on its own; without it, the audit comes first on the same process.
   */
  freshTransport?: () => { transport: ProbeTransport; close: () => Promise<unknown> };
}

export const DEFAULT_EGRESS: EgressPolicy = { allowLoopback: false, allowPrivate: true };

const PROTOCOL_VERSION_META = 'io.modelcontextprotocol/protocolVersion';
const CLIENT_INFO_META = 'io.modelcontextprotocol/clientInfo';
const CLIENT_CAPABILITIES_META = 'io.modelcontextprotocol/clientCapabilities';

let requestCounter = 0;
/** Unique per request in this process, so a retry can never be mistaken for the answer to its predecessor. */
function nextRequestId(): string {
  requestCounter += 1;
  return `erawatch-${requestCounter}`;
}

/** Broken-server outcomes keep their own name as the reason; protocol answers that are not modern do not. */
const ANSWER_OUTCOMES: ReadonlySet<Outcome> = new Set<Outcome>(['result', 'rpc_error', 'http_4xx']);

function ambiguousReason(outcome: Outcome): string {
  return ANSWER_OUTCOMES.has(outcome) ? 'ambiguous_not_allowlisted' : outcome;
}

const validOptions = new WeakSet<ProbeOptions>();

export function validateProbeOptions(options: ProbeOptions): void {
  // The poller passes the same options object to every probe; check it once.
  if (validOptions.has(options)) return;
  const problems: string[] = [];
  if (options.modernVersions.length === 0) problems.push('modernVersions is empty');
  if (options.legacyVersions.length === 0) problems.push('legacyVersions is empty');
  for (const [name, value] of [
    ['timeoutMs', options.timeoutMs],
    ['legacyProbeTimeoutMs', options.legacyProbeTimeoutMs],
    ['maxBodyBytes', options.maxBodyBytes],
  ] as const) {
    if (!Number.isInteger(value) || value <= 0) problems.push(`${name} must be a positive integer`);
  }
  if (problems.length > 0) throw new RangeError(`invalid probe options: ${problems.join('; ')}`);
  validOptions.add(options);
}

interface ProbeState {
  verdict: Verdict;
  served: Set<string>;
  /** A recognised modern error was seen: no initialize may follow, whatever the target says. */
  modernErrorSeen: boolean;
  discovered: boolean;
  now: () => number;
}

/**
 * Probes one node. Resolves to a verdict for anything a server does (silence, garbage, resets included);
 * throws only a RangeError for invalid options, which is the caller's bug.
 */
export async function probeNode(
  target: ProbeTarget,
  options: ProbeOptions,
  deps: ProbeDeps = {},
): Promise<Verdict> {
  validateProbeOptions(options);
  const now = deps.now ?? Date.now;
  const started = now();
  const state: ProbeState = {
    verdict: unavailableVerdict(target.url, 'not_probed', started),
    served: new Set(),
    modernErrorSeen: false,
    discovered: false,
    now,
  };
  const v = state.verdict;
  try {
    if (deps.transport) {
      await runProbe(deps.transport, target, options, state, null, deps.freshTransport);
    } else {
      const open = await openHttpTransport(target, options, deps, state, now);
      if (open) await probeHttp(open, target, options, deps, state, now, started);
    }
  } catch (err) {
    // Only a defect of ours lands here; the verdict still fails closed.
    v.verdict = 'unavailable';
    v.reason = 'internal_error';
    v.anomaly = err instanceof Error ? err.message : String(err);
  }
  keepServed(v, state.served);
  v.durationMs = Math.max(0, now() - started);
  // Whatever a server echoed of the secret goes no further than this probe.
  if (target.oauth) redactInPlace(v, secretForms(target.oauth));
  return v;
}

/**
 * Only revision-shaped strings count as served, and at most MAX_SERVED_REVISIONS of them (the newest): a node
 * listing thousands, or junk such as `javascript:alert(1)`, would otherwise be stored, served and rendered
 * every cycle, and junk would count as a modern revision. The anomaly says how many were dropped.
 */
function keepServed(v: Verdict, served: Set<string>): void {
  const { kept, junk, overCap } = keptRevisions(served);
  v.supported = kept;
  v.servedEras = deriveServedEras(kept);
  if (junk === 0 && overCap === 0) return;
  const why = [
    junk > 0 ? `${junk} not shaped like a revision (YYYY-MM-DD)` : '',
    overCap > 0 ? `${overCap} older beyond the first ${MAX_SERVED_REVISIONS}` : '',
  ].filter(Boolean);
  const note = `served revisions: kept ${kept.length} of ${served.size} listed, dropped ${junk + overCap} (${why.join(', ')})`;
  v.anomaly = v.anomaly ? `${v.anomaly}; ${note}` : note;
}

/** Applies the egress guard and pins the address; on refusal records the step and returns null. */
/** DNS gets the same deadline as a request: a resolver that never answers must not hold the probe. */
function withDeadline<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(
      () => reject(Object.assign(new Error(`DNS lookup took longer than ${ms} ms`), { code: 'ETIMEDOUT' })),
      ms,
    );
  });
  return Promise.race([promise, deadline]).finally(() => clearTimeout(timer));
}

/** Records a probe that never sent anything (URL, egress or DNS refusal) as its discover step. */
function refuseProbe(state: ProbeState, options: ProbeOptions, outcome: Outcome, detail: string): null {
  state.verdict.reason = outcome;
  state.verdict.evidence.push({
    step: 'discover',
    method: 'server/discover',
    protocolVersion: options.modernVersions[0] ?? '',
    requestId: nextRequestId(),
    httpStatus: null,
    contentType: null,
    outcome,
    rpcError: null,
    elapsedMs: 0,
    detail,
  });
  return null;
}

type ParsedTarget = { url: URL; ipHost: string | null } | { problem: string };
const parsedUrls = new Map<string, ParsedTarget>();
// Above the number of nodes one poller probes (60,000 at the benchmark's scale): a smaller cache is emptied
// and refilled every cycle, parsing every URL twice per probe.
const PARSED_URL_LIMIT = 65_536;

/** URL parsing and the scheme check, remembered per URL string: the poller probes the same URLs all day. */
function parseTargetUrl(raw: string): ParsedTarget {
  const hit = parsedUrls.get(raw);
  if (hit) return hit;
  const problem = checkUrl(raw);
  let parsed: ParsedTarget;
  if (problem) {
    parsed = { problem };
  } else {
    const url = new URL(raw);
    const bare = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
    parsed = { url, ipHost: isIP(bare) ? bare : null };
  }
  if (parsedUrls.size >= PARSED_URL_LIMIT) parsedUrls.clear();
  parsedUrls.set(raw, parsed);
  return parsed;
}

/** Where one HTTP probe goes (after the egress check); `openTransport` builds a transport with its headers. */
interface OpenHttp {
  dispatcher: Dispatcher;
  url: URL;
  address: string;
  attributionHeader: string | undefined;
  now: () => number;
  policy: EgressPolicy;
}

// A plain function over a data record rather than a closure per probe: under the source runner every
// closure created on the hot path also pays for a defineProperty naming it.
function openTransport(http: OpenHttp, headers: Record<string, string>): ProbeTransport {
  return new HttpTransport({
    url: http.url,
    dispatcher: http.dispatcher,
    address: http.address,
    headers,
    attributionHeader: http.attributionHeader,
    now: http.now,
  });
}

async function openHttpTransport(
  target: ProbeTarget,
  options: ProbeOptions,
  deps: ProbeDeps,
  state: ProbeState,
  now: () => number,
): Promise<OpenHttp | null> {
  const policy = deps.egress ?? DEFAULT_EGRESS;
  const parsed = parseTargetUrl(target.url);
  if ('problem' in parsed) return refuseProbe(state, options, 'egress_refused', parsed.problem);
  const { url, ipHost } = parsed;
  let address: string;
  const literal = target.connectAddress ?? ipHost;
  if (literal !== null) {
    const refusal = checkAddressCached(literal, policy);
    if (refusal) return refuseProbe(state, options, 'egress_refused', refusal);
    address = literal;
  } else {
    try {
      address = await withDeadline(resolveAllowed(url.hostname, policy, deps.lookup), options.timeoutMs);
    } catch (err) {
      const mapped = outcomeOfError(err);
      return refuseProbe(
        state,
        options,
        mapped.outcome === 'network_error' ? 'dns_failed' : mapped.outcome,
        mapped.detail,
      );
    }
  }
  state.verdict.address = address;
  const dispatcher = deps.dispatcher ?? sharedProbeAgent(policy);
  return { dispatcher, url, address, attributionHeader: target.attributionHeader, now, policy };
}

/** An HTTP probe: the credential first (OAuth token), then the era probe with the auth hooks. */
async function probeHttp(
  http: OpenHttp,
  target: ProbeTarget,
  options: ProbeOptions,
  deps: ProbeDeps,
  state: ProbeState,
  now: () => number,
  started: number,
): Promise<void> {
  const auth = new ProbeAuth(
    target,
    options,
    {
      dispatcher: http.dispatcher,
      strictDispatcher: () => strictDispatcherOf(http, deps),
      now,
      tokens: deps.tokens,
    },
    started,
  );
  const prepared = await auth.prepare();
  if (!prepared.ok) {
    state.verdict.reason = prepared.reason;
  } else {
    await runProbe(openTransport(http, prepared.headers), target, options, state, { auth, http });
  }
  if (auth.evidence) state.verdict.auth = auth.evidence;
}

/** Only probes that fetch on the side ever build it; without the loopback exemption it is the same one. */
function strictDispatcherOf(http: OpenHttp, deps: ProbeDeps): Dispatcher {
  if (deps.strictDispatcher) return deps.strictDispatcher;
  if (!http.policy.allowLoopback) return http.dispatcher;
  return sharedProbeAgent({ ...http.policy, allowLoopback: false });
}

interface AuthHooks {
  auth: ProbeAuth;
  http: OpenHttp;
}

function discoverRequest(version: string, options: ProbeOptions): JsonRpcRequest {
  return {
    jsonrpc: '2.0',
    id: nextRequestId(),
    method: 'server/discover',
    params: {
      _meta: {
        [PROTOCOL_VERSION_META]: version,
        [CLIENT_INFO_META]: options.clientInfo,
        [CLIENT_CAPABILITIES_META]: {},
      },
    },
  };
}

function initializeRequest(version: string, options: ProbeOptions): JsonRpcRequest {
  return {
    jsonrpc: '2.0',
    id: nextRequestId(),
    method: 'initialize',
    params: { protocolVersion: version, capabilities: {}, clientInfo: options.clientInfo },
  };
}

function recordStep(
  state: ProbeState,
  step: ProbeStep,
  request: JsonRpcRequest,
  version: string,
  ex: Exchange,
): EvidenceStep {
  const evidence: EvidenceStep = {
    step,
    method: request.method,
    protocolVersion: version,
    requestId: request.id,
    httpStatus: ex.httpStatus,
    contentType: ex.contentType,
    outcome: ex.outcome,
    rpcError: ex.outcome === 'rpc_error' ? rpcErrorOf(ex.message) : null,
    elapsedMs: ex.elapsedMs,
  };
  if (ex.detail) evidence.detail = ex.detail;
  if (ex.servedBy) evidence.servedBy = ex.servedBy;
  state.verdict.evidence.push(evidence);
  if (ex.certificateExpiresAt !== undefined && ex.certificateExpiresAt !== null && !state.verdict.tls) {
    state.verdict.tls = { certificateExpiresAt: ex.certificateExpiresAt };
  }
  return evidence;
}

function appendDetail(step: EvidenceStep, text: string): void {
  step.detail = step.detail ? `${step.detail}; ${text}` : text;
}

async function runProbe(
  initial: ProbeTransport,
  target: ProbeTarget,
  options: ProbeOptions,
  state: ProbeState,
  hooks: AuthHooks | null,
  freshTransport?: ProbeDeps['freshTransport'],
): Promise<void> {
  let transport = initial;
  const v = state.verdict;
  const asked = options.modernVersions[0] ?? '';
  const send: SendOptions = {
    timeoutMs: options.timeoutMs,
    maxBodyBytes: options.maxBodyBytes,
    methodHeader: true,
  };
  const request = discoverRequest(asked, options);
  let ex = await transport.request(request, { ...send, protocolVersionHeader: asked });
  let step = recordStep(state, 'discover', request, asked, ex);
  v.servedBy = ex.servedBy;
  if (ex.address) v.address = ex.address;

  if (ex.outcome === 'auth_required' && hooks) {
    const headers = await hooks.auth.refresh(ex.httpStatus, ex.challenge);
    if (headers) {
      transport = openTransport(hooks.http, headers);
      const again = discoverRequest(asked, options);
      ex = await transport.request(again, { ...send, protocolVersionHeader: asked });
      step = recordStep(state, 'discover-reauth', again, asked, ex);
      v.servedBy = ex.servedBy;
    }
  }
  if (ex.outcome === 'auth_required') {
    // Auth status is never era evidence: no initialize follows a refusal, allowlisted or not.
    v.verdict = 'unavailable';
    v.reason = hooks ? await hooks.auth.refused(ex) : 'auth_required';
    if (!ex.challenge) appendDetail(step, 'no challenge');
    return;
  }
  if (CERTIFICATE_OUTCOMES.has(ex.outcome)) {
    // A certificate that fails verification says nothing about the era, and nothing more is sent to it.
    v.verdict = 'unavailable';
    v.reason = ex.outcome;
    return;
  }

  const first = classifyDiscover(ex.outcome, ex.message);
  if (first.kind !== 'ambiguous') {
    await settleModernAnswer(transport, options, state, asked, first, send);
  } else if (target.allowLegacy) {
    // On stdio a discover that timed out stays open: its late answer may still settle the era.
    await probeLegacy(
      transport,
      target,
      options,
      state,
      ex.outcome === 'timeout' ? { request, asked, send } : null,
    );
  } else {
    v.verdict = 'unavailable';
    v.reason = ambiguousReason(ex.outcome);
  }

  // The audit follows only a settled modern (DiscoverResult) or legacy verdict: never an ambiguous answer,
  // a modern error, or a modern_incompatible node.
  const settled = (state.discovered && v.verdict === 'modern') || v.verdict === 'legacy';
  // The audit comes before the modern catalog: a stdio process that has served a modern tools/list is
  // pinned to the modern era and refuses an initialize (-32022), which would read a dual-era server as
  // modern-only, and only on the cycles that list the catalog.
  const audit = target.auditLegacy && !state.modernErrorSeen && settled;
  const modernCatalog =
    state.discovered && v.verdict === 'modern' && v.negotiatedVersion && wantsCatalog(target, v);
  if (audit && modernCatalog && v.negotiatedVersion && freshTransport) {
    // The catalog on this process, whose era is modern; the audit on a process of its own.
    await listModernCatalog(transport, options, state, v.negotiatedVersion);
    const fresh = freshTransport();
    const first = v.evidence.length;
    try {
      await auditLegacy(fresh.transport, options, state);
      for (const step of v.evidence.slice(first)) appendDetail(step, 'on a fresh process');
    } finally {
      await fresh.close();
    }
    return;
  }
  if (audit) await auditLegacy(transport, options, state);
  if (modernCatalog && v.negotiatedVersion) {
    await listModernCatalog(transport, options, state, v.negotiatedVersion);
  }
}

/** A DiscoverResult or a recognised modern error to our discover: the era is modern, never legacy. */
async function settleModernAnswer(
  transport: ProbeTransport,
  options: ProbeOptions,
  state: ProbeState,
  asked: string,
  answer: Exclude<DiscoverClass, { kind: 'ambiguous' }>,
  send: SendOptions,
): Promise<void> {
  if (answer.kind === 'discover') {
    settleDiscover(state, answer.facts, options, 'discover_result');
    return;
  }
  state.modernErrorSeen = true;
  if (answer.code === HEADER_MISMATCH) {
    settleModern(state, null, 'modern_error_header_mismatch');
  } else if (answer.code === MISSING_CLIENT_CAPABILITY) {
    state.served.add(asked);
    settleModern(state, asked, 'modern_error_missing_capability');
  } else {
    await negotiateAfterUnsupported(transport, options, state, asked, answer.supported, send);
  }
}

function wantsCatalog(target: ProbeTarget, v: Verdict): boolean {
  const request = target.catalog;
  if (!request) return false;
  return request.list === 'always' || request.settledKey !== settledKeyOf(v);
}

function catalogLimits(options: ProbeOptions) {
  return {
    maxPages: options.catalogMaxPages ?? 20,
    maxBytes: options.catalogMaxBytes ?? options.maxBodyBytes,
    timeoutMs: options.timeoutMs,
  };
}

function recordCatalog(state: ProbeState, catalog: ToolCatalog): void {
  state.verdict.catalog = catalog;
  const last = state.verdict.evidence.at(-1);
  if (last?.step !== 'catalog') return;
  appendDetail(
    last,
    catalog.status === 'listed'
      ? `catalog: ${catalog.names.length} tools over ${catalog.pages} page(s)`
      : `catalog not listed: ${catalog.reason ?? 'unknown'}`,
  );
}

/** tools/list with the full `_meta` at the negotiated revision, as every modern request carries. */
async function listModernCatalog(
  transport: ProbeTransport,
  options: ProbeOptions,
  state: ProbeState,
  version: string,
): Promise<void> {
  const makeRequest = (cursor: string | null): JsonRpcRequest => ({
    jsonrpc: '2.0',
    id: nextRequestId(),
    method: 'tools/list',
    params: { ...discoverRequest(version, options).params, ...(cursor === null ? {} : { cursor }) },
  });
  const catalog = await listCatalog(
    makeRequest,
    async (request, send) => {
      const ex = await transport.request(request, {
        ...send,
        protocolVersionHeader: version,
        methodHeader: true,
      });
      recordStep(state, 'catalog', request, version, ex);
      return ex;
    },
    catalogLimits(options),
    settledKeyOf(state.verdict),
    state.now,
  );
  recordCatalog(state, catalog);
}

/** tools/list inside the initialized legacy session (plain params, the session id echoed). */
async function listLegacyCatalog(
  transport: ProbeTransport,
  options: ProbeOptions,
  state: ProbeState,
  version: string,
  sessionId: string | undefined,
): Promise<void> {
  const makeRequest = (cursor: string | null): JsonRpcRequest => ({
    jsonrpc: '2.0',
    id: nextRequestId(),
    method: 'tools/list',
    params: cursor === null ? {} : { cursor },
  });
  const limits = { ...catalogLimits(options), timeoutMs: options.legacyProbeTimeoutMs };
  const catalog = await listCatalog(
    makeRequest,
    async (request, send) => {
      const ex = await transport.request(request, { ...send, protocolVersionHeader: version, sessionId });
      recordStep(state, 'catalog', request, version, ex);
      return ex;
    },
    limits,
    settledKeyOf(state.verdict),
    state.now,
  );
  recordCatalog(state, catalog);
}

function settleModern(state: ProbeState, version: string | null, reason: string): void {
  state.verdict.verdict = 'modern';
  state.verdict.negotiatedVersion = version;
  state.verdict.reason = reason;
}

function settleDiscover(
  state: ProbeState,
  facts: DiscoverFacts,
  options: ProbeOptions,
  reason: string,
): void {
  const v = state.verdict;
  state.discovered = true;
  for (const revision of facts.supportedVersions) state.served.add(revision);
  v.serverInfo = facts.serverInfo;
  v.cache = facts.cache;
  const mutual = newestMutual(facts.supportedVersions, options.modernVersions);
  if (mutual) {
    settleModern(state, mutual, reason);
  } else {
    v.verdict = 'unavailable';
    v.reason = 'modern_incompatible';
  }
}

/** -32022: pick the newest mutual revision from data.supported and retry once with a new id. */
async function negotiateAfterUnsupported(
  transport: ProbeTransport,
  options: ProbeOptions,
  state: ProbeState,
  asked: string,
  supported: string[] | null,
  send: SendOptions,
): Promise<void> {
  const v = state.verdict;
  v.verdict = 'unavailable';
  v.reason = 'modern_incompatible';
  if (supported === null) {
    v.anomaly = '-32022 without a data.supported list';
    return;
  }
  for (const revision of supported) state.served.add(revision);
  const mutual = newestMutual(
    supported.filter((r) => r !== asked),
    options.modernVersions,
  );
  if (!mutual) {
    if (supported.length > 0 && supported.every(isHandshakeEra)) {
      const shown = supported.slice(0, 8);
      v.anomaly = `-32022 lists only handshake-era revisions: ${shown.join(', ')}${supported.length > 8 ? `, … (${supported.length})` : ''}`;
    }
    return;
  }
  const retry = discoverRequest(mutual, options);
  const ex = await transport.request(retry, { ...send, protocolVersionHeader: mutual });
  recordStep(state, 'discover-retry', retry, mutual, ex);
  const second = classifyDiscover(ex.outcome, ex.message);
  if (second.kind === 'discover') {
    settleDiscover(state, second.facts, options, 'negotiated_after_32022');
  } else if (second.kind === 'modern_error') {
    for (const revision of second.supported ?? []) state.served.add(revision);
    if (second.code === MISSING_CLIENT_CAPABILITY) {
      state.served.add(mutual);
      settleModern(state, mutual, 'modern_error_missing_capability');
    } else if (second.code === HEADER_MISMATCH) {
      settleModern(state, null, 'modern_error_header_mismatch');
    }
  } else {
    v.reason =
      ambiguousReason(ex.outcome) === 'ambiguous_not_allowlisted' ? 'modern_retry_failed' : ex.outcome;
  }
}

/** A modern error's data.supported names revisions the server serves. */
function addSupportedFromError(state: ProbeState, message: Record<string, unknown> | null): void {
  const error = isPlainObject(message?.error) ? message.error : null;
  const data = error?.data;
  const supported = isPlainObject(data) ? data.supported : undefined;
  if (!Array.isArray(supported)) return;
  for (const revision of supported) if (typeof revision === 'string') state.served.add(revision);
}

const NEVER_DELIVERED: ReadonlySet<Outcome> = new Set<Outcome>([
  'refused',
  'spawn_failed',
  'egress_refused',
  'dns_failed',
]);

interface InitializeAttempt {
  step: EvidenceStep;
  ex: Exchange;
  passed: boolean;
  protocolVersion: string | null;
}

/** One initialize under legacyProbeTimeoutMs, with the five checks run on whatever response came back. */
async function sendInitialize(
  transport: ProbeTransport,
  options: ProbeOptions,
  state: ProbeState,
  step: 'initialize' | 'audit',
  version: string,
): Promise<InitializeAttempt> {
  const request = initializeRequest(version, options);
  const send: SendOptions = { timeoutMs: options.legacyProbeTimeoutMs, maxBodyBytes: options.maxBodyBytes };
  const ex = await transport.request(request, send);
  // The transport says whether the bytes reached the peer; one that cannot tell is judged by the outcome.
  if (ex.delivered ?? !NEVER_DELIVERED.has(ex.outcome)) state.verdict.initializeSent = true;
  const evidence = recordStep(state, step, request, version, ex);
  if (ex.sessionId) evidence.sessionIssued = true;
  let passed = false;
  let protocolVersion: string | null = null;
  if (isModernError(ex.outcome, ex.message)) {
    state.modernErrorSeen = true;
  } else if (
    ex.message &&
    (ex.outcome === 'result' || ex.outcome === 'rpc_error' || ex.outcome === 'wrong_id')
  ) {
    const checked = checkLegacyInitialize(ex.message, request.id, options.legacyVersions);
    evidence.checks = checked.checks;
    passed = checked.failed === null;
    protocolVersion = checked.protocolVersion;
    if (passed && step === 'initialize') {
      state.verdict.serverInfo = checked.serverInfo;
    }
  }
  return { step: evidence, ex, passed, protocolVersion };
}

async function endSession(
  transport: ProbeTransport,
  options: ProbeOptions,
  attempt: InitializeAttempt,
  version: string,
): Promise<void> {
  const sessionId = attempt.ex.sessionId;
  if (!sessionId) return;
  const ended = await transport.endSession(sessionId, {
    timeoutMs: options.legacyProbeTimeoutMs,
    maxBodyBytes: options.maxBodyBytes,
    protocolVersionHeader: version,
  });
  appendDetail(attempt.step, `session DELETE: ${ended.httpStatus ?? ended.outcome}`);
}

/** A discover that timed out on a transport that keeps it open (stdio). */
interface OpenDiscover {
  request: JsonRpcRequest;
  asked: string;
  send: SendOptions;
}

async function probeLegacy(
  transport: ProbeTransport,
  target: ProbeTarget,
  options: ProbeOptions,
  state: ProbeState,
  openDiscover: OpenDiscover | null,
): Promise<void> {
  const v = state.verdict;
  const version = options.legacyVersions[0] ?? '';
  const attempt = await sendInitialize(transport, options, state, 'initialize', version);
  if (openDiscover && (await settleLateDiscover(transport, options, state, openDiscover, attempt))) return;
  const { ex } = attempt;
  v.verdict = 'unavailable';
  if (state.modernErrorSeen) {
    // A modern server refused the handshake: its era is modern, but nothing was negotiated.
    addSupportedFromError(state, ex.message);
    v.reason = 'modern_error_on_initialize';
  } else if (attempt.step.checks) {
    const failed = attempt.step.checks.find((c) => !c.passed);
    if (failed || !attempt.protocolVersion) {
      v.reason = `legacy_check_failed:${failed?.name ?? 'protocol_version'}`;
      v.serverInfo = null;
    } else {
      v.verdict = 'legacy';
      v.reason = 'legacy_positive_evidence';
      v.negotiatedVersion = attempt.protocolVersion;
      state.served.add(attempt.protocolVersion);
      const note = await transport.notify(
        { jsonrpc: '2.0', method: 'notifications/initialized' },
        {
          timeoutMs: options.legacyProbeTimeoutMs,
          maxBodyBytes: options.maxBodyBytes,
          protocolVersionHeader: attempt.protocolVersion,
          sessionId: ex.sessionId ?? undefined,
        },
      );
      appendDetail(attempt.step, `notifications/initialized: ${note.httpStatus ?? note.outcome}`);
      if (wantsCatalog(target, v)) {
        await listLegacyCatalog(
          transport,
          options,
          state,
          attempt.protocolVersion,
          ex.sessionId ?? undefined,
        );
      }
    }
  } else {
    v.reason = ex.outcome;
  }
  await endSession(transport, options, attempt, attempt.protocolVersion ?? version);
}

/**
 * The slow server is never downgraded: before a legacy verdict is final, the open discover gets until the
 * end of the initialize's own deadline to answer. A DiscoverResult or a modern error then settles the era
 * as modern; the legacy result is discarded and notifications/initialized is never sent.
 */
async function settleLateDiscover(
  transport: ProbeTransport,
  options: ProbeOptions,
  state: ProbeState,
  open: OpenDiscover,
  attempt: InitializeAttempt,
): Promise<boolean> {
  if (!transport.lateAnswer) return false;
  const wouldBeLegacy = attempt.passed && attempt.protocolVersion !== null && !state.modernErrorSeen;
  const waitMs = wouldBeLegacy ? Math.max(0, options.legacyProbeTimeoutMs - attempt.ex.elapsedMs) : 0;
  const late = await transport.lateAnswer(open.request.id, waitMs);
  if (!late) return false;
  recordStep(state, 'discover-late', open.request, open.asked, late);
  const answer = classifyDiscover(late.outcome, late.message);
  if (answer.kind === 'ambiguous') return false;
  appendDetail(attempt.step, 'result discarded: the discover answered late and settled the era');
  state.verdict.serverInfo = null;
  await settleModernAnswer(transport, options, state, open.asked, answer, open.send);
  return true;
}

const AUDIT_CONTINUES: ReadonlySet<Outcome> = new Set<Outcome>([
  'result',
  'rpc_error',
  'wrong_id',
  'http_4xx',
]);

/** One initialize per configured legacy revision; a revision is served only when the server echoes it. */
async function auditLegacy(
  transport: ProbeTransport,
  options: ProbeOptions,
  state: ProbeState,
): Promise<void> {
  const alreadyAsked = state.verdict.verdict === 'legacy' ? options.legacyVersions[0] : undefined;
  for (const version of options.legacyVersions) {
    if (version === alreadyAsked) continue;
    const attempt = await sendInitialize(transport, options, state, 'audit', version);
    if (attempt.passed && attempt.protocolVersion === version) state.served.add(version);
    else if (attempt.passed) appendDetail(attempt.step, `counter-offered ${attempt.protocolVersion ?? ''}`);
    await endSession(transport, options, attempt, attempt.protocolVersion ?? version);
    if (state.modernErrorSeen) {
      addSupportedFromError(state, attempt.ex.message);
      break;
    }
    // A node that stops answering would otherwise cost one full legacy deadline per remaining revision.
    if (!AUDIT_CONTINUES.has(attempt.ex.outcome)) {
      appendDetail(attempt.step, 'audit stopped: no protocol answer');
      break;
    }
  }
}
