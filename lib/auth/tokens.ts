// Bearer tokens: random, prefixed with their scope so a leaked one is recognisable (and greppable by secret
// scanners), stored only as a SHA-256 (the tokens carry 192 bits of entropy, so no slow hash is needed).
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { TokenScope } from '@/lib/schemas/token';

export const TOKEN_PREFIX = 'ewt';
const TOKEN_PATTERN = /^ewt_(read|write)_[A-Za-z0-9_-]{32}$/;

export function generateToken(scope: TokenScope): string {
  return `${TOKEN_PREFIX}_${scope}_${randomBytes(24).toString('base64url')}`;
}

export function hashToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

/** The part shown in listings: prefix, scope and a few characters of the random part. */
export function displayPrefix(token: string): string {
  const head = token.indexOf('_', TOKEN_PREFIX.length + 1) + 1;
  return token.slice(0, head + 6);
}

export function looksLikeToken(value: string): boolean {
  return TOKEN_PATTERN.test(value);
}

/** Constant-time string comparison for secrets of possibly different lengths. */
export function secretsEqual(a: string, b: string): boolean {
  const ha = createHash('sha256').update(a, 'utf8').digest();
  const hb = createHash('sha256').update(b, 'utf8').digest();
  return timingSafeEqual(ha, hb);
}
