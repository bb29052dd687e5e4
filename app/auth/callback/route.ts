// Single sign-on: the provider's redirect back, with the code (lib/api/sso.ts).
import { route } from '@/lib/api/route';
import { ssoCallbackHandler } from '@/lib/api/sso';

export const dynamic = 'force-dynamic';

const handler = ssoCallbackHandler();

export const GET = route('finishSignIn', ({ req }) => handler(req));
