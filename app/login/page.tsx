import type { Metadata } from 'next';
import { LoginForm } from '@/components/session/login-form';
import { Icon } from '@/components/ui/icon';
import Link from 'next/link';
import { currentAuthMode } from '@/lib/auth/mode';
import { loginRequirement } from '@/lib/auth/page-gate';
import { oidcSettingsOf } from '@/lib/auth/oidc-config';
import { processSettings } from '@/lib/settings';

export const metadata: Metadata = { title: 'Log in' };

/** Only same-site paths are followed after login, never another origin. */
function safeNext(value: string | string[] | undefined): string {
  return typeof value === 'string' && /^\/(?!\/)[^\s\\]*$/.test(value) ? value : '/';
}

/** What the login page says when single sign-on was refused (the code comes from /auth/callback). */
const REFUSALS: Record<string, string> = {
  no_role:
    'Your account is in none of the groups this Erawatch gives a role to, so no session was made. Ask an administrator to add you to a viewer, operator or admin group.',
  state_mismatch: 'The answer from the identity provider was not for this sign-in. Start it again.',
  no_transaction: 'The sign-in was not started here, or took longer than 10 minutes. Start it again.',
  code_refused: 'The identity provider refused the sign-in code (used already, or expired). Start it again.',
  id_token_invalid:
    'The identity provider’s ID token did not pass the checks. The server log has the details.',
  provider_error: 'The identity provider refused the sign-in.',
  userinfo_failed: 'The identity provider’s userinfo could not be read. The server log has the details.',
  discovery_failed:
    'The identity provider could not be reached or discovered. The server log has the details.',
  sso_not_set: 'Single sign-on is not set up on this server.',
  no_admin_secret: 'Single sign-on needs ERAWATCH_ADMIN_SECRET on the server (it signs the sessions).',
};

export default async function LoginPage({
  searchParams,
}: {
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const params = await searchParams;
  const next = safeNext(params.next);
  const refused = typeof params.refused === 'string' ? params.refused : null;
  const settings = processSettings();
  const sso = oidcSettingsOf(settings) !== null;
  const mode = currentAuthMode(settings);
  return (
    <>
      <div className="page-head">
        <h1>Log in</h1>
        <span className="sub" data-testid="login-requirement">
          {loginRequirement(mode, sso)}
        </span>
      </div>
      {refused ? (
        <div className="notice tone-bad" role="alert" data-testid="sso-refused" data-code={refused}>
          <Icon name="alert" /> {REFUSALS[refused] ?? 'The sign-in was refused.'}
        </div>
      ) : null}
      {mode.local ? (
        <p>
          <Link href={next}>Go to the dashboard</Link>
        </p>
      ) : (
        <div className="login-choices">
          {sso ? (
            <div className="panel panel-body">
              <a className="btn btn-primary" href={`/auth/login?next=${encodeURIComponent(next)}`}>
                Sign in with single sign-on
              </a>
            </div>
          ) : null}
          {sso ? (
            <details>
              <summary>Break-glass: log in with the admin secret</summary>
              <LoginForm next={next} />
            </details>
          ) : (
            <LoginForm next={next} />
          )}
        </div>
      )}
    </>
  );
}
