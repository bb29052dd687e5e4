import { desc, eq, and, isNull } from 'drizzle-orm';
import { NotFoundError } from '@/lib/errors';
import type { ApiToken, TokenScope } from '@/lib/schemas/token';
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
    expiresAt: row.expiresAt,
    createdBy: row.createdBy,
    createdByName: row.createdByName,
  };
}

/** Who mints a token: `user:<sub>`, `admin` or `local`, and their name as shown. */
export interface TokenOwner {
  by: string;
  name: string | null;
}

/** What is kept of a new token: never its secret, only the shown prefix and the SHA-256 (lib/auth/api-tokens). */
export interface NewApiToken {
  name: string;
  scope: TokenScope;
  prefix: string;
  hash: string;
  /** When it stops working (epoch ms); null: never. */
  expiresAt: number | null;
}

/** Stores a token issued by lib/auth/api-tokens, with who minted it. */
export async function insertApiToken(
  store: Store,
  token: NewApiToken,
  now: number = Date.now(),
  owner: TokenOwner | null = null,
): Promise<ApiToken> {
  const { apiTokens } = store.t;
  const row = await store.write(async (tx) =>
    firstRow(
      await tx
        .insert(apiTokens)
        .values({
          id: newId('tok'),
          ...token,
          createdAt: now,
          createdBy: owner?.by ?? null,
          createdByName: owner?.name ?? null,
        })
        .returning(),
    ),
  );
  return toApiToken(row);
}

/** Every token, or only those `createdBy` minted. */
export async function listApiTokens(store: Store, createdBy?: string): Promise<ApiToken[]> {
  const { apiTokens } = store.t;
  return (
    await store.read((db) =>
      db
        .select()
        .from(apiTokens)
        .where(createdBy !== undefined ? eq(apiTokens.createdBy, createdBy) : undefined)
        .orderBy(desc(apiTokens.createdAt)),
    )
  ).map(toApiToken);
}

/** One token (never its secret). */
export async function getApiToken(store: Store, id: string): Promise<ApiToken> {
  const { apiTokens } = store.t;
  const [row] = await store.read((db) => db.select().from(apiTokens).where(eq(apiTokens.id, id)));
  if (!row) throw new NotFoundError('token', id);
  return toApiToken(row);
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

/** The live tokens (not revoked, not expired by `now`) that `createdBy` minted, newest first. */
export async function listLiveOwnedTokens(store: Store, createdBy: string, now: number): Promise<ApiToken[]> {
  return (await listApiTokens(store, createdBy)).filter(
    (t) => t.revokedAt === null && (t.expiresAt === null || t.expiresAt > now),
  );
}

/** Sets a live token's scope (lowered when its owner's role fell); returns it. */
export async function setTokenScope(store: Store, id: string, scope: TokenScope): Promise<ApiToken> {
  const { apiTokens } = store.t;
  const [row] = await store.write((tx) =>
    tx
      .update(apiTokens)
      .set({ scope })
      .where(and(eq(apiTokens.id, id), isNull(apiTokens.revokedAt)))
      .returning(),
  );
  if (!row) throw new NotFoundError('token', id);
  return toApiToken(row);
}

export interface TokenIdentity {
  id: string;
  name: string;
  scope: TokenScope;
}

// lastUsedAt is a hint, not an audit log: writing it at most once a minute keeps reads from becoming writes.
const LAST_USED_RESOLUTION_MS = 60_000;

/** The live token whose secret has this hash, or null (unknown, revoked or expired by `now`). */
export async function findLiveTokenByHash(
  store: Store,
  hash: string,
  now: number = Date.now(),
): Promise<TokenIdentity | null> {
  const { apiTokens } = store.t;
  const [row] = await store.read((db) =>
    db
      .select()
      .from(apiTokens)
      .where(and(eq(apiTokens.hash, hash), isNull(apiTokens.revokedAt))),
  );
  if (!row) return null;
  if (row.expiresAt !== null && row.expiresAt <= now) return null;
  if (row.lastUsedAt === null || now - row.lastUsedAt >= LAST_USED_RESOLUTION_MS) {
    await store.write((db) => db.update(apiTokens).set({ lastUsedAt: now }).where(eq(apiTokens.id, row.id)));
  }
  return { id: row.id, name: row.name, scope: row.scope };
}
