// The audit trail: every write records who, from where, what and when, in the write's own transaction
// (`recordAudit` joins the open `store.write`). Listed newest first with a cursor; pruned by retention.
import { and, desc, eq, gte, lt, or } from 'drizzle-orm';
import { ValidationError, type FieldIssue } from '@/lib/errors';
import { ACTOR_KINDS, type AuditActor, type AuditEntry } from '@/lib/schemas/audit';
import type { Store } from '../index';
import { newId } from '../ids';
import type { AuditRow } from '../schema/tables';
import { clampLimit } from './balancers';

export interface AuditInput {
  actor: AuditActor;
  operation: string;
  subject: { type: string; id: string; name: string | null };
  /** The changed fields, secrets already redacted (`fieldChanges` in lib/schemas/audit.ts). */
  changes: Record<string, { before: unknown; after: unknown }>;
}

/** Records one entry; inside a `store.write` it commits or rolls back with the change. */
export async function recordAudit(store: Store, entry: AuditInput, now: number): Promise<void> {
  const { auditLog } = store.t;
  await store.write((tx) =>
    tx.insert(auditLog).values({
      id: newId('aud'),
      at: now,
      actorKind: entry.actor.kind,
      actorId: entry.actor.id,
      actorName: entry.actor.name,
      address: entry.actor.address,
      operation: entry.operation,
      subjectType: entry.subject.type,
      subjectId: entry.subject.id,
      subjectName: entry.subject.name,
      changes: JSON.stringify(entry.changes),
    }),
  );
}

function toEntry(row: AuditRow): AuditEntry {
  return {
    id: row.id,
    at: row.at,
    actor: { kind: row.actorKind, id: row.actorId, name: row.actorName, address: row.address },
    operation: row.operation,
    subject: { type: row.subjectType, id: row.subjectId, name: row.subjectName },
    changes: JSON.parse(row.changes) as AuditEntry['changes'],
  };
}

export interface ListAuditOptions {
  subject?: string;
  /** An actor's id (a user's sub, a token's id), or an actor kind. */
  actor?: string;
  since?: number;
  until?: number;
  cursor?: string | null;
  limit?: number;
}

function encode(at: number, id: string): string {
  return Buffer.from(`${at}:${id}`).toString('base64url');
}

/** Newest first; `since` inclusive, `until` exclusive (epoch ms); `cursor` continues a previous page. */
export async function listAudit(
  store: Store,
  opts: ListAuditOptions = {},
): Promise<{ items: AuditEntry[]; nextCursor: string | null }> {
  const { auditLog: a } = store.t;
  const limit = clampLimit(opts.limit, 50, 500);
  const issues: FieldIssue[] = [];
  let after: { at: number; id: string } | null = null;
  if (opts.cursor) {
    const m = /^(\d{1,15}):([a-z]+_[a-z2-7]+)$/.exec(Buffer.from(opts.cursor, 'base64url').toString('utf8'));
    if (!m?.[1] || !m[2] || encode(Number(m[1]), m[2]) !== opts.cursor) {
      issues.push({ path: 'cursor', message: 'is not a cursor this API issued' });
    } else after = { at: Number(m[1]), id: m[2] };
  }
  if (issues.length > 0) throw new ValidationError(issues);
  const actor = opts.actor;
  const byKind = actor !== undefined && (ACTOR_KINDS as readonly string[]).includes(actor);
  const rows = await store.read((db) =>
    db
      .select()
      .from(a)
      .where(
        and(
          opts.subject !== undefined ? eq(a.subjectId, opts.subject) : undefined,
          actor !== undefined
            ? byKind
              ? eq(a.actorKind, actor as AuditRow['actorKind'])
              : eq(a.actorId, actor)
            : undefined,
          opts.since !== undefined ? gte(a.at, opts.since) : undefined,
          opts.until !== undefined ? lt(a.at, opts.until) : undefined,
          after !== null ? or(lt(a.at, after.at), and(eq(a.at, after.at), lt(a.id, after.id))) : undefined,
        ),
      )
      .orderBy(desc(a.at), desc(a.id))
      .limit(limit + 1),
  );
  const page = rows.slice(0, limit).map(toEntry);
  const last = page[page.length - 1];
  return { items: page, nextCursor: rows.length > limit && last ? encode(last.at, last.id) : null };
}

/** Drops entries older than `before`; returns how many. */
export async function pruneAudit(store: Store, before: number): Promise<number> {
  const { auditLog: a } = store.t;
  const gone = await store.write((tx) => tx.delete(a).where(lt(a.at, before)).returning({ id: a.id }));
  return gone.length;
}
