'use client';
import Link from 'next/link';
import { usePathname } from 'next/navigation';

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
];

export function Nav() {
  const pathname = usePathname();
  return (
    <nav aria-label="Main" className="nav">
      {LINKS.map((l) => {
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
