import { bigint, index, pgTable, text } from 'drizzle-orm/pg-core';

/** PostgreSQL twin of db/schema/audit.ts. */
export const auditLog = pgTable(
  'audit_log',
  {
    id: text('id').primaryKey(),
    at: bigint('at', { mode: 'number' }).notNull(),
    actorKind: text('actor_kind', { enum: ['user', 'token', 'admin_secret', 'config', 'local'] }).notNull(),
    actorId: text('actor_id'),
    actorName: text('actor_name'),
    address: text('address'),
    operation: text('operation').notNull(),
    subjectType: text('subject_type').notNull(),
    subjectId: text('subject_id').notNull(),
    subjectName: text('subject_name'),
    changes: text('changes').notNull(),
  },
  (t) => [
    index('audit_log_at').on(t.at, t.id),
    index('audit_log_subject').on(t.subjectId, t.at),
    index('audit_log_actor').on(t.actorId, t.at),
  ],
);
