// The audit trail's contract. Client-safe.
import { z } from 'zod';
import { Cursor, Id, Limit, TimeBound, Timestamp } from './common';

export const ACTOR_KINDS = ['user', 'token', 'admin_secret', 'config', 'local'] as const;
export type ActorKind = (typeof ACTOR_KINDS)[number];

/** Who made a change, and from where. */
export const AuditActor = z
  .object({
    kind: z.enum(ACTOR_KINDS).meta({
      description:
        'user (single sign-on), token, admin_secret (the secret or its session), config (the file at start-up), local',
    }),
    id: z.string().nullable().meta({ description: "the user's sub or the token's id" }),
    name: z.string().nullable().meta({ description: "the user's email or name, or the token's name" }),
    address: z.string().nullable().meta({ description: 'the client address, after the trusted-proxy rule' }),
  })
  .meta({ id: 'AuditActor' });
export type AuditActor = z.infer<typeof AuditActor>;

export const FieldChange = z.object({ before: z.unknown(), after: z.unknown() });

export const AuditEntry = z
  .object({
    id: z.string(),
    at: Timestamp,
    actor: AuditActor,
    operation: z.string().meta({ description: 'what was done, e.g. balancer.update' }),
    subject: z.object({ type: z.string(), id: z.string(), name: z.string().nullable() }),
    changes: z.record(z.string(), FieldChange).meta({
      description: 'the fields that changed, before and after; secrets as [redacted]',
    }),
  })
  .meta({ id: 'AuditEntry' });
export type AuditEntry = z.infer<typeof AuditEntry>;

export const AuditQuery = z.strictObject({
  subject: Id.optional().meta({ description: "the subject's id" }),
  actor: z
    .string()
    .max(300)
    .optional()
    .meta({ description: "the actor's id (a user's sub, a token's id) or kind" }),
  since: TimeBound.optional(),
  until: TimeBound.optional(),
  limit: Limit,
  cursor: Cursor.optional(),
});

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

const SECRET_KEY = /secret|password|token|authorization|^hash$/i;
export const REDACTED = '[redacted]';

/** A value with every secret-named field's value replaced (an `env:NAME` reference stays: it is no secret). */
export function redactSecrets(value: unknown, key = ''): unknown {
  if (SECRET_KEY.test(key) && value !== null && value !== undefined && typeof value !== 'object') {
    return typeof value === 'string' && value.startsWith('env:') ? value : REDACTED;
  }
  if (Array.isArray(value)) return value.map((v) => redactSecrets(v));
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, redactSecrets(v, k)]));
  }
  return value;
}

/**
 * The fields that differ between two representations of a subject (null for one that did not exist), each
 * with its before and after, secret-named fields redacted: what an audit entry records. Give it the API's
 * views, whose other secrets are already redacted.
 */
export function fieldChanges(
  before: Record<string, unknown> | null,
  after: Record<string, unknown> | null,
  ignore: readonly string[] = [],
): Record<string, { before: unknown; after: unknown }> {
  const out: Record<string, { before: unknown; after: unknown }> = {};
  const keys = new Set([...Object.keys(before ?? {}), ...Object.keys(after ?? {})]);
  for (const key of keys) {
    if (ignore.includes(key)) continue;
    const b = redactSecrets(before?.[key] ?? null, key);
    const a = redactSecrets(after?.[key] ?? null, key);
    if (!same(b, a)) out[key] = { before: b, after: a };
  }
  return out;
}
