import { readRoute } from '@/lib/api/reads';
import { route } from '@/lib/api/route';
import { refuseStdioWrite } from '@/lib/api/stdio-read-only';

export const dynamic = 'force-dynamic';

export const GET = readRoute('listStdioTargets');

export const POST = route('postStdioTargets', refuseStdioWrite);
export const PUT = route('putStdioTargets', refuseStdioWrite);
export const PATCH = route('patchStdioTargets', refuseStdioWrite);
export const DELETE = route('deleteStdioTargets', refuseStdioWrite);
