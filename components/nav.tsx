'use client';
import Link from 'next/link';
import { usePathname } from 'next/navigation';
import { useRole } from '@/components/session/role';

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

export function Nav() {
  const pathname = usePathname();
  const { role } = useRole();
  return (
    <nav aria-label="Main" className="nav">
      {LINKS.filter((l) => !('admin' in l) || role === 'admin').map((l) => {
        const active = l.match(pathname);
        return (
          <Link key={l.href} href={l.href} aria-current={active ? 'page' : undefined} className="nav-link">
            {l.label}
          </Link>
        );
      })}
    </nav>
  );
}
