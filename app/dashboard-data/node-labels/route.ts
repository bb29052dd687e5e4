// Labels (URL or attribution) for the node ids a list shows, e.g. the event log (auth as for API reads).
import { readRoute } from '@/lib/api/reads';

export const dynamic = 'force-dynamic';

export const GET = readRoute('dashboardNodeLabels');
