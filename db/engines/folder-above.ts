// Finds a folder shipped beside the code, e.g. db/migrations, from any module that may need it: the source
// tree (db/engines) and the CLI compiled into the published package (dist/cli) sit at different depths.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The nearest `rel` (a folder) in the folders above the module at `url`, or undefined. */
export function folderAbove(url: string, rel: string): string | undefined {
  let dir: string;
  try {
    dir = path.dirname(fileURLToPath(url));
  } catch {
    return undefined;
  }
  for (;;) {
    const candidate = path.join(dir, rel);
    if (fs.existsSync(candidate)) return candidate;
    const parent = path.dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
}
