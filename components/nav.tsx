'use client';
import Link from 'next/link';
import { usePathname } from 'next/navigation';
import { useEffect, useId, useRef, useState } from 'react';
import { useSessionInfo } from '@/components/session/role';
import type { UserRole } from '@/lib/schemas/session';

const LINKS = [
  {
    href: '/',
    label: 'Fleet',
    match: (p: string) => p === '/' || p.startsWith('/balancers') || p.startsWith('/nodes'),
  },
  { href: '/stdio', label: 'stdio servers', match: (p: string) => p.startsWith('/stdio') },
  { href: '/events', label: 'Events', match: (p: string) => p.startsWith('/events') },
  { href: '/webhooks', label: 'Webhooks', match: (p: string) => p.startsWith('/webhooks') },
  { href: '/alert-sinks', label: 'Alert sinks', match: (p: string) => p.startsWith('/alert-sinks') },
  { href: '/settings', label: 'Settings', match: (p: string) => p.startsWith('/settings') },
  { href: '/audit', label: 'Audit', match: (p: string) => p.startsWith('/audit'), admin: true },
];

/**
 * The main navigation. `serverRole` is the role the layout read from the session cookie, so role-dependent
 * links are in the first paint and nothing moves when the session query answers. Below 1100 px the links fold
 * into a menu opened by a button.
 */
export function Nav({ serverRole }: { serverRole: UserRole | null }) {
  const pathname = usePathname();
  const session = useSessionInfo();
  const role = session.data ? session.data.role : serverRole;
  const [open, setOpen] = useState(false);
  const [openedAt, setOpenedAt] = useState(pathname);
  const listId = useId();
  const buttonRef = useRef<HTMLButtonElement>(null);
  // A navigation closes the menu (React's "adjust state while rendering" pattern: no effect, no extra paint).
  if (openedAt !== pathname) {
    setOpenedAt(pathname);
    setOpen(false);
  }
  useEffect(() => {
    if (!open) return;
    const onKey = (e: KeyboardEvent) => {
      if (e.key === 'Escape') {
        setOpen(false);
        buttonRef.current?.focus();
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [open]);
  const current = LINKS.find((l) => l.match(pathname));
  return (
    <nav aria-label="Main" className={`nav${open ? ' is-open' : ''}`}>
      <button
        ref={buttonRef}
        type="button"
        className="btn btn-small topbar-btn nav-toggle"
        aria-expanded={open}
        aria-controls={listId}
        onClick={() => setOpen((o) => !o)}
      >
        <svg viewBox="0 0 16 16" width="14" height="14" aria-hidden="true" className="icon">
          <path
            d={open ? 'M3.5 3.5l9 9M12.5 3.5l-9 9' : 'M2 4h12M2 8h12M2 12h12'}
            stroke="currentColor"
            strokeWidth="1.8"
            strokeLinecap="round"
            fill="none"
          />
        </svg>
        <span className="topbar-label">Menu</span>
        {current ? <span className="nav-current">· {current.label}</span> : null}
      </button>
      <ul id={listId} className="nav-list">
        {LINKS.filter((l) => !('admin' in l) || role === 'admin').map((l) => {
          const active = l.match(pathname);
          return (
            <li key={l.href}>
              <Link href={l.href} aria-current={active ? 'page' : undefined} className="nav-link">
                {l.label}
              </Link>
            </li>
          );
        })}
      </ul>
    </nav>
  );
}
