// One engine's rendered tables, formatted as the repository's prettier config formats them (the generator
// writes this; tests/unit/db/tables.test.ts compares the checked-in files with it).
import path from 'node:path';
import * as prettier from 'prettier';
import { renderTables, RENDERED_FILES, type DialectName } from '../db/tables/dialects';

export async function formattedTables(dialect: DialectName, root: string): Promise<string> {
  const file = path.join(root, RENDERED_FILES[dialect]);
  const options = (await prettier.resolveConfig(file)) ?? {};
  return prettier.format(renderTables(dialect), { ...options, filepath: file });
}
