// Node names from remote parties (attribution headers, reverse DNS) are made safe; which source wins; and the
// reverse-DNS cache: bounded in time, kept for a TTL, failures too, at most so many addresses.
import { lookupService } from 'node:dns/promises';
import { describe, expect, it } from 'vitest';
import { nodeNameOf, remoteName, type NameFacts } from '@/lib/poller/node-names';
import { createReverseNames } from '@/lib/poller/reverse-dns';
import { systemReverseLookup } from '@/lib/poller/default-probe';
import { unavailableVerdict, type Verdict } from '@/lib/probe/types';

describe('remoteName', () => {
  it('escapes control characters and cuts to 80 characters without splitting an escape', () => {
    expect(remoteName('  pod-7  ')).toBe('pod-7');
    expect(remoteName('pod\u0007-7\u0085')).toBe('pod\\x07-7\\x85');
    expect(remoteName('')).toBeNull();
    expect(remoteName('   ')).toBeNull();
    expect(remoteName(null)).toBeNull();
    const long = remoteName('n'.repeat(200));
    expect(long).toHaveLength(80);
    expect(long?.endsWith('…')).toBe(true);
    expect(remoteName('n'.repeat(80))).toBe('n'.repeat(80));
    // An escape that would cross the bound is left out whole, not cut in half.
    const edge = remoteName(`${'n'.repeat(77)}\u0001tail`) ?? '';
    expect(edge).toBe(`${'n'.repeat(77)}…`);
    expect(remoteName('\ud800x')).toBe('\uFFFDx');
  });
});

describe('nodeNameOf', () => {
  const answered = (servedBy: string | null) => ({ verdict: 'modern', servedBy }) as unknown as Verdict;
  const down = unavailableVerdict('http://10.0.0.1/mcp', 'timeout', 0, null);
  const facts = (f: Partial<NameFacts>): NameFacts => ({
    origin: 'listed',
    configured: null,
    verdict: answered(null),
    servedBy: null,
    reverse: null,
    known: null,
    ...f,
  });

  it('takes the configured name, then the attribution value, then served-by or reverse DNS', () => {
    expect(nodeNameOf(facts({ configured: 'search-1', verdict: answered('pod-1') }))).toBe('search-1');
    expect(nodeNameOf(facts({ verdict: answered('pod-1') }))).toBe('pod-1');
    expect(nodeNameOf(facts({ origin: 'sample', verdict: null, servedBy: 'pod-9' }))).toBe('pod-9');
    expect(nodeNameOf(facts({ origin: 'dns', reverse: 'ip-10-0-0-1.internal' }))).toBe(
      'ip-10-0-0-1.internal',
    );
    expect(nodeNameOf(facts({ origin: 'dns', verdict: answered('pod-2'), reverse: 'x.internal' }))).toBe(
      'pod-2',
    );
  });

  it('a node that does not answer keeps the remote name it had; one that answers without a name has none', () => {
    expect(nodeNameOf(facts({ verdict: down, known: 'pod-1' }))).toBe('pod-1');
    expect(nodeNameOf(facts({ verdict: answered(null), known: 'pod-1' }))).toBeNull();
    expect(nodeNameOf(facts({ origin: 'dns', verdict: down, known: 'x.internal' }))).toBe('x.internal');
  });
});

/** A lookup the test answers by hand, counting the questions. */
function manualLookup() {
  const asked: string[] = [];
  const waiting = new Map<string, (name: string | null) => void>();
  return {
    asked,
    lookup: (address: string) =>
      new Promise<string | null>((resolve) => {
        asked.push(address);
        waiting.set(address, resolve);
      }),
    answer(address: string, name: string | null) {
      waiting.get(address)?.(name);
    },
  };
}

describe('createReverseNames', () => {
  it('keeps a name for its TTL and a failure for its own, then asks again', async () => {
    let t = 0;
    const answers: Record<string, string | Error> = { '10.0.0.1': 'a.internal', '10.0.0.2': new Error('nx') };
    const asked: string[] = [];
    const reverse = createReverseNames({
      lookup: async (a) => {
        asked.push(a);
        const v = answers[a];
        if (v instanceof Error) throw v;
        return v ?? null;
      },
      ttlMs: 1_000,
      failureTtlMs: 100,
      now: () => t,
    });
    expect(await reverse('10.0.0.1')).toBe('a.internal');
    expect(await reverse('10.0.0.2')).toBeNull();
    expect(await reverse('10.0.0.1')).toBe('a.internal');
    expect(await reverse('10.0.0.2')).toBeNull();
    expect(asked).toEqual(['10.0.0.1', '10.0.0.2']);
    t = 150; // the failure expired, the name did not
    answers['10.0.0.2'] = 'b.internal';
    expect(await reverse('10.0.0.2')).toBe('b.internal');
    expect(await reverse('10.0.0.1')).toBe('a.internal');
    expect(asked).toEqual(['10.0.0.1', '10.0.0.2', '10.0.0.2']);
    t = 1_200;
    expect(await reverse('10.0.0.1')).toBe('a.internal');
    expect(asked).toEqual(['10.0.0.1', '10.0.0.2', '10.0.0.2', '10.0.0.1']);
  });

  it('a lookup that does not answer in time is no name, kept as a failure; concurrent asks share one lookup', async () => {
    const m = manualLookup();
    const reverse = createReverseNames({ lookup: m.lookup, timeoutMs: 20, failureTtlMs: 60_000 });
    const [a, b] = await Promise.all([reverse('10.0.0.3'), reverse('10.0.0.3')]);
    expect([a, b]).toEqual([null, null]);
    expect(m.asked).toEqual(['10.0.0.3']);
    // The late answer changes nothing: the timeout's "no name" is what is kept.
    m.answer('10.0.0.3', 'late.internal');
    expect(await reverse('10.0.0.3')).toBeNull();
    expect(m.asked).toEqual(['10.0.0.3']);
  });

  it('holds at most maxEntries addresses, the oldest leaving first; the address itself is no name', async () => {
    const asked: string[] = [];
    const reverse = createReverseNames({
      lookup: async (a) => {
        asked.push(a);
        return a === '10.0.0.9' ? '10.0.0.9' : `host-${a}`;
      },
      maxEntries: 2,
    });
    await reverse('10.0.0.1');
    await reverse('10.0.0.2');
    await reverse('10.0.0.3'); // 10.0.0.1 leaves
    await reverse('10.0.0.3');
    await reverse('10.0.0.2');
    expect(asked).toEqual(['10.0.0.1', '10.0.0.2', '10.0.0.3']);
    expect(await reverse('10.0.0.1')).toBe('host-10.0.0.1');
    expect(asked).toEqual(['10.0.0.1', '10.0.0.2', '10.0.0.3', '10.0.0.1']);
    expect(await reverse('10.0.0.9')).toBeNull();
  });
});

describe('the system reverse lookup', () => {
  it('names 127.0.0.1 as the host does, offline (getnameinfo: /etc/hosts first)', async () => {
    // What the host says, asked directly; the production lookup and its cache must agree with it.
    const expected = await lookupService('127.0.0.1', 0).then(
      (r) => r.hostname,
      () => null,
    );
    expect(expected, 'this machine names 127.0.0.1 (e.g. localhost in /etc/hosts)').not.toBeNull();
    expect(await systemReverseLookup('127.0.0.1')).toBe(expected);
    const reverse = createReverseNames({ lookup: systemReverseLookup });
    expect(await reverse('127.0.0.1')).toBe(expected);
  });
});
