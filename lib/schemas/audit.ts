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
