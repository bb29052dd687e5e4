// Single sign-on: sends the browser to the OpenID Connect provider (lib/api/sso.ts).
import { ssoLoginHandler } from '@/lib/api/sso';

export const dynamic = 'force-dynamic';

export const GET = ssoLoginHandler();
