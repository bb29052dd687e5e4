// Where the erawatch package is on disk: the folder of the nearest package.json named erawatch above this
// module. The same from the source tree (lib/cli) and from the CLI compiled into the published package (dist/cli).
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The standalone server inside the package, relative to its root (written by the pack step). */
export const SERVER_DIR = 'dist/server';

export interface PackageInfo {
  root: string;
  version: string;
}

let found: PackageInfo | null = null;

export function packageInfo(from: string = fileURLToPath(import.meta.url)): PackageInfo {
  if (found) return found;
  for (let dir = path.dirname(from); ; dir = path.dirname(dir)) {
    const file = path.join(dir, 'package.json');
    if (fs.existsSync(file)) {
      const pkg = JSON.parse(fs.readFileSync(file, 'utf8')) as { name?: unknown; version?: unknown };
      if (pkg.name === 'erawatch' && typeof pkg.version === 'string') {
        found = { root: dir, version: pkg.version };
        return found;
      }
    }
    if (path.dirname(dir) === dir) throw new Error(`no erawatch package.json above ${from}`);
  }
}
