// RFC 9728 protected-resource metadata for a refused node: the URL the challenge names first, then the
// well-known URL with the resource's path inserted, then the one at the root. One bounded GET each; the
// first document found is kept, and one whose `resource` is not the URL probed is flagged and not trusted.
import { isPlainObject } from './classify';
import { SideRequestError, type SideFetch } from './auth-http';
import type { MetadataAttempt, MetadataSource, ProtectedResourceEvidence } from './types';

const WELL_KNOWN = '/.well-known/oauth-protected-resource';
const LIST_LIMIT = 50;

export function metadataCandidates(
  probed: string,
  challengeUrl: string | null,
): Array<{ source: MetadataSource; url: string }> {
  const out: Array<{ source: MetadataSource; url: string }> = [];
  const add = (source: MetadataSource, url: string) => {
    if (!out.some((c) => c.url === url)) out.push({ source, url });
  };
  if (challengeUrl) {
    try {
      const u = new URL(challengeUrl);
      if (u.protocol === 'http:' || u.protocol === 'https:') add('challenge', u.href);
    } catch {
      // A challenge naming no URL is recorded as such by the caller; nothing to fetch.
    }
  }
  const url = new URL(probed);
  const path = url.pathname.replace(/\/+$/, '');
  if (path !== '') add('path', `${url.origin}${WELL_KNOWN}${path}${url.search}`);
  add('root', `${url.origin}${WELL_KNOWN}`);
  return out;
}

function normalizeResource(value: string): string | null {
  try {
    const u = new URL(value);
    u.hash = '';
    return u.href.replace(/\/$/, '');
  } catch {
    return null;
  }
}

/** RFC 9728 §3.3: `resource` must be the resource identifier the client used; we also accept an expected one. */
export function resourceMatches(resource: string | null, accepted: readonly string[]): boolean {
  if (resource === null) return false;
  const got = normalizeResource(resource);
  return got !== null && accepted.some((a) => normalizeResource(a) === got);
}

function stringList(value: unknown): string[] {
  return Array.isArray(value)
    ? value.filter((v): v is string => typeof v === 'string').slice(0, LIST_LIMIT)
    : [];
}

export interface MetadataSearch {
  attempts: MetadataAttempt[];
  metadata: ProtectedResourceEvidence | null;
}

export async function findProtectedResource(
  probed: string,
  challengeUrl: string | null,
  accepted: readonly string[],
  fetch: SideFetch,
): Promise<MetadataSearch> {
  const attempts: MetadataAttempt[] = [];
  for (const candidate of metadataCandidates(probed, challengeUrl)) {
    const attempt: MetadataAttempt = { ...candidate, httpStatus: null, outcome: 'not_found' };
    attempts.push(attempt);
    let body: unknown;
    try {
      const res = await fetch(candidate.url, { headers: { accept: 'application/json' } });
      attempt.httpStatus = res.status;
      if (res.status !== 200) continue;
      body = JSON.parse(await res.text()) as unknown;
    } catch (err) {
      if (err instanceof SideRequestError) {
        attempt.outcome = err.outcome;
        attempt.detail = err.message;
        // No time left means no later candidate can be fetched either.
        if (err.outcome === 'timeout') break;
      } else {
        attempt.outcome = 'invalid';
        attempt.detail = err instanceof Error ? err.message : String(err);
      }
      continue;
    }
    if (!isPlainObject(body) || typeof body.resource !== 'string') {
      attempt.outcome = 'invalid';
      attempt.detail = 'not a protected-resource metadata document (no resource)';
      continue;
    }
    attempt.outcome = 'found';
    const matches = resourceMatches(body.resource, accepted);
    if (!matches) attempt.detail = `resource ${body.resource} is not the URL probed`;
    return {
      attempts,
      metadata: {
        url: candidate.url,
        source: candidate.source,
        resource: body.resource,
        resourceMatches: matches,
        trusted: matches,
        authorizationServers: stringList(body.authorization_servers),
        scopesSupported: stringList(body.scopes_supported),
      },
    };
  }
  return { attempts, metadata: null };
}
