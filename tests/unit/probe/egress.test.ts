import { describe, expect, it } from 'vitest';
import { checkAddress, checkUrl, pinnedOrigin, probeEgressPolicy, resolveAllowed } from '@/lib/net/egress';
import { parseSettings, SettingsError } from '@/lib/settings';

const PROBE = { allowLoopback: false, allowPrivate: true };
const WEBHOOK = { allowLoopback: false, allowPrivate: false };
const DEMO = { allowLoopback: true, allowPrivate: true };

describe('checkAddress', () => {
  it.each<[string, typeof PROBE, string | null]>([
    ['203.0.113.7', WEBHOOK, null],
    ['2001:db8::1', WEBHOOK, null],
    ['10.1.2.3', PROBE, null],
    ['10.1.2.3', WEBHOOK, 'private address'],
    ['172.31.255.1', WEBHOOK, 'private address'],
    ['192.168.0.9', WEBHOOK, 'private address'],
    ['100.64.0.1', WEBHOOK, 'private address'],
    ['fd12::1', WEBHOOK, 'private address'],
    ['127.0.0.1', PROBE, 'loopback address'],
    ['127.8.9.10', PROBE, 'loopback address'],
    ['::1', PROBE, 'loopback address'],
    ['::ffff:127.0.0.1', PROBE, 'loopback address'],
    ['::ffff:7f00:1', PROBE, 'loopback address'],
    ['127.0.0.1', DEMO, null],
    ['::1', DEMO, null],
    ['169.254.169.254', DEMO, 'cloud metadata'],
    ['::ffff:169.254.169.254', DEMO, 'cloud metadata'],
    ['64:ff9b::a9fe:a9fe', DEMO, 'cloud metadata'],
    ['fd00:ec2::254', DEMO, 'cloud metadata'],
    ['100.100.100.200', DEMO, 'cloud metadata'],
    ['169.254.1.1', DEMO, 'link-local'],
    ['fe80::1', DEMO, 'link-local'],
    ['0.0.0.0', DEMO, 'not a unicast'],
    ['::', DEMO, 'not a unicast'],
    ['224.0.0.1', DEMO, 'not a unicast'],
    ['ff02::1', DEMO, 'not a unicast'],
    ['example.com', DEMO, 'not an IP address'],
  ])('%s under %j', (ip, policy, reason) => {
    const got = checkAddress(ip, policy);
    if (reason === null) expect(got).toBeNull();
    else expect(got).toContain(reason);
  });
});

describe('checkUrl', () => {
  it.each<[string, string | null]>([
    ['http://node.fleet.test:8080/mcp', null],
    ['https://node.fleet.test/mcp?x=1', null],
    ['ftp://node.fleet.test/mcp', 'scheme ftp:'],
    ['file:///etc/passwd', 'scheme file:'],
    ['https://u:p@node.fleet.test/mcp', 'credentials'],
    ['node.fleet.test/mcp', 'not a valid URL'],
  ])('%s', (url, reason) => {
    const got = checkUrl(url);
    if (reason === null) expect(got).toBeNull();
    else expect(got).toContain(reason);
  });
});

describe('probeEgressPolicy', () => {
  it.each<[Record<string, string>, boolean]>([
    [{}, false],
    [{ ERAWATCH_ALLOW_LOOPBACK: '0' }, false],
    [{ ERAWATCH_ALLOW_LOOPBACK: '1' }, true],
  ])('%j → allowLoopback %s', (env, allowLoopback) => {
    expect(probeEgressPolicy(parseSettings(env))).toEqual({ allowLoopback, allowPrivate: true });
  });

  it('a value other than 0 or 1 is a bad setting, not a silent no', () => {
    expect(() => parseSettings({ ERAWATCH_ALLOW_LOOPBACK: 'true' })).toThrow(
      new SettingsError(["ERAWATCH_ALLOW_LOOPBACK must be 0 or 1, got 'true'"]),
    );
  });
});

describe('pinnedOrigin', () => {
  it('sends to the IP and keeps the URL host for Host and SNI', () => {
    expect(pinnedOrigin(new URL('https://api.fleet.test:8443/mcp'), '10.0.0.5')).toEqual({
      origin: 'https://10.0.0.5:8443',
      host: 'api.fleet.test:8443',
    });
    expect(pinnedOrigin(new URL('http://api.fleet.test/mcp'), 'fd00::5')).toEqual({
      origin: 'http://[fd00::5]',
      host: 'api.fleet.test',
    });
  });
});

describe('metadata host names', () => {
  it.each(['metadata.google.internal', 'METADATA.google.internal.', 'metadata.goog', 'instance-data'])(
    '%s is refused at connect time before any lookup',
    async (host) => {
      let looked = 0;
      const lookup = async () => {
        looked++;
        return { address: '10.0.0.1', family: 4 };
      };
      await expect(resolveAllowed(host, PROBE, lookup)).rejects.toThrow(/metadata host/);
      expect(looked).toBe(0);
    },
  );

  it('other names are resolved and the address decides', async () => {
    const lookup = async () => ({ address: '10.0.0.1', family: 4 });
    await expect(resolveAllowed('mcp.internal', PROBE, lookup)).resolves.toBe('10.0.0.1');
  });
});
