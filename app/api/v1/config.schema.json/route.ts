import { route } from '@/lib/api/route';
import { json } from '@/lib/api/with-api';
import { configJsonSchema } from '@/lib/schemas/config';

export const dynamic = 'force-dynamic';

/** Point an editor's YAML language server here to validate erawatch.config.yaml. */
export const GET = route('getConfigSchema', () => json(configJsonSchema()));
