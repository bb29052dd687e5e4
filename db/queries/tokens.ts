import { desc, eq, and, isNull } from 'drizzle-orm';
import { NotFoundError, ValidationError, toFieldIssues } from '@/lib/errors';
import { displayPrefix, generateToken, hashToken } from '@/lib/auth/tokens';
import { CreateTokenInput, type ApiToken, type CreatedApiToken, type TokenScope } from '@/lib/schemas/token';
import { firstRow, type Store } from '../index';
import { newId } from '../ids';
import { type ApiTokenRow } from '../schema';

function toApiToken(row: ApiTokenRow): ApiToken {
  return {
    id: row.id,
    name: row.name,
    scope: row.scope,
    prefix: row.prefix,
    createdAt: row.createdAt,
    lastUsedAt: row.lastUsedAt,
    revokedAt: row.revokedAt,
  };
}

/** Creates a token and returns it with its secret, the only time the secret is available. */
export async function createApiToken(
  store: Store,
  input: unknown,
  now: number = Date.now(),
): Promise<CreatedApiToken> {
  const { apiTokens } = store.t;
  const parsed = CreateTokenInput.safeParse(input);
  if (!parsed.success) throw new ValidationError(toFieldIssues(parsed.error.issues));
  const token = generateToken(parsed.data.scope);
  const row = await store.write(async (tx) =>
    firstRow(
      await tx
        .insert(apiTokens)
        .values({
          id: newId('tok'),
          name: parsed.data.name,
          scope: parsed.data.scope,
          prefix: displayPrefix(token),
          hash: hashToken(token),
          createdAt: now,
        })
        .returning(),
    ),
  );
  return { ...toApiToken(row), token };
}

export async function listApiTokens(store: Store): Promise<ApiToken[]> {
  const { apiTokens } = store.t;
  return (await store.read((db) => db.select().from(apiTokens).orderBy(desc(apiTokens.createdAt)))).map(
    toApiToken,
  );
}

/** Revokes a token (kept for the audit trail). Revoking twice is a no-op that returns the same row. */
export async function revokeApiToken(store: Store, id: string, now: number = Date.now()): Promise<ApiToken> {
  const { apiTokens } = store.t;
  return store.write(async (tx) => {
    const [row] = await tx.select().from(apiTokens).where(eq(apiTokens.id, id));
    if (!row) throw new NotFoundError('token', id);
    if (row.revokedAt !== null) return toApiToken(row);
    return toApiToken(
      firstRow(await tx.update(apiTokens).set({ revokedAt: now }).where(eq(apiTokens.id, id)).returning()),
    );
  });
}

export interface TokenIdentity {
  id: string;
  scope: TokenScope;
}

// lastUsedAt is a hint, not an audit log: writing it at most once a minute keeps reads from becoming writes.
const LAST_USED_RESOLUTION_MS = 60_000;

/** The live token with this secret, or null (unknown or revoked). */
export async function findTokenBySecret(
  store: Store,
  token: string,
  now: number = Date.now(),
): Promise<TokenIdentity | null> {
  const { apiTokens } = store.t;
  const [row] = await store.read((db) =>
    db
      .select()
      .from(apiTokens)
      .where(and(eq(apiTokens.hash, hashToken(token)), isNull(apiTokens.revokedAt))),
  );
  if (!row) return null;
  if (row.lastUsedAt === null || now - row.lastUsedAt >= LAST_USED_RESOLUTION_MS) {
    await store.write((db) => db.update(apiTokens).set({ lastUsedAt: now }).where(eq(apiTokens.id, row.id)));
  }
  return { id: row.id, scope: row.scope };
}
