import type { Metadata, Viewport } from 'next';
import { cookies } from 'next/headers';
import Link from 'next/link';
import type { ReactNode } from 'react';
import { Nav } from '@/components/nav';
import { Providers } from '@/components/providers';
import { SessionStatus } from '@/components/session/session-status';
import { THEME_SCRIPT, ThemeToggle } from '@/components/theme-toggle';
import { currentAuthMode } from '@/lib/auth/mode';
import { SESSION_COOKIE, verifySession } from '@/lib/auth/session';
import type { UserRole } from '@/lib/schemas/session';
import { processSettings } from '@/lib/settings';
import './globals.css';

// Every screen shows live fleet data, and the refresh interval comes from the settings at run time.
export const dynamic = 'force-dynamic';

export const metadata: Metadata = {
  title: { default: 'Erawatch', template: '%s · Erawatch' },
  description: 'MCP era rollout monitor',
  // Both files are served from public/: the SVG for browsers that take one, the ICO for the rest.
  icons: {
    icon: [
      { url: '/icon.svg', type: 'image/svg+xml' },
      { url: '/favicon.ico', sizes: '16x16 32x32 48x48' },
    ],
    shortcut: '/favicon.ico',
  },
};

export const viewport: Viewport = {
  width: 'device-width',
  initialScale: 1,
  colorScheme: 'light dark',
  themeColor: '#14181d',
};

/** The role the session cookie carries (admin in local mode), so role-dependent nav links are in the first paint. */
async function roleOfCookie(): Promise<UserRole | null> {
  const mode = currentAuthMode(processSettings());
  if (mode.local) return 'admin';
  const value = (await cookies()).get(SESSION_COOKIE)?.value;
  if (!value || mode.adminSecret === null) return null;
  return verifySession(value, mode.adminSecret, Date.now())?.role ?? null;
}

export default async function RootLayout({ children }: { children: ReactNode }) {
  const role = await roleOfCookie();
  return (
    // The theme script sets data-theme on <html> before hydration; React is told not to mind.
    <html lang="en" suppressHydrationWarning>
      <head>
        <script dangerouslySetInnerHTML={{ __html: THEME_SCRIPT }} />
      </head>
      <body>
        <a className="skip-link" href="#main">
          Skip to content
        </a>
        <Providers refreshMs={processSettings().uiRefreshMs}>
          <header className="topbar">
            <Link href="/" className="brand">
              <svg className="brand-mark" viewBox="0 0 16 16" width="18" height="18" aria-hidden="true">
                <circle cx="8" cy="8" r="7" fill="none" stroke="currentColor" strokeWidth="1.6" />
                <path d="M8 1a7 7 0 0 1 0 14z" fill="currentColor" />
              </svg>
              Erawatch
            </Link>
            <Nav serverRole={role} />
            <span className="topbar-note">MCP era rollout monitor · target revision 2026-07-28</span>
            <ThemeToggle />
            <SessionStatus />
          </header>
          <main id="main" className="main">
            {children}
          </main>
        </Providers>
      </body>
    </html>
  );
}
