// The package ships none of Next.js's per-build keys, and each `erawatch serve` start makes its own: the pack
// step's scrub and the start's reads, on files shaped as Next.js 16 writes them.
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  applyFreshPreviewKeys,
  freshActionKey,
  scrubBuildSecrets,
  SECRET_PLACEHOLDER,
} from '@/lib/cli/server-secrets';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'erawatch-secrets-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

const built = {
  previewModeId: crypto.randomBytes(16).toString('hex'),
  previewModeSigningKey: crypto.randomBytes(32).toString('hex'),
  previewModeEncryptionKey: crypto.randomBytes(32).toString('hex'),
};
const actionKey = crypto.randomBytes(32).toString('base64');

/** A standalone server folder with the four files that hold keys, as `next build` leaves them. */
function builtServer(): string {
  const dir = fs.mkdtempSync(path.join(tmp, 'server-'));
  fs.mkdirSync(path.join(dir, '.next', 'server'), { recursive: true });
  const manifest = { node: {}, edge: {}, encryptionKey: actionKey };
  fs.writeFileSync(
    path.join(dir, '.next', 'prerender-manifest.json'),
    JSON.stringify({ version: 4, routes: {}, preview: built }),
  );
  fs.writeFileSync(path.join(dir, '.next', 'server', 'preview-props.json'), JSON.stringify(built, null, 2));
  fs.writeFileSync(
    path.join(dir, '.next', 'server', 'server-reference-manifest.json'),
    JSON.stringify(manifest, null, 2),
  );
  fs.writeFileSync(
    path.join(dir, '.next', 'server', 'server-reference-manifest.js'),
    `self.__RSC_SERVER_MANIFEST=${JSON.stringify(JSON.stringify(manifest, null, 2))}`,
  );
  fs.writeFileSync(path.join(dir, '.next', 'BUILD_ID'), 'build\n');
  return dir;
}

function everything(dir: string): string {
  return fs
    .readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .map((f) => path.join(dir, f))
    .filter((f) => fs.statSync(f).isFile())
    .map((f) => fs.readFileSync(f, 'utf8'))
    .join('\n');
}

describe('per-build keys', () => {
  it('the pack step leaves none of the build keys in the server folder', () => {
    const dir = builtServer();
    expect(scrubBuildSecrets(dir).sort()).toEqual([
      '.next/prerender-manifest.json',
      '.next/server/preview-props.json',
      '.next/server/server-reference-manifest.js',
      '.next/server/server-reference-manifest.json',
    ]);
    const text = everything(dir);
    for (const secret of [...Object.values(built), actionKey]) expect(text).not.toContain(secret);
    const props = JSON.parse(
      fs.readFileSync(path.join(dir, '.next', 'server', 'preview-props.json'), 'utf8'),
    );
    expect(props).toEqual({
      previewModeId: SECRET_PLACEHOLDER,
      previewModeSigningKey: SECRET_PLACEHOLDER,
      previewModeEncryptionKey: SECRET_PLACEHOLDER,
    });
  });

  it('refuses a build whose preview keys are not where Next.js kept them', () => {
    const dir = builtServer();
    fs.writeFileSync(path.join(dir, '.next', 'server', 'preview-props.json'), '{}');
    expect(() => scrubBuildSecrets(dir)).toThrow('holds no preview keys');
  });

  it('each start reads its own keys; the files on disk keep the placeholder', async () => {
    const dir = builtServer();
    scrubBuildSecrets(dir);
    const props = path.join(dir, '.next', 'server', 'preview-props.json');
    const manifest = path.join(dir, '.next', 'prerender-manifest.json');
    const onDisk = fs.readFileSync(props, 'utf8');

    const first = applyFreshPreviewKeys(dir);
    let seen: unknown;
    try {
      expect(JSON.parse(fs.readFileSync(props, 'utf8'))).toEqual(first.keys);
      expect(JSON.parse(fs.readFileSync(props).toString())).toEqual(first.keys);
      seen = (JSON.parse(await fs.promises.readFile(manifest, 'utf8')) as { preview: unknown }).preview;
      // Only the two preview files are answered differently.
      expect(fs.readFileSync(path.join(dir, '.next', 'BUILD_ID'), 'utf8')).toBe('build\n');
    } finally {
      first.restore();
    }
    expect(seen).toEqual(first.keys);
    expect(first.keys.previewModeId).toMatch(/^[0-9a-f]{32}$/);
    expect(first.keys.previewModeSigningKey).toMatch(/^[0-9a-f]{64}$/);
    expect(fs.readFileSync(props, 'utf8')).toBe(onDisk);

    const second = applyFreshPreviewKeys(dir);
    try {
      const again = JSON.parse(fs.readFileSync(props, 'utf8')) as typeof built;
      expect(again.previewModeId).not.toBe(first.keys.previewModeId);
      expect(again.previewModeSigningKey).not.toBe(first.keys.previewModeSigningKey);
      expect(again).toEqual(second.keys);
    } finally {
      second.restore();
    }
    expect(fs.readFileSync(props, 'utf8')).toContain(SECRET_PLACEHOLDER);
  });

  it('a server-actions key is 32 random bytes in base64, new each time', () => {
    const a = freshActionKey();
    expect(Buffer.from(a, 'base64')).toHaveLength(32);
    expect(freshActionKey()).not.toBe(a);
  });
});
