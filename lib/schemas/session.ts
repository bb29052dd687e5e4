// Dashboard login contract. Client-safe.
import { z } from 'zod';
import { Timestamp } from './common';

export const LoginInput = z
  .strictObject({ secret: z.string().min(1, 'is required').max(1000) })
  .meta({ id: 'Login' });

export const SessionState = z
  .object({
    authenticated: z.boolean(),
    via: z.string().optional().meta({ description: 'secret, session, token, local or anonymous' }),
    loginRequired: z.boolean().optional(),
    expiresAt: Timestamp.optional(),
  })
  .meta({ id: 'Session' });
