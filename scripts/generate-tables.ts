// Renders db/tables/declaration.ts as both engines' drizzle tables (db/schema/tables.ts,
// db/schema-pg/tables.ts). `npm run db:generate` runs it before drizzle-kit writes the migrations.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { formattedTables } from './tables-format';
import { RENDERED_FILES, type DialectName } from '../db/tables/dialects';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
for (const dialect of Object.keys(RENDERED_FILES) as DialectName[]) {
  const file = path.join(root, RENDERED_FILES[dialect]);
  const text = await formattedTables(dialect, root);
  const before = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : null;
  if (before !== text) fs.writeFileSync(file, text);
  process.stdout.write(`${RENDERED_FILES[dialect]}: ${before === text ? 'unchanged' : 'written'}\n`);
}
