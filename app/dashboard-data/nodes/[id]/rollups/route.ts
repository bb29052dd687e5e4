// A node's latency chart (auth as for API reads): minute buckets for the last six hours, where the poller has
// them, and hourly rollups for the 31 days before (the node page's range picker reaches 30 days). The read is lib/api/reads.ts's.
import { readRoute } from '@/lib/api/reads';

export const dynamic = 'force-dynamic';

export const GET = readRoute('dashboardNodeRollups');
