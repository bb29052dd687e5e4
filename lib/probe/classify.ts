// Pure era reasoning: what an exchange came to, which outcome class a discover answer falls in, whether an
// initialize result is positive legacy evidence, and the served-set class. No I/O, no clock.
import type { CacheHint, LegacyCheck, Outcome, RpcErrorInfo, ServedEra, ServerInfo } from './types';

/** The first modern revision: every dated revision before it opens with `initialize`. */
export const MODERN_ERA_START = '2026-07-28';

export const HEADER_MISMATCH = -32020;
export const MISSING_CLIENT_CAPABILITY = -32021;
export const UNSUPPORTED_PROTOCOL_VERSION = -32022;
const MODERN_ERROR_CODES = new Set([
  HEADER_MISMATCH,
  MISSING_CLIENT_CAPABILITY,
  UNSUPPORTED_PROTOCOL_VERSION,
]);

export const SERVER_INFO_META_KEY = 'io.modelcontextprotocol/serverInfo';

const DATE_REVISION = /^\d{4}-\d{2}-\d{2}$/;

export function isHandshakeEra(revision: string): boolean {
  return DATE_REVISION.test(revision) && revision < MODERN_ERA_START;
}

/** At most this many served revisions are kept per verdict: a node may list any number. */
export const MAX_SERVED_REVISIONS = 64;

/** Whether a string is shaped like a protocol revision (`YYYY-MM-DD`); anything else a server lists is junk. */
export function isRevision(value: string): boolean {
  return DATE_REVISION.test(value);
}

/**
 * The revisions a verdict keeps of those a node listed: only `YYYY-MM-DD`-shaped ones, unique, newest first,
 * at most MAX_SERVED_REVISIONS; with how many were dropped as junk and beyond the cap.
 */
export function keptRevisions(listed: Iterable<string>): { kept: string[]; junk: number; overCap: number } {
  const unique = new Set(listed);
  const dated = [...unique].filter(isRevision);
  const sorted = sortRevisions(dated);
  return {
    kept: sorted.slice(0, MAX_SERVED_REVISIONS),
    junk: unique.size - dated.length,
    overCap: Math.max(0, sorted.length - MAX_SERVED_REVISIONS),
  };
}

/** Unique, newest first; dated revisions compare as strings, anything undated sorts last. */
export function sortRevisions(revisions: Iterable<string>): string[] {
  const unique = [...new Set(revisions)];
  if (unique.length < 2) return unique;
  return unique.sort((a, b) => {
    const da = DATE_REVISION.test(a);
    const db = DATE_REVISION.test(b);
    if (da !== db) return da ? -1 : 1;
    return a < b ? 1 : a > b ? -1 : 0;
  });
}

export function deriveServedEras(supported: readonly string[]): ServedEra {
  let modern = false;
  let legacy = false;
  for (const revision of supported) {
    if (isHandshakeEra(revision)) legacy = true;
    else modern = true;
  }
  if (modern && legacy) return 'dual-era';
  if (modern) return 'modern-only';
  if (legacy) return 'legacy-only';
  return 'unknown';
}

/** The newest revision both sides speak, or null. */
export function newestMutual(theirs: readonly string[], ours: readonly string[]): string | null {
  const mine = new Set(ours);
  return sortRevisions(theirs.filter((r) => mine.has(r)))[0] ?? null;
}

/**
 * A server-sent value quoted for evidence text: never recursive (an id may be an object nested thousands
 * deep) and never long (an id may be a megabyte string).
 */
export function quoteValue(value: unknown): string {
  if (Array.isArray(value)) return '(an array)';
  if (typeof value === 'object' && value !== null) return '(an object)';
  const text = JSON.stringify(value ?? null) ?? String(value);
  return text.length > 120 ? `${text.slice(0, 120)}…` : text;
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isStringArray(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((v) => typeof v === 'string');
}

/** What a transport read from the body, before any JSON-RPC reasoning. */
export type BodyReading =
  | { kind: 'empty' }
  | { kind: 'json'; value: unknown }
  | { kind: 'invalid_json'; detail: string }
  | { kind: 'other' };

export interface Settled {
  outcome: Outcome;
  message: Record<string, unknown> | null;
  detail?: string;
}

/** True for a JSON-RPC 2.0 response object (a result or a well-formed error). */
export function isJsonRpcResponse(value: unknown): value is Record<string, unknown> {
  if (!isPlainObject(value) || value.jsonrpc !== '2.0' || !('id' in value)) return false;
  if ('error' in value) return isPlainObject(value.error) && typeof value.error.code === 'number';
  return 'result' in value;
}

/** Turns an HTTP status and what the body held into one outcome. Auth and redirects win over any body. */
export function settleOutcome(status: number, reading: BodyReading, expectedId: string | number): Settled {
  if (status >= 300 && status < 400) return { outcome: 'redirect_refused', message: null };
  if (status === 401 || status === 403) return { outcome: 'auth_required', message: null };
  const statusFailure: Outcome | null = status >= 500 ? 'http_5xx' : status >= 400 ? 'http_4xx' : null;
  if (reading.kind === 'json') {
    const value = reading.value;
    if (isJsonRpcResponse(value)) {
      const isError = 'error' in value;
      if (value.id === expectedId || (isError && value.id === null)) {
        return { outcome: isError ? 'rpc_error' : 'result', message: value };
      }
      return { outcome: 'wrong_id', message: value, detail: `response id ${quoteValue(value.id)}` };
    }
    return { outcome: statusFailure ?? 'not_jsonrpc', message: null };
  }
  if (statusFailure) return { outcome: statusFailure, message: null };
  if (reading.kind === 'empty') return { outcome: 'empty', message: null };
  if (reading.kind === 'invalid_json')
    return { outcome: 'invalid_json', message: null, detail: reading.detail };
  return { outcome: 'unsupported_content_type', message: null };
}

const DATA_LIMIT = 4096;

/** An error's `data` as evidence keeps: a server decides its size and depth, the stored verdict must not. */
function boundedData(data: unknown): unknown {
  let text: string | undefined;
  try {
    text = JSON.stringify(data);
  } catch {
    return '(error data nested too deep to keep)';
  }
  if (text !== undefined && text.length > DATA_LIMIT)
    return `(error data of ${text.length} characters not kept)`;
  return data;
}

export function rpcErrorOf(message: Record<string, unknown> | null): RpcErrorInfo | null {
  const error = message?.error;
  if (!isPlainObject(error) || typeof error.code !== 'number') return null;
  const info: RpcErrorInfo = {
    code: error.code,
    message: typeof error.message === 'string' ? error.message : '',
  };
  if ('data' in error) info.data = boundedData(error.data);
  return info;
}

export interface DiscoverFacts {
  supportedVersions: string[];
  serverInfo: ServerInfo | null;
  cache: CacheHint | null;
}

export type DiscoverClass =
  | { kind: 'discover'; facts: DiscoverFacts }
  | { kind: 'modern_error'; code: number; supported: string[] | null }
  | { kind: 'ambiguous'; protocolAnswer: boolean; detail?: string };

function serverInfoFrom(value: unknown): ServerInfo | null {
  if (!isPlainObject(value)) return null;
  const { name, version } = value;
  if (typeof name !== 'string' || typeof version !== 'string' || !name || !version) return null;
  return { name, version };
}

/** Structural check of a DiscoverResult; the reason names the first thing missing. */
export function parseDiscoverResult(result: unknown): { facts: DiscoverFacts } | { problem: string } {
  if (!isPlainObject(result)) return { problem: 'result is not an object' };
  if (!isStringArray(result.supportedVersions)) return { problem: 'supportedVersions is not a string array' };
  if (!isPlainObject(result.capabilities)) return { problem: 'capabilities is not an object' };
  // ttlMs/cacheScope: the spec treats an absent ttlMs as stale, so a missing hint is no reason to distrust.
  const cache =
    typeof result.ttlMs === 'number' && Number.isFinite(result.ttlMs) && typeof result.cacheScope === 'string'
      ? { ttlMs: result.ttlMs, cacheScope: result.cacheScope }
      : null;
  const meta = isPlainObject(result._meta) ? result._meta : null;
  return {
    facts: {
      supportedVersions: result.supportedVersions,
      serverInfo: serverInfoFrom(meta?.[SERVER_INFO_META_KEY]),
      cache,
    },
  };
}

/** DESIGN.md's three outcome classes for a `server/discover` exchange. */
export function classifyDiscover(outcome: Outcome, message: Record<string, unknown> | null): DiscoverClass {
  if (outcome === 'result' && message) {
    const parsed = parseDiscoverResult(message.result);
    if ('facts' in parsed) return { kind: 'discover', facts: parsed.facts };
    return { kind: 'ambiguous', protocolAnswer: true, detail: `not a DiscoverResult: ${parsed.problem}` };
  }
  if (outcome === 'rpc_error') {
    const error = rpcErrorOf(message);
    if (error && MODERN_ERROR_CODES.has(error.code)) {
      const data = isPlainObject(error.data) ? error.data : null;
      const supported = isStringArray(data?.supported) ? data.supported : null;
      return { kind: 'modern_error', code: error.code, supported };
    }
    return { kind: 'ambiguous', protocolAnswer: true, detail: error ? `error ${error.code}` : undefined };
  }
  return { kind: 'ambiguous', protocolAnswer: outcome === 'wrong_id' || outcome === 'not_jsonrpc' };
}

/** A recognised modern error on any request (initialize included) forbids further initialize. */
export function isModernError(outcome: Outcome, message: Record<string, unknown> | null): boolean {
  if (outcome !== 'rpc_error') return false;
  const error = rpcErrorOf(message);
  return error !== null && MODERN_ERROR_CODES.has(error.code);
}

export interface LegacyEvidence {
  checks: LegacyCheck[];
  failed: LegacyCheck['name'] | null;
  protocolVersion: string | null;
  serverInfo: ServerInfo | null;
}

/** The five positive-evidence checks on an initialize response, in order; `failed` names the first failure. */
export function checkLegacyInitialize(
  message: Record<string, unknown>,
  expectedId: string | number,
  legacyVersions: readonly string[],
): LegacyEvidence {
  const result = isPlainObject(message.result) ? message.result : null;
  const single = 'result' in message && !('error' in message) && result !== null;
  const version = typeof result?.protocolVersion === 'string' ? result.protocolVersion : null;
  const serverInfo = serverInfoFrom(result?.serverInfo);
  const checks: LegacyCheck[] = [
    {
      name: 'id_match',
      passed: message.jsonrpc === '2.0' && message.id === expectedId,
      detail: `expected ${quoteValue(expectedId)}, got ${quoteValue(message.id)}`,
    },
    {
      name: 'single_result',
      passed: single,
      detail: 'error' in message ? 'response carries an error' : 'result is not an object',
    },
    {
      name: 'protocol_version',
      passed: version !== null && legacyVersions.includes(version),
      detail: `protocolVersion ${JSON.stringify(version)} not in the configured legacy set`,
    },
    {
      name: 'capabilities_object',
      passed: isPlainObject(result?.capabilities),
      detail: 'capabilities is not an object',
    },
    {
      name: 'server_info',
      passed: serverInfo !== null,
      detail: 'serverInfo lacks a non-empty string name and version',
    },
  ];
  for (const check of checks) if (check.passed) delete check.detail;
  const failed = checks.find((c) => !c.passed)?.name ?? null;
  return { checks, failed, protocolVersion: version, serverInfo };
}
