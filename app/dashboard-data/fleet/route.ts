// The fleet overview's rows in one response (auth as for API reads). The read is lib/api/reads.ts's.
import { readRoute } from '@/lib/api/reads';

export const dynamic = 'force-dynamic';

export const GET = readRoute('dashboardFleet');
