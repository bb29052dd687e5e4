// Single sign-on: sends the browser to the OpenID Connect provider (lib/api/sso.ts).
import { route } from '@/lib/api/route';
import { ssoLoginHandler } from '@/lib/api/sso';

export const dynamic = 'force-dynamic';

const handler = ssoLoginHandler();

export const GET = route('startSignIn', ({ req }) => handler(req));
