// Dashboard login contract. Client-safe.
import { z } from 'zod';
import { Timestamp } from './common';

export const LoginInput = z
  .strictObject({ secret: z.string().min(1, 'is required').max(1000) })
  .meta({ id: 'Login' });

/** What a person may do, lowest first: viewer reads, operator also changes the fleet, admin also tokens, sessions and audit. */
export const USER_ROLES = ['viewer', 'operator', 'admin'] as const;
export type UserRole = (typeof USER_ROLES)[number];

export const SessionUser = z
  .object({ sub: z.string(), email: z.string().nullable(), name: z.string().nullable() })
  .meta({ id: 'SessionUser' });
export type SessionUser = z.infer<typeof SessionUser>;

export const SessionState = z
  .object({
    authenticated: z.boolean(),
    via: z.string().optional().meta({ description: 'secret, session, token, local or anonymous' }),
    loginRequired: z.boolean().optional(),
    expiresAt: Timestamp.optional(),
    role: z
      .enum(USER_ROLES)
      .nullable()
      .optional()
      .meta({ description: 'what the caller may do; null when anonymous' }),
    user: SessionUser.nullable()
      .optional()
      .meta({ description: 'the signed-in person; null for the admin secret, a token or local mode' }),
    endSessionUrl: z.string().optional().meta({
      description: "on logout of a single sign-on user: the provider's logout, for the browser to visit",
    }),
    sso: z.boolean().optional().meta({ description: 'single sign-on is set up: the login page offers it' }),
  })
  .meta({ id: 'Session' });

/** How a dashboard session was issued: single sign-on, or the admin secret's break-glass login. */
export const SESSION_ISSUERS = ['sso', 'admin_secret'] as const;
export type SessionIssuer = (typeof SESSION_ISSUERS)[number];

/** A live dashboard session, as an admin lists it (GET /api/v1/sessions). */
export const DashboardSession = z
  .object({
    id: z.string().meta({ description: 'the session id: what DELETE /api/v1/sessions/{id} ends' }),
    issuedVia: z.enum(SESSION_ISSUERS).meta({
      description: 'sso (single sign-on) or admin_secret (the break-glass login)',
    }),
    role: z.enum(USER_ROLES),
    user: SessionUser.nullable().meta({ description: 'the signed-in person; null for the admin secret' }),
    address: z
      .string()
      .nullable()
      .meta({ description: 'the client address it was issued to, after the trusted-proxy rule' }),
    issuedAt: Timestamp,
    expiresAt: Timestamp,
    current: z.boolean().meta({ description: "the caller's own session" }),
  })
  .meta({ id: 'DashboardSession' });
export type DashboardSession = z.infer<typeof DashboardSession>;
