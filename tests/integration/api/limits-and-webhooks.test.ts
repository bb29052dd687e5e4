// Rate limits (429) and the webhook routes (test-send, delivery log, redeliver, rotation) through the handlers.
import { processSettings } from '@/lib/settings';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stampClientAddress } from '@/lib/api/front-door';
import { startReceiver, type Receiver } from '../webhooks/receiver';
import { storeLocation } from '../../support/store';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'erawatch-limits-'));
process.env.ERAWATCH_DB = await storeLocation(dir, 'limits.db');
process.env.ERAWATCH_ADMIN_SECRET = 'limits-admin-secret-0123456789ab';
process.env.ERAWATCH_BIND = '127.0.0.1';
process.env.ERAWATCH_ALLOW_LOOPBACK = '1';

type Handler = (req: Request, ctx?: { params: Promise<Record<string, string>> }) => Promise<Response>;
const ADMIN = process.env.ERAWATCH_ADMIN_SECRET;
let receiver: Receiver;

function request(url: string, init: { method?: string; token?: string; body?: unknown } = {}) {
  const headers: Record<string, string> = { host: '127.0.0.1:3999' };
  if (init.token) headers.authorization = `Bearer ${init.token}`;
  if (init.body !== undefined) headers['content-type'] = 'application/json';
  return new Request(`http://127.0.0.1:3999${url}`, {
    method: init.method ?? 'GET',
    headers,
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });
}

async function handler(mod: Promise<unknown>, method: string): Promise<Handler> {
  const h = ((await mod) as Record<string, Handler | undefined>)[method];
  if (!h) throw new Error(`no ${method}`);
  return h;
}

const params = (p: Record<string, string>) => ({ params: Promise.resolve(p) });

beforeAll(async () => {
  receiver = await startReceiver();
});

async function limitTo(perMinute: string, failuresPerMinute: string) {
  process.env.ERAWATCH_RATE_LIMIT = perMinute;
  process.env.ERAWATCH_AUTH_FAILURE_LIMIT = failuresPerMinute;
  const { resetRateLimiters } = await import('@/lib/api/rate-limit');
  (await import('@/lib/settings')).resetProcessSettings();
  resetRateLimiters();
}

afterAll(async () => {
  await receiver.close();
  const { getStore } = await import('@/db/index');
  await (await getStore({ settings: processSettings() })).close();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('webhook routes', () => {
  it('test-send delivers a signed webhook.test; the log shows it; redeliver queues it again; rotation returns the new secret once', async () => {
    await limitTo('0', '0');
    const create = await handler(import('@/app/api/v1/webhooks/route'), 'POST');
    const res = await create(
      request('/api/v1/webhooks', {
        method: 'POST',
        token: ADMIN,
        body: { name: 'route-hook', url: receiver.url('/ok') },
      }),
    );
    expect(res.status).toBe(201);
    const hook = (await res.json()) as { id: string; secret: string };
    expect(hook.secret).toMatch(/^whsec_/);

    const get = await handler(import('@/app/api/v1/webhooks/[id]/route'), 'GET');
    const shown = await (
      await get(request(`/api/v1/webhooks/${hook.id}`, { token: ADMIN }), params({ id: hook.id }))
    ).text();
    expect(shown).not.toContain(hook.secret);
    expect(shown).not.toContain('"secret"');

    const test = await handler(import('@/app/api/v1/webhooks/[id]/test/route'), 'POST');
    const sent = await test(
      request(`/api/v1/webhooks/${hook.id}/test`, { method: 'POST', token: ADMIN }),
      params({ id: hook.id }),
    );
    expect(sent.status).toBe(200);
    const attempt = (await sent.json()) as { deliveryId: string; outcome: string; httpStatus: number };
    expect(attempt).toMatchObject({ outcome: 'ok', httpStatus: 204 });
    const got = receiver.received.at(-1);
    expect(
      new Webhook(hook.secret).verify(got?.body ?? '', got?.headers as Record<string, string>),
    ).toMatchObject({ type: 'webhook.test' });

    const log = await handler(import('@/app/api/v1/webhooks/[id]/deliveries/route'), 'GET');
    const page = (await (
      await log(request(`/api/v1/webhooks/${hook.id}/deliveries`, { token: ADMIN }), params({ id: hook.id }))
    ).json()) as {
      items: Array<{ id: string; status: string; log: Array<{ outcome: string }> }>;
    };
    expect(page.items.map((d) => [d.id, d.status, d.log.map((a) => a.outcome)])).toEqual([
      [attempt.deliveryId, 'succeeded', ['ok']],
    ]);

    const again = await handler(
      import('@/app/api/v1/webhooks/[id]/deliveries/[deliveryId]/redeliver/route'),
      'POST',
    );
    const queued = await again(
      request('/x', { method: 'POST', token: ADMIN }),
      params({ id: hook.id, deliveryId: attempt.deliveryId }),
    );
    expect(queued.status).toBe(202);
    expect(await queued.json()).toMatchObject({ id: attempt.deliveryId, status: 'pending', attempts: 0 });
    const missing = await again(
      request('/x', { method: 'POST', token: ADMIN }),
      params({ id: hook.id, deliveryId: 'msg_nope' }),
    );
    expect(missing.status).toBe(404);
    expect(((await missing.json()) as { detail: string }).detail).toContain('msg_nope');

    const rotate = await handler(import('@/app/api/v1/webhooks/[id]/rotate-secret/route'), 'POST');
    const rotated = (await (
      await rotate(
        request('/x', { method: 'POST', token: ADMIN, body: { overlapMs: 60_000 } }),
        params({ id: hook.id }),
      )
    ).json()) as {
      secret: string;
      secretRotating: boolean;
    };
    expect(rotated.secret).toMatch(/^whsec_/);
    expect(rotated.secret).not.toBe(hook.secret);
    expect(rotated.secretRotating).toBe(true);
  });
});

describe('rate limits', () => {
  it('answers 429 with Retry-After once a caller exceeds its burst', async () => {
    await limitTo('3', '9');
    const list = await handler(import('@/app/api/v1/balancers/route'), 'GET');
    const statuses: number[] = [];
    let limited: Response | null = null;
    for (let i = 0; i < 10; i++) {
      const res = await list(request('/api/v1/balancers', { token: ADMIN }));
      statuses.push(res.status);
      if (res.status === 429) limited = res;
    }
    // ERAWATCH_RATE_LIMIT=3 per minute: three at once, then one every 20 s.
    expect(statuses).toEqual([200, 200, 200, 429, 429, 429, 429, 429, 429, 429]);
    expect(limited?.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(await limited?.json()).toMatchObject({
      status: 429,
      type: 'https://erawatch.dev/problems/rate_limited',
    });
  });

  it('answers 429 after repeated failed tokens, even to a good one; another client still gets in', async () => {
    await limitTo('30', '3');
    const list = await handler(import('@/app/api/v1/balancers/route'), 'GET');
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++)
      statuses.push(
        (await list(request('/api/v1/balancers', { token: `ewt_read_${'x'.repeat(32)}` }))).status,
      );
    // 3 failures per minute: the fourth attempt is refused before its token is looked at.
    expect(statuses).toEqual([401, 401, 401, 429, 429]);
    expect((await list(request('/api/v1/balancers', { token: ADMIN }))).status).toBe(429);
    const other = request('/api/v1/balancers', { token: ADMIN });
    stampClientAddress(other.headers, '10.0.0.77');
    expect((await list(other)).status).toBe(200);
  });
});
