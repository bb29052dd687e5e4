// A balancer's nodes, filtered, sorted and paged (the query is lib/schemas/node-query.ts's); answered with an
// ETag, so a client that polls it pays a 304 while nothing changed. The read is lib/api/reads.ts's.
import { readRoute } from '@/lib/api/reads';

export const dynamic = 'force-dynamic';

export const GET = readRoute('listBalancerNodes');
