// A balancer's nodes for the matrix, without evidence (auth as for API reads). See lib/api/reads.ts.
import { readRoute } from '@/lib/api/reads';

export const dynamic = 'force-dynamic';

export const GET = readRoute('dashboardBalancerNodes');
