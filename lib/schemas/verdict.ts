// The Verdict, the product's central object, as a zod schema: what the probe concludes about one node, with
// the evidence steps behind it. The probe's TypeScript interfaces (lib/probe/types.ts) are checked against
// these schemas at compile time, so the two cannot drift; stored verdicts are parsed with them at the store's
// edge and the OpenAPI document shows every field. Client-safe.
import { z } from 'zod';
import {
  CLIENT_ERAS,
  CREDENTIAL_KINDS,
  LEGACY_CHECKS,
  METADATA_SOURCES,
  OUTCOMES,
  PROBE_STEPS,
  SERVED_ERAS,
  type AuthEvidence as AuthEvidenceType,
  type EvidenceStep as EvidenceStepType,
  type ToolCatalog as ToolCatalogType,
  type Verdict as VerdictType,
} from '@/lib/probe/types';
import { ToolCatalog } from '@/lib/probe/catalog-schema';
import { Timestamp } from './common';

/** Compile-time proof that a schema's output and an interface are the same type. */
export type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
export function assertSame<T extends true>(): T | undefined {
  return undefined;
}

export const LegacyCheck = z.object({
  name: z.enum(LEGACY_CHECKS),
  passed: z.boolean(),
  detail: z.string().optional(),
});

export const RpcErrorInfo = z.object({ code: z.number(), message: z.string(), data: z.unknown().optional() });

export const EvidenceStep = z
  .object({
    step: z.enum(PROBE_STEPS),
    method: z.string(),
    protocolVersion: z.string(),
    requestId: z.union([z.string(), z.number()]),
    httpStatus: z.int().nullable(),
    contentType: z.string().nullable(),
    outcome: z.enum(OUTCOMES),
    rpcError: RpcErrorInfo.nullable(),
    elapsedMs: z.number(),
    detail: z.string().optional().meta({ description: 'the socket error, the failed check, the anomaly' }),
    checks: z.array(LegacyCheck).optional().meta({
      description: 'the five positive-evidence checks, on initialize and audit steps with a response',
    }),
    sessionIssued: z
      .boolean()
      .optional()
      .meta({ description: 'the server issued an Mcp-Session-Id (which the probe then ended with DELETE)' }),
    servedBy: z.string().optional().meta({ description: "the attribution header's value on this response" }),
  })
  .meta({ id: 'EvidenceStep' });

export const ServerInfo = z.object({ name: z.string(), version: z.string() });
export const CacheHint = z.object({ ttlMs: z.number(), cacheScope: z.string() });

export { ToolCatalog };

const AuthChallenge = z.object({
  scheme: z.string(),
  resourceMetadata: z.string().nullable(),
  scope: z.string().nullable(),
  error: z.string().nullable(),
  errorDescription: z.string().nullable(),
  realm: z.string().nullable(),
  otherSchemes: z.array(z.string()),
});

const MetadataAttempt = z.object({
  source: z.enum(METADATA_SOURCES),
  url: z.string(),
  httpStatus: z.int().nullable(),
  outcome: z.string(),
  detail: z.string().optional(),
});

const ProtectedResource = z.object({
  url: z.string(),
  source: z.enum(METADATA_SOURCES),
  resource: z.string().nullable(),
  resourceMatches: z.boolean(),
  trusted: z.boolean(),
  authorizationServers: z.array(z.string()),
  scopesSupported: z.array(z.string()),
});

const TokenEvidence = z.object({
  tokenEndpoint: z.string().nullable(),
  endpointSource: z.enum(['configured', 'discovered']).nullable(),
  refreshed: z.boolean(),
  error: z.string().nullable(),
  detail: z.string().optional(),
});

export const AuthEvidence = z
  .object({
    credential: z.enum(CREDENTIAL_KINDS),
    httpStatus: z.int().nullable(),
    challenge: AuthChallenge.nullable(),
    detail: z.string().optional(),
    metadataAttempts: z.array(MetadataAttempt),
    metadata: ProtectedResource.nullable(),
    token: TokenEvidence.nullable(),
  })
  .meta({ id: 'AuthEvidence' });

export const TlsEvidence = z
  .object({
    certificateExpiresAt: Timestamp.nullable().meta({
      description: "the certificate's notAfter; null when the handshake got no certificate",
    }),
  })
  .meta({ id: 'TlsEvidence' });

export const Verdict = z
  .object({
    url: z.string(),
    verdict: z.enum(CLIENT_ERAS),
    reason: z.string().meta({
      description:
        'machine code: discover_result, negotiated_after_32022, legacy_positive_evidence, auth_required, timeout, …',
    }),
    negotiatedVersion: z.string().nullable(),
    supported: z.array(z.string()).meta({ description: 'every revision seen served, newest first' }),
    servedEras: z.enum(SERVED_ERAS),
    serverInfo: ServerInfo.nullable(),
    cache: CacheHint.nullable(),
    initializeSent: z.boolean(),
    anomaly: z.string().nullable(),
    evidence: z.array(EvidenceStep),
    probedAt: Timestamp,
    durationMs: z.number(),
    address: z.string().nullable().meta({ description: 'the IP actually connected to' }),
    servedBy: z.string().nullable(),
    catalog: ToolCatalog.nullable().optional(),
    auth: AuthEvidence.optional().meta({
      description: 'set when the node refused us or a credential was involved',
    }),
    tls: TlsEvidence.optional().meta({
      description: "over HTTPS: the node's certificate as the probe saw it",
    }),
  })
  .meta({ id: 'Verdict' });

assertSame<Same<z.output<typeof Verdict>, VerdictType>>();
assertSame<Same<z.output<typeof EvidenceStep>, EvidenceStepType>>();
assertSame<Same<z.output<typeof ToolCatalog>, ToolCatalogType>>();
assertSame<Same<z.output<typeof AuthEvidence>, AuthEvidenceType>>();
