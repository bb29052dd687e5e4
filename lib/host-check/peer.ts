// One configured server as the host holds it: a stdio process (restarted when it has exited) or an HTTP
// endpoint, probed with the shared probe engine and listed under the era the cache holds for it.
import { isPlainObject, rpcErrorOf, checkLegacyInitialize, classifyDiscover } from '@/lib/probe/classify';
import { createHash } from 'node:crypto';
import { credentialOf } from '@/lib/probe/probe-auth';
import { httpPeerKey, stdioPeerKey, type EraEntry, type PeerIncarnation } from '@/lib/probe/era-cache';
import { HttpTransport } from '@/lib/probe/http-transport';
import { probeNode } from '@/lib/probe/probe-node';
import { ProbeAuth } from '@/lib/probe/probe-auth';
import { sharedProbeAgent } from '@/lib/probe/agent';
import { describeCommand, StdioTransport } from '@/lib/probe/stdio-transport';
import type { Exchange, JsonRpcId, JsonRpcRequest, ProbeTransport, SendOptions } from '@/lib/probe/transport';
import {
  DEFAULT_PROBE_OPTIONS,
  type Outcome,
  type ProbeOptions,
  type ProbeTarget,
  type RpcErrorInfo,
  type Verdict,
} from '@/lib/probe/types';
import { resolveAllowed, type EgressPolicy } from '@/lib/net/egress';
import type { HostConfig, HostServerConfig, HttpServerConfig, StdioServerConfig } from './config';

/** The host file is the operator's own intent, like the CLI: loopback and private addresses are reachable. */
export const HOST_EGRESS: EgressPolicy = { allowLoopback: true, allowPrivate: true };

/** tools/list pages followed at most, so a server that keeps returning a cursor cannot hold the startup. */
const MAX_TOOL_PAGES = 20;

export type ListOutcome =
  | { ok: true; tools: string[] }
  | { ok: false; outcome: Outcome; rpcError: RpcErrorInfo | null; detail: string };

let listCounter = 0;
function nextListId(): string {
  listCounter += 1;
  return `erawatch-host-${listCounter}`;
}

export function probeOptionsFor(server: HostServerConfig, config: HostConfig): ProbeOptions {
  return {
    ...DEFAULT_PROBE_OPTIONS,
    modernVersions: config.modernVersions,
    legacyVersions: config.legacyVersions,
    timeoutMs: server.timeoutMs,
    legacyProbeTimeoutMs: server.legacyProbeTimeoutMs,
  };
}

function modernMeta(version: string, options: ProbeOptions): Record<string, unknown> {
  return {
    'io.modelcontextprotocol/protocolVersion': version,
    'io.modelcontextprotocol/clientInfo': options.clientInfo,
    'io.modelcontextprotocol/clientCapabilities': {},
  };
}

/** Reads one tools/list page: tool names and the next cursor, or why the answer is not a tools list. */
function readToolsPage(ex: Exchange): { names: string[]; cursor: string | null } | ListOutcome {
  if (ex.outcome !== 'result') {
    return {
      ok: false,
      outcome: ex.outcome,
      rpcError: ex.outcome === 'rpc_error' ? rpcErrorOf(ex.message) : null,
      detail: ex.detail ?? ex.outcome,
    };
  }
  const result = ex.message?.result;
  if (!isPlainObject(result) || !Array.isArray(result.tools)) {
    return {
      ok: false,
      outcome: 'not_jsonrpc',
      rpcError: null,
      detail: 'tools/list result has no tools array',
    };
  }
  const names: string[] = [];
  for (const tool of result.tools) {
    if (!isPlainObject(tool) || typeof tool.name !== 'string' || tool.name === '') {
      return { ok: false, outcome: 'not_jsonrpc', rpcError: null, detail: 'a tool has no name' };
    }
    names.push(tool.name);
  }
  const cursor = typeof result.nextCursor === 'string' && result.nextCursor !== '' ? result.nextCursor : null;
  return { names, cursor };
}

/** Follows tools/list pages on a transport whose era is settled; `shape` builds each request's params. */
async function listPages(
  transport: ProbeTransport,
  send: SendOptions,
  params: (cursor: string | null) => Record<string, unknown>,
): Promise<ListOutcome> {
  const names: string[] = [];
  let cursor: string | null = null;
  for (let page = 0; page < MAX_TOOL_PAGES; page++) {
    const request: JsonRpcRequest = {
      jsonrpc: '2.0',
      id: nextListId(),
      method: 'tools/list',
      params: params(cursor),
    };
    const read = readToolsPage(await transport.request(request, send));
    if ('ok' in read) return read;
    names.push(...read.names);
    cursor = read.cursor;
    if (cursor === null) return { ok: true, tools: names };
  }
  return {
    ok: false,
    outcome: 'body_too_large',
    rpcError: null,
    detail: `more than ${MAX_TOOL_PAGES} tools/list pages`,
  };
}

export interface HostPeer {
  readonly config: HostServerConfig;
  /** The era cache key of this peer. */
  readonly key: string;
  /** Starts the process if it is not running (a restart after an exit); no-op over HTTP. Returns true on a (re)start. */
  ensureStarted(): boolean;
  /** stdio: the running process has had its one initialize, so a new probe needs a fresh process. */
  spent(): boolean;
  /** Ends the running process (stdio), so the next ensureStarted launches a fresh one; no-op over HTTP. */
  retire(): Promise<void>;
  /**
   * stdio: what the running process answered, late, to the discover of a probe that ended legacy, when
   * that answer is modern (`DiscoverResult`, `modern error -32022`); null otherwise and over HTTP.
   */
  lateModernAnswer(): string | null;
  incarnation(): PeerIncarnation;
  probe(options: ProbeOptions): Promise<Verdict>;
  listTools(entry: EraEntry, options: ProbeOptions): Promise<ListOutcome>;
  /** The process id of the current incarnation (stdio). */
  pid(): number | null;
  /** Last lines the server logged on stderr (stdio). */
  stderrTail(): readonly string[];
  close(): Promise<void>;
}

export class StdioHostPeer implements HostPeer {
  readonly key: string;
  private transport: StdioTransport | null = null;
  /** The process that received an initialize: it never gets a second one. */
  private initialized: StdioTransport | null = null;
  /** The discover still open on a process whose probe ended legacy: its late answer may contradict that. */
  private openDiscover: { transport: StdioTransport; id: JsonRpcId } | null = null;
  private launches = 0;
  private readonly endpoint: string;

  constructor(
    readonly config: StdioServerConfig,
    private readonly onStderr?: (server: string, line: string) => void,
  ) {
    const spec = { command: config.command, args: config.args, env: config.env, cwd: config.cwd };
    // Entry names are unique in a host file: twin entries of one command line are two peers.
    this.key = stdioPeerKey(spec, config.name);
    this.endpoint = `${describeCommand(spec)} (in ${config.cwd})`;
  }

  get launchCount(): number {
    return this.launches;
  }

  ensureStarted(): boolean {
    if (this.transport?.running) return false;
    const { command, args, env, cwd } = this.config;
    this.transport = StdioTransport.launch(
      { command, args, env, cwd },
      { onStderr: (line) => this.onStderr?.(this.config.name, line) },
    );
    this.launches += 1;
    return true;
  }

  private current(): StdioTransport {
    this.ensureStarted();
    if (!this.transport) throw new Error('stdio transport did not start');
    return this.transport;
  }

  incarnation(): PeerIncarnation {
    const pid = this.transport?.pid;
    return { endpoint: this.endpoint, instance: pid === undefined || pid === null ? null : String(pid) };
  }

  pid(): number | null {
    return this.transport?.pid ?? null;
  }

  stderrTail(): readonly string[] {
    return this.transport?.stderrTail() ?? [];
  }

  spent(): boolean {
    return this.transport !== null && this.transport.running && this.initialized === this.transport;
  }

  async retire(): Promise<void> {
    await this.transport?.close();
  }

  async probe(options: ProbeOptions): Promise<Verdict> {
    const transport = this.current();
    const verdict = await probeNode(
      { url: `stdio:${this.endpoint}`, allowLegacy: this.config.allowLegacy },
      options,
      { transport },
    );
    if (verdict.initializeSent) this.initialized = transport;
    const discover = verdict.evidence.find((e) => e.step === 'discover');
    this.openDiscover =
      verdict.verdict === 'legacy' && discover?.outcome === 'timeout'
        ? { transport, id: discover.requestId }
        : null;
    return verdict;
  }

  lateModernAnswer(): string | null {
    const open = this.openDiscover;
    if (!open || open.transport !== this.transport) return null;
    const late = open.transport.lateAnswerNow(open.id);
    if (!late) return null;
    const answer = classifyDiscover(late.outcome, late.message);
    if (answer.kind === 'discover') return 'DiscoverResult';
    if (answer.kind === 'modern_error') return `modern error ${answer.code}`;
    return null;
  }

  /** On stdio the connection is the session: a legacy peer was initialized by the probe on this same process. */
  listTools(entry: EraEntry, options: ProbeOptions): Promise<ListOutcome> {
    const transport = this.current();
    const send: SendOptions = { timeoutMs: options.timeoutMs, maxBodyBytes: options.maxBodyBytes };
    if (entry.era === 'modern') {
      const version = entry.version ?? options.modernVersions[0] ?? '';
      return listPages(transport, send, (cursor) => ({
        _meta: modernMeta(version, options),
        ...(cursor ? { cursor } : {}),
      }));
    }
    return listPages(transport, send, (cursor) => (cursor ? { cursor } : {}));
  }

  async close(): Promise<void> {
    await this.transport?.close();
  }
}

export class HttpHostPeer implements HostPeer {
  readonly key: string;

  constructor(readonly config: HttpServerConfig) {
    this.key = httpPeerKey(config.url, credentialIdentity(config));
  }

  ensureStarted(): boolean {
    return false;
  }

  spent(): boolean {
    return false;
  }

  async retire(): Promise<void> {}

  lateModernAnswer(): string | null {
    return null;
  }

  incarnation(): PeerIncarnation {
    return { endpoint: this.config.url, instance: null };
  }

  pid(): number | null {
    return null;
  }

  stderrTail(): readonly string[] {
    return [];
  }

  private target(): ProbeTarget {
    const { url, headers, allowLegacy, oauth } = this.config;
    return { url, headers, allowLegacy, ...(oauth ? { oauth } : {}) };
  }

  probe(options: ProbeOptions): Promise<Verdict> {
    return probeNode(this.target(), options, { egress: HOST_EGRESS });
  }

  async listTools(entry: EraEntry, options: ProbeOptions): Promise<ListOutcome> {
    const url = new URL(this.config.url);
    let address: string;
    try {
      address = await resolveAllowed(url.hostname, HOST_EGRESS);
    } catch (err) {
      return {
        ok: false,
        outcome: 'egress_refused',
        rpcError: null,
        detail: err instanceof Error ? err.message : String(err),
      };
    }
    const dispatcher = sharedProbeAgent(HOST_EGRESS);
    // The probe just obtained the token, so this is a cache hit (or the same failure).
    const auth = await new ProbeAuth(
      this.target(),
      options,
      { dispatcher, now: Date.now },
      Date.now(),
    ).prepare();
    if (!auth.ok) return { ok: false, outcome: 'auth_required', rpcError: null, detail: auth.reason };
    const transport = new HttpTransport({
      url,
      dispatcher,
      address,
      headers: auth.headers,
      now: Date.now,
    });
    const send: SendOptions = { timeoutMs: options.timeoutMs, maxBodyBytes: options.maxBodyBytes };
    if (entry.era === 'modern') {
      const version = entry.version ?? options.modernVersions[0] ?? '';
      return listPages(
        transport,
        { ...send, protocolVersionHeader: version, methodHeader: true },
        (cursor) => ({
          _meta: modernMeta(version, options),
          ...(cursor ? { cursor } : {}),
        }),
      );
    }
    return this.listLegacy(transport, entry, options, send);
  }

  /** Over HTTP a legacy listing needs its own handshake (the probe ended its session); the session is ended after. */
  private async listLegacy(
    transport: HttpTransport,
    entry: EraEntry,
    options: ProbeOptions,
    send: SendOptions,
  ): Promise<ListOutcome> {
    const version = entry.version ?? options.legacyVersions[0] ?? '';
    const init: JsonRpcRequest = {
      jsonrpc: '2.0',
      id: nextListId(),
      method: 'initialize',
      params: { protocolVersion: version, capabilities: {}, clientInfo: options.clientInfo },
    };
    const ex = await transport.request(init, { ...send, timeoutMs: options.legacyProbeTimeoutMs });
    if (ex.outcome !== 'result' || !ex.message) {
      return {
        ok: false,
        outcome: ex.outcome,
        rpcError: ex.outcome === 'rpc_error' ? rpcErrorOf(ex.message) : null,
        detail: ex.detail ?? `initialize: ${ex.outcome}`,
      };
    }
    const evidence = checkLegacyInitialize(ex.message, init.id, options.legacyVersions);
    if (evidence.failed) {
      return {
        ok: false,
        outcome: 'not_jsonrpc',
        rpcError: null,
        detail: `initialize failed ${evidence.failed}`,
      };
    }
    const negotiated = evidence.protocolVersion ?? version;
    const session = ex.sessionId ?? undefined;
    try {
      await transport.notify(
        { jsonrpc: '2.0', method: 'notifications/initialized' },
        { ...send, protocolVersionHeader: negotiated, sessionId: session },
      );
      return await listPages(
        transport,
        { ...send, protocolVersionHeader: negotiated, sessionId: session },
        (cursor) => (cursor ? { cursor } : {}),
      );
    } finally {
      if (session) await transport.endSession(session, { ...send, protocolVersionHeader: negotiated });
    }
  }

  async close(): Promise<void> {}
}

export function createHostPeer(
  server: HostServerConfig,
  onStderr?: (server: string, line: string) => void,
): HostPeer {
  return server.kind === 'stdio' ? new StdioHostPeer(server, onStderr) : new HttpHostPeer(server);
}

/**
 * Which credential an HTTP entry presents, as a digest (the secret never in a key): its OAuth client and
 * where it gets tokens, or its credential headers; '' for none.
 */
export function credentialIdentity(config: Pick<HttpServerConfig, 'oauth' | 'headers' | 'url'>): string {
  const kind = credentialOf({
    url: config.url,
    headers: config.headers,
    ...(config.oauth ? { oauth: config.oauth } : {}),
  });
  if (kind === 'none') return '';
  const o = config.oauth;
  const material =
    kind === 'oauth' && o
      ? [
          'oauth',
          o.clientId,
          o.clientSecret,
          o.issuer ?? '',
          o.tokenUrl ?? '',
          o.scope ?? '',
          o.resource ?? '',
        ]
      : [
          'header',
          ...Object.entries(config.headers)
            .sort(([a], [b]) => (a < b ? -1 : 1))
            .flat(),
        ];
  return createHash('sha256').update(JSON.stringify(material)).digest('base64url').slice(0, 16);
}
