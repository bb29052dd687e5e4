// The agent-host startup the seed designs: discovery for every server in parallel; an ambiguous first answer
// fails closed (never a downgrade) and discovery is retried per the server's policy; an allowlisted archive
// gets its one bounded initialize inside the probe; then tools/list on each available server, merged under
// the declared collision policy. The era of each server lives in the era cache, as a real host's would.
import { EraCache, type EraEntry } from '@/lib/probe/era-cache';
import type { Outcome, ProbeOptions, Verdict } from '@/lib/probe/types';
import type { HostConfig, HostServerConfig, RetryPolicy } from './config';
import { mergeTools, type MergeResult } from './merge';
import { createHostPeer, probeOptionsFor, type HostPeer, type ListOutcome } from './peer';

/** Non-answers that may clear up on their own (a slow start, a crash); a protocol answer will not. */
const RETRYABLE: ReadonlySet<string> = new Set<Outcome>([
  'timeout',
  'process_exited',
  'closed',
  'reset',
  'refused',
  'empty',
  'http_5xx',
  'network_error',
]);

export function isRetryable(verdict: Verdict): boolean {
  return verdict.verdict === 'unavailable' && RETRYABLE.has(verdict.reason);
}

/** Delay before attempt `n` (2-based): delayMs × backoff^(n-2), capped. */
export function retryDelay(policy: RetryPolicy, attempt: number): number {
  return Math.min(policy.maxDelayMs, Math.round(policy.delayMs * policy.backoff ** Math.max(0, attempt - 2)));
}

export interface HostSessionDeps {
  cache?: EraCache;
  sleep?: (ms: number) => Promise<void>;
  now?: () => number;
  /** Each stderr line of a stdio server (its log). */
  onStderr?: (server: string, line: string) => void;
}

export interface ServerState {
  config: HostServerConfig;
  peer: HostPeer;
  options: ProbeOptions;
  /** Every probe verdict, oldest first. */
  verdicts: Verdict[];
  attempts: number;
  launches: number;
  tools: string[] | null;
  listFailure: string | null;
  /** A late modern answer contradicted the legacy era again after the re-probe: no era stands. */
  contradicted: boolean;
  notes: string[];
}

export interface ServerReport {
  name: string;
  transport: 'stdio' | 'http';
  target: string;
  available: boolean;
  era: 'modern' | 'legacy' | 'unavailable';
  version: string | null;
  reason: string;
  /** Discovery attempts made at startup (retries included). */
  attempts: number;
  /** Processes launched for this server (restarts included); 0 over HTTP. */
  launches: number;
  /** Process id of the last launch (stdio). */
  pid: number | null;
  initializeSent: boolean;
  /** The server's own tool names, sorted. */
  tools: string[];
  notes: string[];
  stderrTail: string[];
  verdicts: Verdict[];
}

export interface HostCheckReport {
  file: string;
  collisionPolicy: HostConfig['collisionPolicy'];
  servers: ServerReport[];
  tools: MergeResult['tools'];
  collisions: MergeResult['collisions'];
  errors: string[];
  allAvailable: boolean;
  ok: boolean;
  durationMs: number;
}

const realSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export class HostSession {
  readonly cache: EraCache;
  private readonly states: ServerState[];
  private readonly sleep: (ms: number) => Promise<void>;
  private readonly now: () => number;
  private readonly startedAt: number;
  private merged: MergeResult | null = null;

  constructor(
    readonly config: HostConfig,
    deps: HostSessionDeps = {},
  ) {
    this.cache = deps.cache ?? new EraCache();
    this.sleep = deps.sleep ?? realSleep;
    this.now = deps.now ?? Date.now;
    this.startedAt = this.now();
    this.states = config.servers.map((server) => ({
      config: server,
      peer: createHostPeer(server, deps.onStderr),
      options: probeOptionsFor(server, config),
      verdicts: [],
      attempts: 0,
      launches: 0,
      tools: null,
      listFailure: null,
      contradicted: false,
      notes: [],
    }));
  }

  state(name: string): ServerState {
    const found = this.states.find((s) => s.config.name === name);
    if (!found) throw new Error(`no server named ${name}`);
    return found;
  }

  /** Discovery for every server in parallel, each retried per its policy until it has an era or gives up. */
  async discoverAll(): Promise<void> {
    await Promise.all(this.states.map((s) => this.discover(s)));
  }

  /** tools/list on every server with an era, in parallel, then the merge. */
  async listAll(): Promise<MergeResult> {
    await Promise.all(this.states.map((s) => this.list(s)));
    const lists = this.states
      .filter((s) => s.tools !== null)
      .map((s) => ({ server: s.config.name, tools: s.tools ?? [] }));
    this.merged = mergeTools(lists, this.config.collisionPolicy);
    return this.merged;
  }

  /** The cached era of a server's current incarnation (null when it has none, or its process is gone). */
  eraOf(state: ServerState): EraEntry | null {
    return this.cache.lookup(state.peer.key, state.peer.incarnation());
  }

  private async discover(s: ServerState): Promise<void> {
    for (let attempt = 1; attempt <= s.config.retry.attempts; attempt++) {
      if (attempt > 1) await this.sleep(retryDelay(s.config.retry, attempt));
      const verdict = await this.probeOnce(s);
      s.attempts += 1;
      if (verdict.verdict !== 'unavailable' || !isRetryable(verdict)) return;
    }
  }

  private async probeOnce(s: ServerState): Promise<Verdict> {
    // A process gets one initialize at most: probing one that had it again starts on a fresh process.
    if (s.peer.spent()) {
      await s.peer.retire();
      s.notes.push('process already initialized: relaunched for a fresh probe');
    }
    if (s.peer.ensureStarted()) s.launches += 1;
    const at = s.peer.incarnation();
    const verdict = await s.peer.probe(s.options);
    s.verdicts.push(verdict);
    this.cache.remember(s.peer.key, at, verdict);
    return verdict;
  }

  /**
   * Lists under the cached era. A contradiction of the era (-32022, or -32601 for a method that worked) or a
   * process that exited leads to one fresh discovery and one more listing, never to a silent downgrade.
   */
  private async list(s: ServerState): Promise<void> {
    s.tools = null;
    s.listFailure = null;
    s.contradicted = false;
    // A server that never got an era at startup stays out: listing must not relaunch or re-probe it.
    if (s.verdicts.at(-1)?.verdict === 'unavailable' && !this.eraOf(s)) return;
    for (let round = 0; round < 2; round++) {
      if (s.peer.ensureStarted()) {
        s.launches += 1;
        // After a contradiction the relaunch was ours, and its note already says why.
        if (!s.contradicted) s.notes.push('process had exited: restarted, era rediscovered');
      }
      s.contradicted = false;
      let entry = this.eraOf(s);
      if (!entry) {
        const verdict = await this.probeOnce(s);
        if (verdict.verdict === 'unavailable') return;
        entry = this.eraOf(s);
        if (!entry) return;
      }
      if (await this.contradictedLate(s)) continue;
      const listed: ListOutcome = await s.peer.listTools(entry, s.options);
      // The late answer may have come while the listing ran; the transport kept it.
      if (await this.contradictedLate(s)) continue;
      if (listed.ok) {
        this.cache.observe(s.peer.key, { method: 'tools/list', result: true });
        s.tools = [...listed.tools].sort();
        s.listFailure = null;
        return;
      }
      s.listFailure = `tools/list: ${listed.rpcError ? `error ${listed.rpcError.code} ${listed.rpcError.message}` : listed.detail}`;
      if (listed.rpcError) {
        const seen = this.cache.observe(s.peer.key, {
          method: 'tools/list',
          result: false,
          errorCode: listed.rpcError.code,
        });
        if (seen.action !== 'reprobe') return;
        s.notes.push(`cached ${seen.discarded.era} era contradicted (${seen.reason}): re-probed`);
      } else if (listed.outcome !== 'process_exited') {
        return;
      }
    }
  }

  /**
   * After the legacy verdict was final, the discover answered as a modern server would: the cached legacy
   * era is contradicted. The process, which holds a legacy handshake, is ended and a fresh one re-probed.
   */
  private async contradictedLate(s: ServerState): Promise<boolean> {
    const late = s.peer.lateModernAnswer();
    if (!late) return false;
    const seen = this.cache.observeLateModern(s.peer.key);
    if (seen.action !== 'reprobe') return false;
    s.tools = null;
    s.contradicted = true;
    s.notes.push(
      `cached legacy era contradicted by a late ${late} to server/discover: process relaunched and re-probed`,
    );
    await s.peer.retire();
    return true;
  }

  report(): HostCheckReport {
    const servers = this.states.map((s) => this.serverReport(s));
    const merged = this.merged ?? mergeTools([], this.config.collisionPolicy);
    const allAvailable = servers.every((s) => s.available);
    return {
      file: this.config.file,
      collisionPolicy: this.config.collisionPolicy,
      servers,
      tools: merged.tools,
      collisions: merged.collisions,
      errors: merged.errors,
      allAvailable,
      ok: allAvailable && merged.ok,
      durationMs: Math.max(0, this.now() - this.startedAt),
    };
  }

  private serverReport(s: ServerState): ServerReport {
    const last = s.verdicts.at(-1) ?? null;
    const entry = this.eraOf(s);
    const available = entry !== null && s.tools !== null;
    let reason = last?.reason ?? 'not_probed';
    if (entry && s.tools === null && s.listFailure) reason = 'tools_list_failed';
    if (!available && s.contradicted) reason = 'era_contradicted';
    return {
      name: s.config.name,
      transport: s.config.kind,
      target: s.config.kind === 'stdio' ? [s.config.command, ...s.config.args].join(' ') : s.config.url,
      available,
      era: available && entry ? entry.era : 'unavailable',
      version: available && entry ? entry.version : null,
      reason,
      attempts: s.attempts,
      launches: s.launches,
      pid: s.peer.pid(),
      initializeSent: s.verdicts.some((v) => v.initializeSent),
      tools: s.tools ?? [],
      notes: s.listFailure && !available ? [...s.notes, s.listFailure] : [...s.notes],
      stderrTail: [...s.peer.stderrTail()],
      verdicts: s.verdicts,
    };
  }

  async close(): Promise<void> {
    await Promise.all(this.states.map((s) => s.peer.close()));
  }
}

/** The whole startup check: discovery, listing, merge, report; every process it started is stopped. */
export async function runHostCheck(config: HostConfig, deps: HostSessionDeps = {}): Promise<HostCheckReport> {
  const session = new HostSession(config, deps);
  try {
    await session.discoverAll();
    await session.listAll();
    return session.report();
  } finally {
    await session.close();
  }
}
