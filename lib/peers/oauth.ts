// Starts the OAuth peers for tests and the demo: a real authorization server (oidc-provider) and a real v2
// SDK MCP server that accepts only its tokens. Child processes on loopback, stopped by PID.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { stopChild, waitForPort } from './spawn';

const serversDir = path.join(path.dirname(fileURLToPath(import.meta.url)), 'servers');

export interface AuthorizationServerOptions {
  clientId: string;
  clientSecret: string;
  scope?: string;
  /** Access token lifetime in seconds. */
  ttlSeconds?: number;
  host?: string;
}

export interface RunningAuthorizationServer {
  issuer: string;
  pid: number;
  /** Token requests answered so far (errors included). */
  issued(): Promise<Array<{ at: number; client: string | null; error?: string }>>;
  stop(): Promise<void>;
}

export interface OAuthPeerOptions {
  issuer: string;
  scope?: string;
  /** Publish metadata for the resource at this path of the same origin instead of /mcp (a mismatch). */
  metadataResourcePath?: string;
  /** Refuse with a bare 401 and no WWW-Authenticate header. */
  noChallenge?: boolean;
  host?: string;
  name?: string;
}

export interface RunningOAuthPeer {
  url: string;
  pid: number;
  /** Every authorization decision the server made, in order. */
  decisions(): Promise<Array<{ ok: boolean; reason?: 'missing' | 'expired' | 'invalid' }>>;
  stop(): Promise<void>;
}

function hostPart(host: string): string {
  return host.includes(':') ? `[${host}]` : host;
}

async function startChild(script: string, args: string[]) {
  const child = spawn(process.execPath, [path.join(serversDir, script), ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const port = await waitForPort(child, 15_000).catch((err: unknown) => {
    child.kill('SIGKILL');
    throw err;
  });
  return { child, port };
}

export async function startAuthorizationServer(
  opts: AuthorizationServerOptions,
): Promise<RunningAuthorizationServer> {
  const host = opts.host ?? '127.0.0.1';
  const args = [
    '--port',
    '0',
    '--host',
    host,
    '--client-id',
    opts.clientId,
    '--client-secret',
    opts.clientSecret,
  ];
  if (opts.scope) args.push('--scope', opts.scope);
  if (opts.ttlSeconds !== undefined) args.push('--ttl-s', String(opts.ttlSeconds));
  const { child, port } = await startChild('oauth-as.mjs', args);
  const issuer = `http://${hostPart(host)}:${port}`;
  return {
    issuer,
    pid: child.pid ?? -1,
    async issued() {
      const res = await fetch(`${issuer}/__erawatch/issued`);
      return ((await res.json()) as { issued: Array<{ at: number; client: string | null; error?: string }> })
        .issued;
    },
    stop: () => stopChild(child),
  };
}

export async function startOAuthPeer(opts: OAuthPeerOptions): Promise<RunningOAuthPeer> {
  const host = opts.host ?? '127.0.0.1';
  const args = ['--port', '0', '--host', host, '--issuer', opts.issuer];
  if (opts.scope) args.push('--scope', opts.scope);
  if (opts.metadataResourcePath) args.push('--metadata-resource-path', opts.metadataResourcePath);
  if (opts.noChallenge) args.push('--no-challenge');
  if (opts.name) args.push('--name', opts.name);
  const { child, port } = await startChild('v2-http-oauth.mjs', args);
  const origin = `http://${hostPart(host)}:${port}`;
  return {
    url: `${origin}/mcp`,
    pid: child.pid ?? -1,
    async decisions() {
      const res = await fetch(`${origin}/__erawatch/decisions`);
      return (
        (await res.json()) as {
          decisions: Array<{ ok: boolean; reason?: 'missing' | 'expired' | 'invalid' }>;
        }
      ).decisions;
    },
    stop: () => stopChild(child),
  };
}
