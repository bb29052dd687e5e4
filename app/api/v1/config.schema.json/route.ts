import { json, withApi } from '@/lib/api/with-api';
import { configJsonSchema } from '@/lib/schemas/config';

export const dynamic = 'force-dynamic';

/** Point an editor's YAML language server here to validate erawatch.config.yaml. */
export const GET = withApi('public', () => json(configJsonSchema()));
