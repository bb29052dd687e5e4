// The front door of every route, pages, API and /readyz alike (Next.js runs it before routing): a request
// that came in beyond the concurrency limit is answered 429 at once, and one for a host name this server does
// not answer is refused (the DNS-rebinding defence). /healthz answers any Host, for container health checks.
// A page asked for without a dashboard session, on a server that needs a login, is sent to /login?next=…;
// the API keeps answering 401 (see lib/auth/page-gate.ts).
import { NextResponse, type NextRequest } from 'next/server';
import { currentAuthMode, hostRefusal } from '@/lib/auth/mode';
import { loginRedirectFor } from '@/lib/auth/page-gate';
import { arrivedOverloaded } from '@/lib/api/front-door';
import { buildProblem, problemResponse } from '@/lib/api/problem';
import { processSettings } from '@/lib/settings';

export function proxy(req: NextRequest): Response {
  if (arrivedOverloaded(req.headers)) {
    return problemResponse(
      buildProblem(429, 'overloaded', 'the server is serving as many requests as it may; retry in 1 s'),
      { 'retry-after': '1' },
    );
  }
  if (req.nextUrl.pathname === '/healthz') return NextResponse.next();
  const mode = currentAuthMode(processSettings());
  const refusal = hostRefusal(req.headers.get('host') ?? req.nextUrl.host, mode);
  if (refusal) return problemResponse(buildProblem(403, refusal.code, refusal.detail));
  const login = loginRedirectFor(req, mode, Date.now());
  if (login) return NextResponse.redirect(new URL(login, req.nextUrl), 307);
  return NextResponse.next();
}

export const config = {
  // Static build assets carry no data; everything else goes through the door.
  matcher: ['/((?!_next/static|_next/image|favicon.ico).*)'],
};
