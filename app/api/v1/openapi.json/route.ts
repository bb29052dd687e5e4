import { buildOpenApiDocument } from '@/lib/api/openapi';
import { route } from '@/lib/api/route';
import { json } from '@/lib/api/with-api';

export const dynamic = 'force-dynamic';

export const GET = route('getOpenApiDocument', () => json(buildOpenApiDocument('1.0.0')));
