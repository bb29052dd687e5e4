import { defineConfig } from 'drizzle-kit';

// The PostgreSQL twin of drizzle.config.ts: `npm run db:generate` writes both engines' migrations.
export default defineConfig({
  dialect: 'postgresql',
  schema: './db/schema-pg/index.ts',
  out: './db/migrations-pg',
});
