import type { Metadata } from 'next';
import { LoginForm } from '@/components/session/login-form';

export const metadata: Metadata = { title: 'Log in' };

/** Only same-site paths are followed after login, never another origin. */
function safeNext(value: string | string[] | undefined): string {
  return typeof value === 'string' && /^\/(?!\/)[^\s\\]*$/.test(value) ? value : '/';
}

export default async function LoginPage({
  searchParams,
}: {
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const next = safeNext((await searchParams).next);
  return (
    <>
      <div className="page-head">
        <h1>Log in</h1>
        <span className="sub">
          This Erawatch listens beyond loopback, so the dashboard needs the admin secret.
        </span>
      </div>
      <LoginForm next={next} />
    </>
  );
}
