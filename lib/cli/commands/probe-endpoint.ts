// `erawatch probe <url>` or `erawatch probe --stdio -- <command> [args...]`: one era probe from the operator's
// shell. Loopback is allowed here because the operator named the target; the server side reaches loopback
// only with ERAWATCH_ALLOW_LOOPBACK=1. A stdio command runs only because the operator typed it here.
import { parseArgs } from 'node:util';
import { checkUrl } from '@/lib/net/egress';
import type { Env, Settings } from '@/lib/settings';
import {
  closeSharedProbeAgents,
  DEFAULT_PROBE_OPTIONS,
  probeNode,
  type AuthEvidence,
  type OAuthClientCredentials,
  type ProbeTarget,
  type Verdict,
} from '@/lib/probe';
import type { StdioPeerSpec } from '@/lib/probe/era-cache';
import { describeCommand, StdioTransport } from '@/lib/probe/stdio-transport';
import { formatHelp, HELP_FLAG, USAGE_EXIT, UsageError, type CommandHelp } from '../help';
import { safeLines } from '@/lib/probe/terminal-text';

export const HELP: CommandHelp = {
  usage: [
    "erawatch probe <url> [--allow-legacy] [--audit-legacy] [--catalog] [--timeout-ms N] [--legacy-timeout-ms N] [--header 'Name: value']... [--json]",
    '         [--oauth-client-id ID --oauth-client-secret-env NAME (--oauth-issuer URL | --oauth-token-url URL) [--oauth-scope SCOPE] [--oauth-resource URL]]',
    'erawatch probe --stdio [--allow-legacy] [--audit-legacy] [--catalog] [--timeout-ms N] [--legacy-timeout-ms N] [--json] -- <command> [args...]',
  ],
  about:
    'Probes one MCP endpoint the way the poller does (server/discover first, one bounded initialize only with\n' +
    '--allow-legacy) and prints its client verdict, served set and the evidence steps. --stdio launches\n' +
    '<command> without a shell (inheriting this environment and directory), probes it over stdin/stdout and\n' +
    "ends it; the verdict's url is stdio:<command line>. Loopback URLs are allowed: you named the target.",
  flags: [
    ['--allow-legacy', 'if the modern probe is ambiguous, try one initialize (the target may be legacy)'],
    ['--audit-legacy', 'also learn which legacy revisions the node still serves (never changes the verdict)'],
    ['--catalog', "list the node's tools after the verdict (tools/list), shown with their digest"],
    ['--timeout-ms N', `deadline of each modern request (default ${DEFAULT_PROBE_OPTIONS.timeoutMs})`],
    [
      '--legacy-timeout-ms N',
      `deadline of the legacy probe (default ${DEFAULT_PROBE_OPTIONS.legacyProbeTimeoutMs})`,
    ],
    ['--header "Name: value"', 'send a header with every request (repeatable; not with --stdio)'],
    ['--oauth-client-id ID', 'get a bearer token with OAuth client credentials first (HTTP only)'],
    [
      '--oauth-client-secret-env NAME',
      'the variable holding the client secret (never given on the command line)',
    ],
    [
      '--oauth-issuer URL',
      "the credential's authorization server: its RFC 8414 metadata names the token endpoint",
    ],
    [
      '--oauth-scope SCOPE',
      "the scope to ask for (default: the challenge's, else the resource's scopes_supported, else none)",
    ],
    ['--oauth-token-url URL', "the token endpoint (default: from the issuer's metadata)"],
    ['--oauth-resource URL', 'the resource indicator to send (RFC 8707)'],
    ['--stdio', 'probe the command after -- over stdio instead of a URL'],
    ['--json', 'print the verdict as one JSON object'],
    HELP_FLAG,
  ],
  exitCodes: [
    [0, 'the node answered: modern or legacy'],
    [1, 'the node is unavailable (the reason is printed)'],
    USAGE_EXIT,
  ],
};
const USAGE = formatHelp(HELP).trimEnd();
const MAX_TIMEOUT_MS = 600_000;
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const RESERVED_HEADERS = new Set([
  'host',
  'content-length',
  'content-type',
  'accept',
  'mcp-protocol-version',
  'mcp-method',
  'mcp-session-id',
  'transfer-encoding',
  'connection',
]);

export interface ProbeCommand {
  target: ProbeTarget;
  /** Set for `--stdio`: what to launch, exactly as typed after `--`. */
  stdio?: StdioPeerSpec;
  timeoutMs: number;
  legacyTimeoutMs: number;
  json: boolean;
}

function parseTimeout(flag: string, raw: string | undefined, fallback: number): number {
  if (raw === undefined) return fallback;
  if (!/^\d+$/.test(raw))
    throw new UsageError(`${flag} must be a whole number of milliseconds, got '${raw}'`);
  const value = Number(raw);
  if (value < 1 || value > MAX_TIMEOUT_MS)
    throw new UsageError(`${flag} must be between 1 and ${MAX_TIMEOUT_MS}`);
  return value;
}

function parseHeaders(raw: string[]): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const entry of raw) {
    const colon = entry.indexOf(':');
    const name = colon > 0 ? entry.slice(0, colon).trim() : '';
    const value = colon > 0 ? entry.slice(colon + 1).trim() : '';
    if (!name || !HEADER_NAME.test(name))
      throw new UsageError(`--header must look like 'Name: value', got '${entry}'`);
    if (/[\r\n\0]/.test(value))
      throw new UsageError(`--header value for ${name} contains a control character`);
    if (RESERVED_HEADERS.has(name.toLowerCase()))
      throw new UsageError(`--header cannot set ${name}; the probe sets it`);
    headers[name] = value;
  }
  return headers;
}

/** Parses argv into a probe command; throws UsageError with a one-line message on bad usage. */
export function parseProbeArgs(argv: string[], env: Env): ProbeCommand {
  // Everything after `--` is the stdio command line, untouched (its own flags are not ours).
  const split = argv.indexOf('--');
  const flags = split >= 0 ? argv.slice(0, split) : argv;
  const commandLine = split >= 0 ? argv.slice(split + 1) : [];
  let parsed;
  try {
    parsed = parseArgs({
      args: flags,
      allowPositionals: true,
      strict: true,
      options: {
        'allow-legacy': { type: 'boolean' },
        'audit-legacy': { type: 'boolean' },
        catalog: { type: 'boolean' },
        'timeout-ms': { type: 'string' },
        'legacy-timeout-ms': { type: 'string' },
        header: { type: 'string', multiple: true },
        json: { type: 'boolean' },
        stdio: { type: 'boolean' },
        'oauth-client-id': { type: 'string' },
        'oauth-client-secret-env': { type: 'string' },
        'oauth-token-url': { type: 'string' },
        'oauth-issuer': { type: 'string' },
        'oauth-scope': { type: 'string' },
        'oauth-resource': { type: 'string' },
      },
    });
  } catch (err) {
    throw new UsageError(err instanceof Error ? err.message : String(err));
  }
  const { values, positionals } = parsed;
  const timeouts = {
    timeoutMs: parseTimeout('--timeout-ms', values['timeout-ms'], DEFAULT_PROBE_OPTIONS.timeoutMs),
    legacyTimeoutMs: parseTimeout(
      '--legacy-timeout-ms',
      values['legacy-timeout-ms'],
      DEFAULT_PROBE_OPTIONS.legacyProbeTimeoutMs,
    ),
    json: values.json ?? false,
  };
  if (values.stdio) {
    if (positionals.length > 0)
      throw new UsageError(`--stdio takes no <url>; put the command after --, got '${positionals[0]}'`);
    if (values.header) throw new UsageError('--header applies to HTTP targets, not --stdio');
    const oauthFlag = OAUTH_FLAGS.find((f) => values[f] !== undefined);
    if (oauthFlag) throw new UsageError(`--${oauthFlag} applies to HTTP targets, not --stdio`);
    const [command, ...args] = commandLine;
    if (!command) throw new UsageError('--stdio needs a command after --, e.g. -- node server.mjs');
    if (commandLine.some((a) => a.includes('\0')))
      throw new UsageError('the command contains a NUL character');
    const stdio: StdioPeerSpec = { command, args };
    return {
      target: {
        url: `stdio:${describeCommand(stdio)}`,
        allowLegacy: values['allow-legacy'] ?? false,
        auditLegacy: values['audit-legacy'] ?? false,
        ...(values.catalog ? { catalog: { list: 'always' as const } } : {}),
      },
      stdio,
      ...timeouts,
    };
  }
  if (split >= 0) throw new UsageError('a command after -- needs --stdio');
  if (positionals.length !== 1 || !positionals[0]) {
    throw new UsageError(
      positionals.length === 0 ? 'missing <url>' : `expected one <url>, got ${positionals.length}`,
    );
  }
  const url = positionals[0];
  const urlProblem = checkUrl(url);
  if (urlProblem) throw new UsageError(urlProblem);
  const headers = parseHeaders(values.header ?? []);
  const target: ProbeTarget = {
    url,
    allowLegacy: values['allow-legacy'] ?? false,
    auditLegacy: values['audit-legacy'] ?? false,
  };
  if (Object.keys(headers).length > 0) target.headers = headers;
  if (values.catalog) target.catalog = { list: 'always' };
  const oauth = parseOAuth(values, env);
  if (oauth) {
    if (Object.keys(headers).some((h) => h.toLowerCase() === 'authorization'))
      throw new UsageError('--header Authorization and --oauth-* are exclusive: the token is the credential');
    target.oauth = oauth;
  }
  return { target, ...timeouts };
}

const OAUTH_FLAGS = [
  'oauth-client-id',
  'oauth-client-secret-env',
  'oauth-issuer',
  'oauth-token-url',
  'oauth-scope',
  'oauth-resource',
] as const;

/** The OAuth flags as a credential; the secret is read from the named variable, never from argv. */
function parseOAuth(
  values: Partial<Record<(typeof OAUTH_FLAGS)[number], string>>,
  env: Record<string, string | undefined>,
): OAuthClientCredentials | null {
  if (!OAUTH_FLAGS.some((f) => values[f] !== undefined)) return null;
  const clientId = values['oauth-client-id'];
  const secretEnv = values['oauth-client-secret-env'];
  const scope = values['oauth-scope'];
  if (!clientId) throw new UsageError('--oauth-* needs --oauth-client-id');
  if (!secretEnv) throw new UsageError('--oauth-* needs --oauth-client-secret-env NAME');
  if (scope !== undefined && scope.trim() === '') throw new UsageError('--oauth-scope must not be empty');
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(secretEnv))
    throw new UsageError(`--oauth-client-secret-env takes a variable name, got '${secretEnv}'`);
  const clientSecret = env[secretEnv];
  if (!clientSecret) throw new UsageError(`--oauth-client-secret-env: ${secretEnv} is not set`);
  if (values['oauth-issuer'] === undefined && values['oauth-token-url'] === undefined)
    throw new UsageError('--oauth-* needs --oauth-issuer URL (or --oauth-token-url URL)');
  const oauth: OAuthClientCredentials = { clientId, clientSecret, ...(scope ? { scope: scope.trim() } : {}) };
  for (const [flag, key] of [
    ['oauth-issuer', 'issuer'],
    ['oauth-token-url', 'tokenUrl'],
    ['oauth-resource', 'resource'],
  ] as const) {
    const value = values[flag];
    if (value === undefined) continue;
    const problem = checkUrl(value);
    if (problem) throw new UsageError(`--${flag}: ${problem}`);
    oauth[key] = value;
  }
  return oauth;
}

/** The `--json` document: exactly the fields the CLI contract names. */
export function verdictToJson(v: Verdict): Record<string, unknown> {
  return {
    url: v.url,
    verdict: v.verdict,
    reason: v.reason,
    negotiatedVersion: v.negotiatedVersion,
    supported: v.supported,
    servedEras: v.servedEras,
    serverInfo: v.serverInfo,
    cache: v.cache,
    initializeSent: v.initializeSent,
    evidence: v.evidence.map((e) => ({
      step: e.step,
      protocolVersion: e.protocolVersion,
      requestId: e.requestId,
      httpStatus: e.httpStatus,
      outcome: e.outcome,
      rpcError: e.rpcError ? { code: e.rpcError.code, message: e.rpcError.message } : null,
      elapsedMs: e.elapsedMs,
      ...(e.detail ? { detail: e.detail } : {}),
    })),
    ...(v.auth ? { auth: v.auth } : {}),
    ...(v.catalog ? { catalog: v.catalog } : {}),
  };
}

export function formatVerdict(v: Verdict): string {
  const era = v.negotiatedVersion ? `${v.verdict} (${v.negotiatedVersion})` : v.verdict;
  const lines = [
    `${v.url}: ${era}, reason ${v.reason}`,
    `  served: ${v.supported.length > 0 ? v.supported.join(', ') : 'nothing known'} [${v.servedEras}]`,
  ];
  if (v.serverInfo) lines.push(`  server: ${v.serverInfo.name} ${v.serverInfo.version}`);
  if (v.cache) lines.push(`  cache: ttlMs ${v.cache.ttlMs}, scope ${v.cache.cacheScope}`);
  if (v.anomaly) lines.push(`  anomaly: ${v.anomaly}`);
  lines.push(`  initialize sent: ${v.initializeSent ? 'yes' : 'no'}`);
  if (v.catalog) {
    const c = v.catalog;
    lines.push(
      c.digest
        ? `  tools: ${c.names.length > 0 ? c.names.join(', ') : 'none'} (${c.digest}, ttlMs ${c.ttlMs ?? '-'})`
        : `  tools: not listed (${c.reason ?? c.status})`,
    );
  }
  if (v.auth) lines.push(...formatAuth(v.auth));
  // Over stdio there is no HTTP status: the exchange is labelled by its transport instead.
  const stdio = v.url.startsWith('stdio:');
  for (const e of v.evidence) {
    const via = stdio ? 'stdio' : `HTTP ${e.httpStatus === null ? '-' : String(e.httpStatus)}`;
    const rpc = e.rpcError ? ` ${e.rpcError.code} ${e.rpcError.message}` : '';
    const detail = e.detail ? ` (${e.detail})` : '';
    lines.push(
      `  ${e.step} ${e.protocolVersion} id=${e.requestId}: ${via} ${e.outcome}${rpc}, ${e.elapsedMs} ms${detail}`,
    );
  }
  lines.push(...nextStep(v));
  // Server strings (an error message, serverInfo, tool names) cannot move the cursor or forge a line.
  return safeLines(lines);
}

/** JSON-RPC's "method not found": what a server that predates server/discover answers. */
const METHOD_NOT_FOUND = -32601;

/** What to do after a fail-closed verdict, when the evidence says the node may be legacy. */
function nextStep(v: Verdict): string[] {
  if (v.reason !== 'ambiguous_not_allowlisted') return [];
  const notFound = v.evidence.some(
    (e) => e.step.startsWith('discover') && e.rpcError?.code === METHOD_NOT_FOUND,
  );
  if (!notFound) return [];
  return [
    `  next: the node answered server/discover with ${METHOD_NOT_FOUND} (method not found), as a server that predates`,
    '        the 2026-07-28 revision does. If this node may be legacy, run again with --allow-legacy: the probe then',
    '        sends one bounded initialize and calls it legacy only if the answer passes every positive-evidence check.',
    `        Without --allow-legacy it fails closed: ${METHOD_NOT_FOUND} is not proof of a legacy server (a proxy, a gateway or a`,
    '        broken modern server answers the same), and an initialize sent to a modern node would downgrade it.',
  ];
}

function formatAuth(a: AuthEvidence): string[] {
  const out: string[] = [];
  if (a.httpStatus !== null) {
    const c = a.challenge;
    out.push(
      `  auth: HTTP ${a.httpStatus}, credential ${a.credential}, challenge ${
        c
          ? [c.scheme, c.error && `error=${c.error}`, c.scope && `scope="${c.scope}"`]
              .filter(Boolean)
              .join(' ')
          : (a.detail ?? 'none')
      }`,
    );
  }
  for (const m of a.metadataAttempts)
    out.push(`  metadata ${m.source}: ${m.url} -> ${m.httpStatus ?? '-'} ${m.outcome}`);
  if (a.metadata) {
    const m = a.metadata;
    out.push(
      `  protected resource: ${m.resource ?? '-'} (${m.resourceMatches ? 'matches' : 'MISMATCH, not trusted'}); authorization servers: ${m.authorizationServers.join(', ') || '-'}; scopes: ${m.scopesSupported.join(' ') || '-'}`,
    );
  }
  if (a.token) {
    const t = a.token;
    out.push(
      `  token: ${t.error ? `failed: ${t.error}` : 'obtained'}${t.refreshed ? ', refreshed after a refusal' : ''}${t.tokenEndpoint ? ` from ${t.tokenEndpoint} (${t.endpointSource ?? '?'})` : ''}${t.scopeSource ? `; scope ${t.scope ? `"${t.scope}"` : 'none'} (${t.scopeSource})` : ''}`,
    );
    if (t.error && t.detail) out.push(`  token detail: ${t.detail}`);
  }
  return out;
}

export async function run(argv: string[], settings: Settings): Promise<number> {
  if (argv.includes('--help') || argv.includes('-h')) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  let command: ProbeCommand;
  try {
    command = parseProbeArgs(argv, settings.environment);
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    process.stderr.write(`erawatch probe: ${err.message} (erawatch probe --help for usage)\n`);
    return 2;
  }
  const options = {
    ...DEFAULT_PROBE_OPTIONS,
    timeoutMs: command.timeoutMs,
    legacyProbeTimeoutMs: command.legacyTimeoutMs,
  };
  // The launched process is ended (SIGTERM, then SIGKILL) before the verdict is printed.
  const transport = command.stdio ? StdioTransport.launch(command.stdio) : null;
  try {
    const stdio = command.stdio;
    const verdict = await probeNode(
      command.target,
      options,
      transport && stdio
        ? {
            transport,
            // --audit-legacy with --catalog: the audit gets a process of its own (same command).
            freshTransport: () => {
              const fresh = StdioTransport.launch(stdio);
              return { transport: fresh, close: () => fresh.close() };
            },
          }
        : { egress: { allowLoopback: true, allowPrivate: true } },
    );
    await transport?.close();
    process.stdout.write(
      command.json ? `${JSON.stringify(verdictToJson(verdict))}\n` : formatVerdict(verdict),
    );
    return verdict.verdict === 'unavailable' ? 1 : 0;
  } finally {
    await transport?.close();
    await closeSharedProbeAgents();
  }
}
