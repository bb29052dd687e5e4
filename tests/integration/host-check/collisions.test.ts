// Two real servers exposing the same tool name, merged under each declared collision policy; plus the merge
// rules on plain lists. A duplicate is renamed or refused, never silently overwritten.
import { afterAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { loadHostConfig } from '@/lib/host-check/config';
import { formatHostReport } from '@/lib/host-check/format';
import { mergeTools } from '@/lib/host-check/merge';
import { runHostCheck } from '@/lib/host-check/session';
import { makeTempDir, peerScript } from './fixtures';

const tmp = makeTempDir('host-collisions');
afterAll(() => tmp.remove());

function hostYaml(policy: string) {
  return stringify({
    collisionPolicy: policy,
    servers: [
      // Listed first, so it keeps the shared name whichever server answers first.
      {
        name: 'archive',
        command: process.execPath,
        args: [peerScript('v1-stdio'), '--tools', 'search,fetch'],
        allowLegacy: true,
        retry: { attempts: 1 },
      },
      {
        name: 'current',
        command: process.execPath,
        args: [peerScript('v2-stdio'), '--tools', 'search,echo'],
      },
    ],
  });
}

describe('two servers exposing the same tool name', () => {
  it('prefix: the later duplicate becomes <server>/<tool>, the first keeps the name', async () => {
    const report = await runHostCheck(await loadHostConfig(tmp.write('prefix.yaml', hostYaml('prefix'))));
    expect(report.tools).toEqual([
      { name: 'current/search', server: 'current', tool: 'search' },
      { name: 'echo', server: 'current', tool: 'echo' },
      { name: 'fetch', server: 'archive', tool: 'fetch' },
      { name: 'search', server: 'archive', tool: 'search' },
    ]);
    expect(report.collisions).toEqual([
      { tool: 'search', servers: ['archive', 'current'], renamedTo: 'current/search' },
    ]);
    expect(report).toMatchObject({ ok: true, allAvailable: true, errors: [] });
    expect(formatHostReport(report)).toContain("'search' of 'current' is exposed as 'current/search'");
  });

  it('reject: the check fails with an error naming both servers, and the first keeps the name', async () => {
    const report = await runHostCheck(await loadHostConfig(tmp.write('reject.yaml', hostYaml('reject'))));
    expect(report.errors).toEqual(["tool 'search' is exposed by both 'archive' and 'current'"]);
    expect(report.collisions).toEqual([{ tool: 'search', servers: ['archive', 'current'] }]);
    expect(report.tools.map((t) => `${t.server}:${t.name}`)).toEqual([
      'current:echo',
      'archive:fetch',
      'archive:search',
    ]);
    // Every server came up; the merge is what failed.
    expect(report).toMatchObject({ ok: false, allAvailable: true });
    expect(formatHostReport(report)).toContain(
      "collision: tool 'search' is exposed by both 'archive' and 'current'",
    );
  });
});

describe('mergeTools', () => {
  it('sorts each list before merging, so the renamed duplicate does not depend on answer order', () => {
    const a = mergeTools(
      [
        { server: 'x', tools: ['b', 'a'] },
        { server: 'y', tools: ['a'] },
      ],
      'prefix',
    );
    const b = mergeTools(
      [
        { server: 'x', tools: ['a', 'b'] },
        { server: 'y', tools: ['a'] },
      ],
      'prefix',
    );
    expect(a).toEqual(b);
    expect(a.tools.map((t) => t.name)).toEqual(['a', 'b', 'y/a']);
  });

  it.each([
    [
      'prefix, when the prefixed name is itself taken',
      'prefix' as const,
      [
        { server: 'x', tools: ['a', 'y/a'] },
        { server: 'y', tools: ['a'] },
      ],
      ["tool 'a' of 'y' duplicates one of 'x', and its prefixed name 'y/a' is taken by 'x'"],
    ],
    [
      'reject, with three servers sharing one name',
      'reject' as const,
      [
        { server: 'x', tools: ['a'] },
        { server: 'y', tools: ['a'] },
        { server: 'z', tools: ['a'] },
      ],
      ["tool 'a' is exposed by both 'x' and 'y'", "tool 'a' is exposed by both 'x' and 'z'"],
    ],
  ])('%s is an error naming the servers', (_label, policy, lists, errors) => {
    const merged = mergeTools(lists, policy);
    expect(merged.ok).toBe(false);
    expect(merged.errors).toEqual(errors);
    // Nothing was overwritten: the name still belongs to the first server.
    expect(merged.tools.find((t) => t.name === 'a')?.server).toBe('x');
  });
});
