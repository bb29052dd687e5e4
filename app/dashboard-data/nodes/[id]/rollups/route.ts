// A node's latency chart (auth as for API reads): minute buckets for six hours, hourly rollups for the week
// before. The read is lib/api/reads.ts's.
import { readRoute } from '@/lib/api/reads';

export const dynamic = 'force-dynamic';

export const GET = readRoute('dashboardNodeRollups');
