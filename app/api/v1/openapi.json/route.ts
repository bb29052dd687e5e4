import { buildOpenApiDocument } from '@/lib/api/openapi';
import { json, withApi } from '@/lib/api/with-api';

export const dynamic = 'force-dynamic';

export const GET = withApi('public', () => json(buildOpenApiDocument('1.0.0')));
