// A balancer's claim held by a process of this host that was killed (kill -9: it never releases) is taken at
// once, not after its TTL; a live holder's claim, or one from another host, is waited for as before.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore, type Store } from '@/db';
import { claimSubject, subjectHolder } from '@/db/queries/claims';
import { newClaimHolder, withSubjectClaim } from '@/lib/poller/claim';
import { storeLocation } from '../../support/store';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'erawatch-claims-'));
let store: Store;
const live = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
let deadPid = 0;

beforeAll(async () => {
  store = await openStore(await storeLocation(dir, 'claims.db'));
  const dead = spawn(process.execPath, ['-e', ''], { stdio: 'ignore' });
  await new Promise((r) => dead.once('exit', r));
  deadPid = dead.pid ?? 0;
  expect(deadPid).toBeGreaterThan(0);
});

afterAll(async () => {
  live.kill('SIGKILL');
  await store.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

/** Someone else's claim on `subject`, held for a minute. */
async function heldBy(subject: string, holder: string): Promise<void> {
  expect(await claimSubject(store, subject, holder, 60_000, Date.now())).toBe(true);
}

describe('subject claims of gone holders', () => {
  it('takes the claim of a killed process on this host at once', async () => {
    const gone = `poll:${os.hostname()}:${deadPid}:a1b2c3`;
    await heldBy('b:killed', gone);
    const me = newClaimHolder('poll');
    const ran = await withSubjectClaim(store, 'b:killed', me, async () => subjectHolder(store, 'b:killed'));
    expect(ran).toBe(me);
  });

  it.each([
    ['a live process on this host', () => `poll:${os.hostname()}:${live.pid ?? 0}:a1b2c3`],
    ['a process on another host', () => `poll:elsewhere.invalid:${deadPid}:a1b2c3`],
    ['a holder it cannot read', () => `maintain:${os.hostname()}:${deadPid}:a1b2c3:1780000000000`],
  ])('leaves the claim of %s alone until it expires', async (_what, holder) => {
    const subject = `b:${Math.random().toString(36).slice(2)}`;
    await heldBy(subject, holder());
    const ran = await withSubjectClaim(store, subject, newClaimHolder('poll'), async () => 'ran');
    expect(ran).toBeNull();
    expect(await subjectHolder(store, subject)).toBe(holder());
  });
});
