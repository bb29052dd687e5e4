import { readRoute } from '@/lib/api/reads';

export const dynamic = 'force-dynamic';

export const GET = readRoute('getNode');
