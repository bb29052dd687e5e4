import { readRoute } from '@/lib/api/reads';
import { route } from '@/lib/api/route';
import { refuseStdioWrite } from '@/lib/api/stdio-read-only';

export const dynamic = 'force-dynamic';

export const GET = readRoute('getStdioTarget');

export const POST = route('postStdioTarget', refuseStdioWrite);
export const PUT = route('putStdioTarget', refuseStdioWrite);
export const PATCH = route('patchStdioTarget', refuseStdioWrite);
export const DELETE = route('deleteStdioTarget', refuseStdioWrite);
