// API token contract. Client-safe. The secret appears only in CreatedApiToken, the creation response.
import { z } from 'zod';
import { Timestamp, withoutControlCharacters } from './common';

export const TOKEN_SCOPES = ['read', 'write'] as const;
export type TokenScope = (typeof TOKEN_SCOPES)[number];

export const CreateTokenInput = z.strictObject({
  name: withoutControlCharacters(
    z.string().trim().min(1, 'is required').max(100, 'must be at most 100 characters'),
  ),
  scope: z.enum(TOKEN_SCOPES, { error: 'must be read or write' }),
  expiresAt: z
    .union([
      z.int('must be epoch ms or an ISO 8601 date-time').min(0, 'must be epoch ms or an ISO 8601 date-time'),
      z.iso
        .datetime({ offset: true, error: 'must be epoch ms or an ISO 8601 date-time' })
        .transform((s) => Date.parse(s)),
    ])
    .nullable()
    .optional()
    .meta({
      description:
        'when the token stops working (epoch ms or ISO 8601), in the future and at most 5 years ahead; omitted or null: it does not expire',
    }),
});
export type CreateTokenInput = z.input<typeof CreateTokenInput>;

/** How far ahead a token's expiry may be set. */
export const MAX_TOKEN_LIFETIME_MS = 5 * 365 * 86_400_000;

/** Owner keys: `user:<sub>` for a single sign-on user, `admin` for the admin secret, `local` for local mode. */
export const TokenOwnerKey = withoutControlCharacters(
  z.string().min(1, 'is required').max(600, 'must be at most 600 characters'),
).refine(
  (v) => v === 'admin' || v === 'local' || (v.startsWith('user:') && v.length > 'user:'.length),
  'must be user:<sub>, admin or local',
);

export const TokenListQuery = z.strictObject({
  owner: TokenOwnerKey.optional().meta({
    description: "an admin's filter: only the tokens this person minted (createdBy, e.g. user:<sub>)",
  }),
});

export const RevokeOwnerTokensInput = z
  .strictObject({
    owner: TokenOwnerKey.meta({ description: 'whose tokens: their createdBy, e.g. user:<sub>' }),
  })
  .meta({ id: 'RevokeOwnerTokens' });

export const ApiToken = z
  .object({
    id: z.string(),
    name: z.string(),
    scope: z.enum(TOKEN_SCOPES),
    prefix: z.string().meta({ description: 'the first characters of the token, for telling tokens apart' }),
    createdAt: Timestamp,
    lastUsedAt: Timestamp.nullable(),
    revokedAt: Timestamp.nullable(),
    expiresAt: Timestamp.nullable().meta({
      description: 'when it stops working; null: it does not expire. An expired token is refused (401)',
    }),
    createdBy: z.string().nullable().meta({
      description:
        'who minted it: user:<sub>, admin (the admin secret) or local; null for tokens older than owners',
    }),
    createdByName: z.string().nullable().meta({ description: 'their email or name when they minted it' }),
  })
  .meta({ id: 'ApiToken' });
export type ApiToken = z.infer<typeof ApiToken>;

export const CreatedApiToken = ApiToken.extend({
  token: z.string().meta({ description: 'the bearer token; shown only in this response' }),
}).meta({ id: 'CreatedApiToken' });
export type CreatedApiToken = z.infer<typeof CreatedApiToken>;
