// Issuing and checking API tokens: the secret is made and hashed here; the store keeps the hash and the shown
// prefix only (db/queries/tokens).
import {
  insertApiToken,
  findLiveTokenByHash,
  type TokenIdentity,
  type TokenOwner,
} from '@/db/queries/tokens';
import type { Store } from '@/db';
import { ValidationError, toFieldIssues } from '@/lib/errors';
import { CreateTokenInput, MAX_TOKEN_LIFETIME_MS, type CreatedApiToken } from '@/lib/schemas/token';
import { displayPrefix, generateToken, hashToken } from './tokens';

/** Creates a token owned by `owner` and returns it with its secret, the only time the secret is available. */
export async function createApiToken(
  store: Store,
  input: unknown,
  now: number = Date.now(),
  owner: TokenOwner | null = null,
): Promise<CreatedApiToken> {
  const parsed = CreateTokenInput.safeParse(input);
  if (!parsed.success) throw new ValidationError(toFieldIssues(parsed.error.issues));
  const expiresAt = parsed.data.expiresAt ?? null;
  if (expiresAt !== null && expiresAt <= now) {
    throw new ValidationError([{ path: 'expiresAt', message: 'must be in the future' }]);
  }
  if (expiresAt !== null && expiresAt > now + MAX_TOKEN_LIFETIME_MS) {
    throw new ValidationError([{ path: 'expiresAt', message: 'must be at most 5 years ahead' }]);
  }
  const token = generateToken(parsed.data.scope);
  const stored = await insertApiToken(
    store,
    {
      name: parsed.data.name,
      scope: parsed.data.scope,
      prefix: displayPrefix(token),
      hash: hashToken(token),
      expiresAt,
    },
    now,
    owner,
  );
  return { ...stored, token };
}

/** The live token with this secret, or null (unknown, revoked or expired). */
export function findTokenBySecret(
  store: Store,
  secret: string,
  now: number = Date.now(),
): Promise<TokenIdentity | null> {
  return findLiveTokenByHash(store, hashToken(secret), now);
}
