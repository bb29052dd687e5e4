// stdio targets come only from host.yaml or the CLI: the balancer contract behind the REST API and the UI
// accepts http(s) URLs only, so no web request can name a command for the host to run.
import { describe, expect, it } from 'vitest';
import { CreateBalancerInput, UpdateBalancerInput } from '@/lib/schemas/balancer';

const stdioShaped = [
  'stdio:node server.mjs',
  'node /srv/archive/server.mjs',
  'file:///usr/bin/node',
  '/bin/sh -c id',
];

describe('the REST balancer contract refuses stdio-shaped targets', () => {
  it.each(stdioShaped)('publicUrl %s', (target) => {
    const parsed = CreateBalancerInput.safeParse({ name: 'stdio-attempt', publicUrl: target });
    expect(parsed.success).toBe(false);
    const issue = parsed.error?.issues.find((i) => i.path[0] === 'publicUrl');
    expect(issue?.message).toBe('must be an http:// or https:// URL');
  });

  it.each(stdioShaped)('nodeUrls entry %s', (target) => {
    const parsed = CreateBalancerInput.safeParse({
      name: 'stdio-attempt',
      publicUrl: 'http://127.0.0.1:9000/mcp',
      nodeUrls: ['http://127.0.0.1:9001/mcp', target],
    });
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues.map((i) => [i.path.join('.'), i.message])).toEqual([
      ['nodeUrls.1', 'must be an http:// or https:// URL'],
    ]);
  });

  it('in an update too', () => {
    const parsed = UpdateBalancerInput.safeParse({ publicUrl: 'stdio:node server.mjs' });
    expect(parsed.success).toBe(false);
  });

  it('has no field that names a command, arguments or environment', () => {
    const parsed = CreateBalancerInput.safeParse({
      name: 'stdio-fields',
      publicUrl: 'http://127.0.0.1:9000/mcp',
      command: 'node',
      args: ['server.mjs'],
      env: { A: '1' },
    });
    // Unknown keys are dropped, never carried into the settings the poller reads.
    expect(parsed.success).toBe(true);
    expect(parsed.data).not.toHaveProperty('command');
    expect(parsed.data).not.toHaveProperty('args');
    expect(parsed.data).not.toHaveProperty('env');
  });
});
