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
});
export type CreateTokenInput = z.input<typeof CreateTokenInput>;

export const ApiToken = z
  .object({
    id: z.string(),
    name: z.string(),
    scope: z.enum(TOKEN_SCOPES),
    prefix: z.string().meta({ description: 'the first characters of the token, for telling tokens apart' }),
    createdAt: Timestamp,
    lastUsedAt: Timestamp.nullable(),
    revokedAt: Timestamp.nullable(),
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
