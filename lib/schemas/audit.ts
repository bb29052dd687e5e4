// The audit trail's contract. Client-safe.
import { z } from 'zod';
import { Cursor, Id, Limit, TimeBound, Timestamp } from './common';
import { redactUrl, URL_CHANGED } from './url-redaction';

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
      description:
        'the fields that changed, before and after; secrets as [redacted], a secret the change replaced as [changed]',
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
/** Fields whose every value is a secret: a balancer's probe headers (an API key, a bearer token). */
const SECRET_MAP_KEY = /^headers$/i;
/** Fields holding URLs, whose query values and userinfo password may be credentials. */
const URL_KEY = /^urls?$/i;
export const REDACTED = '[redacted]';
/** What an audit entry shows for a secret a change replaced: that it changed, never the value. */
export const CHANGED = URL_CHANGED;

const isEnvRef = (v: unknown) => typeof v === 'string' && v.startsWith('env:');
const isRecord = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === 'object' && !Array.isArray(v);

/**
 * `value` as an audit entry shows it: every secret replaced (secret-named fields, every probe header value,
 * a URL's query values and password), `env:NAME` references kept (they are no secret). Given the value
 * `before` a change, a secret that the change replaced reads `[changed]` instead of `[redacted]`.
 */
function shown(value: unknown, before: unknown, key: string, secret = false): unknown {
  if (value === null || value === undefined) return null;
  if (typeof value !== 'object') {
    if ((secret || SECRET_KEY.test(key)) && !isEnvRef(value)) {
      const replaced =
        before !== null && before !== undefined && typeof before !== 'object' && before !== value;
      return replaced ? CHANGED : REDACTED;
    }
    if (URL_KEY.test(key) && typeof value === 'string') {
      return redactUrl(value, typeof before === 'string' ? before : null);
    }
    return value;
  }
  if (Array.isArray(value)) {
    return value.map((v, i) => shown(v, Array.isArray(before) ? before[i] : undefined, key, secret));
  }
  const prior = isRecord(before) ? before : {};
  const allSecret = secret || SECRET_MAP_KEY.test(key);
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, shown(v, prior[k], k, allSecret)]));
}

/** A value with every secret replaced (an `env:NAME` reference stays: it is no secret). */
export function redactSecrets(value: unknown, key = ''): unknown {
  return shown(value, value, key);
}

/**
 * The fields that differ between two representations of a subject (null for one that did not exist), each
 * with its before and after, secrets redacted: what an audit entry records. A change of a secret alone (a
 * probe header's value, a sink's password, a query value of a webhook URL) is recorded too, its after as
 * `[changed]`: give it the representations with those values (the stored ones, or the API's views where a
 * secret is absent altogether), and it redacts them.
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
    const a = shown(after?.[key] ?? null, before?.[key] ?? null, key);
    if (!same(b, a)) out[key] = { before: b, after: a };
  }
  return out;
}
