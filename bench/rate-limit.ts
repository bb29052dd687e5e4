// `npm run bench -- rate-limit [--requests 1500] [--per-minute 30]`: what refused requests cost. One read token
// sends `--requests` GETs of /api/v1/balancers in a row to the route handler (real SQLite file in a temp dir)
// under ERAWATCH_RATE_LIMIT=--per-minute, so nearly all are refused; prints the counts and the time taken.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { parseSettings, setProcessSettings, processSettings } from '@/lib/settings';

export async function run(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      requests: { type: 'string', default: '1500' },
      'per-minute': { type: 'string', default: '30' },
    },
  });
  const requests = Number(values.requests);
  const perMinute = Number(values['per-minute']);
  if (!Number.isInteger(requests) || requests < 1 || !Number.isInteger(perMinute) || perMinute < 1) {
    process.stderr.write('bench rate-limit: --requests and --per-minute must be positive integers\n');
    return 2;
  }
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'erawatch-bench-limit-'));
  // The routes run in this process: they take these settings as the process's own.
  setProcessSettings(
    parseSettings({
      ERAWATCH_DB: path.join(dir, 'bench.db'),
      ERAWATCH_ADMIN_SECRET: 'bench-admin-secret-0123456789abcdef',
      ERAWATCH_BIND: '127.0.0.1',
      ERAWATCH_RATE_LIMIT: String(perMinute),
      ERAWATCH_AUTH_FAILURE_LIMIT: '0',
    }),
  );
  const { getStore } = await import('@/db/index');
  const { createApiToken } = await import('@/lib/auth/api-tokens');
  const { GET } = await import('@/app/api/v1/balancers/route');
  try {
    const { token } = await createApiToken(await getStore({ settings: processSettings() }), {
      name: 'bench',
      scope: 'read',
    });
    const statuses = new Map<number, number>();
    const send = () =>
      GET(
        new Request('http://127.0.0.1:3000/api/v1/balancers', {
          headers: { host: '127.0.0.1:3000', authorization: `Bearer ${token}` },
        }),
      );
    // Warm the module and the statement caches outside the measurement, then start from a full bucket.
    await (await send()).text();
    const { resetRateLimiters } = await import('@/lib/api/rate-limit');
    resetRateLimiters();
    const t0 = performance.now();
    for (let i = 0; i < requests; i++) {
      const res = await send();
      await res.text();
      statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
    }
    const ms = performance.now() - t0;
    const refused = statuses.get(429) ?? 0;
    const summary = {
      requests,
      perMinute,
      statuses: Object.fromEntries(statuses),
      refusedShare: Number((refused / requests).toFixed(3)),
      totalMs: Number(ms.toFixed(1)),
      perRequestUs: Number(((ms * 1000) / requests).toFixed(1)),
    };
    process.stdout.write(`${JSON.stringify(summary, null, 2)}\n`);
    return 0;
  } finally {
    await (await getStore({ settings: processSettings() })).close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
