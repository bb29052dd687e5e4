// The one egress guard for every outbound connection Erawatch makes (probes, webhooks): http(s) only, the
// resolved address checked at connect time, link-local and metadata addresses always refused.
import { lookup as dnsLookup } from 'node:dns/promises';
import { BlockList, isIP, SocketAddress } from 'node:net';
import type { SecureContext } from 'node:tls';
import { Agent, buildConnector } from 'undici';
import { ERROR_CODES } from '@/lib/errors';

export interface EgressPolicy {
  allowLoopback: boolean;
  allowPrivate: boolean;
}

/** Resolves a host name to one address; injectable so tests need no DNS. */
export type LookupFn = (hostname: string) => Promise<{ address: string; family: number }>;

export const defaultLookup: LookupFn = (hostname) => dnsLookup(hostname, { verbatim: true });

/** The server side reaches loopback only when the operator says so (demo, tests); private ranges are fleets. */
export function probeEgressPolicy(settings: { allowLoopback: boolean }): EgressPolicy {
  return { allowLoopback: settings.allowLoopback, allowPrivate: true };
}

function blockOf(ranges: Array<[string, number, 'ipv4' | 'ipv6']>): BlockList {
  const list = new BlockList();
  for (const [net, prefix, type] of ranges) list.addSubnet(net, prefix, type);
  return list;
}

const METADATA = new Set(['169.254.169.254', '100.100.100.200', '168.63.129.16', 'fd00:ec2::254']);
/** Names the clouds give their metadata services: refused before any lookup, whatever they resolve to. */
const METADATA_HOSTS = new Set([
  'metadata.google.internal',
  'metadata.goog',
  'metadata',
  'instance-data',
  'instance-data.ec2.internal',
]);

/** Null unless `hostname` names a cloud metadata service (case and a trailing dot do not matter). */
export function checkHostName(hostname: string): string | null {
  const name = hostname.toLowerCase().replace(/\.$/, '');
  return METADATA_HOSTS.has(name) ? `cloud metadata host ${name} is always refused` : null;
}
const LINK_LOCAL = blockOf([
  ['169.254.0.0', 16, 'ipv4'],
  ['fe80::', 10, 'ipv6'],
]);
const NOT_UNICAST = blockOf([
  ['0.0.0.0', 8, 'ipv4'],
  ['224.0.0.0', 4, 'ipv4'],
  ['240.0.0.0', 4, 'ipv4'],
  ['::', 128, 'ipv6'],
  ['ff00::', 8, 'ipv6'],
]);
const LOOPBACK = blockOf([
  ['127.0.0.0', 8, 'ipv4'],
  ['::1', 128, 'ipv6'],
]);
const PRIVATE = blockOf([
  ['10.0.0.0', 8, 'ipv4'],
  ['172.16.0.0', 12, 'ipv4'],
  ['192.168.0.0', 16, 'ipv4'],
  ['100.64.0.0', 10, 'ipv4'],
  ['198.18.0.0', 15, 'ipv4'],
  ['fc00::', 7, 'ipv6'],
]);

/** An IPv4 address hidden in IPv6 (mapped ::ffff:a.b.c.d or NAT64 64:ff9b::/96) is judged as IPv4. */
function embeddedIPv4(ip: string): string | null {
  const lower = ip.toLowerCase();
  const dotted = /^(?:::ffff:|64:ff9b::)(\d+\.\d+\.\d+\.\d+)$/.exec(lower);
  if (dotted?.[1]) return dotted[1];
  const hex = /^(?:::ffff:|64:ff9b::)([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(lower);
  if (hex?.[1] && hex[2]) {
    const hi = parseInt(hex[1], 16);
    const lo = parseInt(hex[2], 16);
    return `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;
  }
  return null;
}

/** Null when the policy allows connecting to `ip`, else the reason it is refused. */
export function checkAddress(ip: string, policy: EgressPolicy): string | null {
  const family = isIP(ip);
  if (family === 0) return `not an IP address: ${ip}`;
  const v4 = family === 6 ? embeddedIPv4(ip) : ip;
  const addr = v4 ?? ip;
  if (METADATA.has(addr.toLowerCase())) return `cloud metadata address ${ip} is always refused`;
  // One SocketAddress for all five lists: check() with a string would build one per call.
  const socket = new SocketAddress({ address: addr, family: v4 ? 'ipv4' : 'ipv6' });
  if (LINK_LOCAL.check(socket)) return `link-local address ${ip} is always refused`;
  if (NOT_UNICAST.check(socket)) return `${ip} is not a unicast address`;
  if (LOOPBACK.check(socket)) return policy.allowLoopback ? null : `loopback address ${ip} is not allowed`;
  if (PRIVATE.check(socket)) return policy.allowPrivate ? null : `private address ${ip} is not allowed`;
  return null;
}

const checked = new Map<string, string | null>();
const CHECK_CACHE_LIMIT = 4_096;

/** checkAddress, remembered: a poller checks the same few thousand addresses over and over. */
export function checkAddressCached(ip: string, policy: EgressPolicy): string | null {
  const key = `${policy.allowLoopback ? 1 : 0}${policy.allowPrivate ? 1 : 0}${ip}`;
  const hit = checked.get(key);
  if (hit !== undefined) return hit;
  const result = checkAddress(ip, policy);
  if (checked.size >= CHECK_CACHE_LIMIT) checked.clear();
  checked.set(key, result);
  return result;
}

/** Null when the URL may be fetched at all (scheme and shape), else the reason. */
export function checkUrl(url: string): string | null {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return `not a valid URL: ${url}`;
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')
    return `scheme ${parsed.protocol} is not http(s)`;
  if (parsed.username || parsed.password) return 'credentials in the URL are not allowed; use a header';
  return null;
}

/**
 * Null when the URL may be registered, else why not: the shape, an address written into the URL (WHATWG
 * parsing has already turned hex, decimal and octal IPv4 into dotted form), `localhost` and metadata names.
 * Other host names are checked again, resolved, at connect time.
 */
export function checkRegisteredUrl(url: string, policy: EgressPolicy): string | null {
  const shape = checkUrl(url);
  if (shape) return shape;
  const host = new URL(url).hostname;
  const bare = host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
  if (isIP(bare) !== 0) return checkAddress(bare, policy);
  const name = bare.toLowerCase().replace(/\.$/, '');
  if (name === 'localhost' || name.endsWith('.localhost')) return checkAddress('127.0.0.1', policy);
  return checkHostName(name);
}

/** Thrown (through the connector) when the guard refuses an address; transports map it to `egress_refused`. */
export class EgressRefusedError extends Error {
  readonly code = ERROR_CODES.egressRefused;
  constructor(message: string) {
    super(message);
    this.name = 'EgressRefusedError';
  }
}

/** Resolves (unless already an IP) and checks; the returned address is what the connection must use. */
export async function resolveAllowed(
  hostname: string,
  policy: EgressPolicy,
  lookup: LookupFn = defaultLookup,
): Promise<string> {
  const bare = hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;
  const named = isIP(bare) === 0 ? checkHostName(bare) : null;
  if (named) throw new EgressRefusedError(named);
  const address = isIP(bare) ? bare : (await lookup(bare)).address;
  const refusal = checkAddressCached(address, policy);
  if (refusal) throw new EgressRefusedError(refusal);
  return address;
}

export interface EgressAgentOptions {
  lookup?: LookupFn;
  connectTimeoutMs?: number;
  /** Idle keep-alive sockets per origin. */
  connections?: number;
  keepAliveTimeoutMs?: number;
  /** Extra TLS options (e.g. a test CA, or a SecureContext built once for it). */
  tls?: { ca?: string | Buffer; rejectUnauthorized?: boolean; secureContext?: SecureContext };
  /** The source address every connection binds (a worker probing from one network of several). */
  localAddress?: string;
}

/**
 * An undici Agent whose every new connection resolves the host, applies the policy to the address and
 * connects to exactly that address. To pin a request to another IP, send it to origin `scheme://IP:port`
 * with the original `host` header: undici then derives TLS SNI from that header (see pinnedOrigin).
 */
/**
 * The guarded connector: resolve, check the address against the policy, connect to exactly that address
 * (TLS SNI kept from the host name). Every undici dispatcher Erawatch builds connects through it.
 */
export function createEgressConnector(
  policy: EgressPolicy,
  options: EgressAgentOptions = {},
): buildConnector.connector {
  const lookup = options.lookup ?? defaultLookup;
  const base = buildConnector({ timeout: options.connectTimeoutMs ?? 10_000, ...options.tls });
  return (opts, callback) => {
    resolveAllowed(opts.hostname, policy, lookup).then(
      (address) => {
        const named = isIP(opts.hostname) === 0;
        base(
          {
            ...opts,
            ...(options.localAddress ? { localAddress: options.localAddress } : {}),
            hostname: address,
            servername: opts.servername ?? (named && opts.protocol === 'https:' ? opts.hostname : undefined),
          },
          callback,
        );
      },
      (err: unknown) => callback(err instanceof Error ? err : new Error(String(err)), null),
    );
  };
}

export function createEgressAgent(policy: EgressPolicy, options: EgressAgentOptions = {}): Agent {
  return new Agent({
    connect: createEgressConnector(policy, options),
    connections: options.connections ?? null,
    keepAliveTimeout: options.keepAliveTimeoutMs ?? 10_000,
    pipelining: 1,
  });
}

/** Where to send a request so that it reaches `address` while Host and SNI stay the URL's. */
export function pinnedOrigin(url: URL, address: string): { origin: string; host: string } {
  const ipHost = isIP(address) === 6 ? `[${address}]` : address;
  const port = url.port ? `:${url.port}` : '';
  return { origin: `${url.protocol}//${ipHost}${port}`, host: url.host };
}
