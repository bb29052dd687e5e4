import { index, integer, sqliteTable, text } from 'drizzle-orm/sqlite-core';

/**
 * The audit trail: one row per write, recorded in the write's own transaction. Who (a user, a token, the admin
 * secret, the config file at start-up, local mode), from which client address, what (the operation, the
 * subject, the changed fields' before and after with secrets redacted) and when.
 */
export const auditLog = sqliteTable(
  'audit_log',
  {
    id: text('id').primaryKey(),
    at: integer('at').notNull(),
    actorKind: text('actor_kind', { enum: ['user', 'token', 'admin_secret', 'config', 'local'] }).notNull(),
    /** The user's `sub` or the token's id; null for the admin secret, the config file and local mode. */
    actorId: text('actor_id'),
    actorName: text('actor_name'),
    address: text('address'),
    operation: text('operation').notNull(),
    subjectType: text('subject_type').notNull(),
    subjectId: text('subject_id').notNull(),
    subjectName: text('subject_name'),
    /** JSON: `{ field: { before, after } }`, secrets as `[redacted]`. */
    changes: text('changes').notNull(),
  },
  (t) => [
    index('audit_log_at').on(t.at, t.id),
    index('audit_log_subject').on(t.subjectId, t.at),
    index('audit_log_actor').on(t.actorId, t.at),
  ],
);

export type AuditRow = typeof auditLog.$inferSelect;
