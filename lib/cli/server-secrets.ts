// Next.js writes per-build secrets into its build: the preview-mode keys (.next/prerender-manifest.json and
// .next/server/preview-props.json: whoever knows them can bypass the prerender cache and forge preview
// cookies) and the server actions' encryptionKey (.next/server/server-reference-manifest.*). A package built
// once would give every install the same keys, so the pack step (scripts/build-package.ts) replaces them with
// a placeholder, and `erawatch serve` makes fresh ones for each start, held in memory: the files it reads
// are answered with the start's keys in place of the placeholder (the package's folder may be read-only, and
// is never written). The dashboard uses neither preview mode nor server actions, so nothing outlives a start.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

/** What the pack step writes in place of every per-build secret. */
export const SECRET_PLACEHOLDER = 'erawatch-generated-at-start';

/** The files of the standalone server that hold the preview-mode keys, relative to its folder. */
export const PREVIEW_FILES = ['.next/prerender-manifest.json', '.next/server/preview-props.json'];
/** The files that hold the server actions' key (read only when the environment sets none). */
export const ACTION_KEY_FILES = [
  '.next/server/server-reference-manifest.json',
  '.next/server/server-reference-manifest.js',
];

export interface PreviewKeys {
  previewModeId: string;
  previewModeSigningKey: string;
  previewModeEncryptionKey: string;
}

export function freshPreviewKeys(): PreviewKeys {
  return {
    previewModeId: crypto.randomBytes(16).toString('hex'),
    previewModeSigningKey: crypto.randomBytes(32).toString('hex'),
    previewModeEncryptionKey: crypto.randomBytes(32).toString('hex'),
  };
}

/** A raw AES-256 key in base64, as Next.js generates for NEXT_SERVER_ACTIONS_ENCRYPTION_KEY. */
export function freshActionKey(): string {
  return crypto.randomBytes(32).toString('base64');
}

/**
 * Pack step: the build's keys out of one standalone server folder. Returns the files it changed; throws when a
 * file that should hold a key is missing (a Next.js upgrade moved them: the package must not ship them).
 */
export function scrubBuildSecrets(serverDir: string): string[] {
  const changed: string[] = [];
  for (const rel of PREVIEW_FILES) {
    const file = path.join(serverDir, rel);
    const json = JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, unknown>;
    const holder = (rel.endsWith('prerender-manifest.json') ? json.preview : json) as Record<string, unknown>;
    if (!holder || typeof holder.previewModeId !== 'string') throw new Error(`${rel} holds no preview keys`);
    for (const key of ['previewModeId', 'previewModeSigningKey', 'previewModeEncryptionKey'])
      holder[key] = SECRET_PLACEHOLDER;
    fs.writeFileSync(file, JSON.stringify(json));
    changed.push(rel);
  }
  for (const rel of ACTION_KEY_FILES) {
    const file = path.join(serverDir, rel);
    if (!fs.existsSync(file)) continue;
    const text = fs.readFileSync(file, 'utf8');
    // The .js twin holds the same JSON inside a string, its quotes escaped.
    const next = text.replace(
      /(\\?"encryptionKey\\?"\s*:\s*\\?")[^"\\]*(\\?")/g,
      `$1${SECRET_PLACEHOLDER}$2`,
    );
    if (next !== text) {
      fs.writeFileSync(file, next);
      changed.push(rel);
    }
  }
  return changed;
}

/** The text of a preview file with the placeholder keys replaced by `keys`. */
function withKeys(text: string, keys: PreviewKeys): string {
  if (!text.includes(SECRET_PLACEHOLDER)) return text;
  const json = JSON.parse(text) as Record<string, unknown>;
  const holder = ('preview' in json ? json.preview : json) as Record<string, unknown>;
  Object.assign(holder, keys);
  return JSON.stringify(json);
}

type ReadFileSync = typeof fs.readFileSync;
type ReadFile = typeof fs.promises.readFile;

/**
 * Start: fresh preview keys for this process, answered to the server's reads of its two preview files (the
 * server actions' key goes to the environment, see `freshActionKey`). Returns the keys (for tests) and a
 * function that undoes the wrapping.
 */
export function applyFreshPreviewKeys(serverDir: string): {
  keys: PreviewKeys;
  restore(): void;
} {
  const keys = freshPreviewKeys();
  const targets = new Set(PREVIEW_FILES.map((rel) => path.resolve(serverDir, rel)));
  const isTarget = (p: unknown) =>
    (typeof p === 'string' || p instanceof URL) &&
    targets.has(path.resolve(p instanceof URL ? p.pathname : p));
  const readFileSync = fs.readFileSync;
  const readFile = fs.promises.readFile;
  const encode = (text: string, options: unknown) =>
    typeof options === 'string' ||
    (typeof options === 'object' && options !== null && Boolean((options as { encoding?: unknown }).encoding))
      ? text
      : Buffer.from(text);
  const wrappedSync = function (this: unknown, file: unknown, options?: unknown) {
    const out = Reflect.apply(readFileSync, this, [file, options]) as string | Buffer;
    if (!isTarget(file)) return out;
    return encode(withKeys(out.toString(), keys), options);
  } as ReadFileSync;
  const wrapped = async function (this: unknown, file: unknown, options?: unknown) {
    const out = (await Reflect.apply(readFile, this, [file, options])) as string | Buffer;
    if (!isTarget(file)) return out;
    return encode(withKeys(out.toString(), keys), options);
  } as ReadFile;
  fs.readFileSync = wrappedSync;
  fs.promises.readFile = wrapped;
  return {
    keys,
    restore() {
      if (fs.readFileSync === wrappedSync) fs.readFileSync = readFileSync;
      if (fs.promises.readFile === wrapped) fs.promises.readFile = readFile;
    },
  };
}
