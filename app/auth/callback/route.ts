// Single sign-on: the provider's redirect back, with the code (lib/api/sso.ts).
import { ssoCallbackHandler } from '@/lib/api/sso';

export const dynamic = 'force-dynamic';

export const GET = ssoCallbackHandler();
