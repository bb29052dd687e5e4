// The probe's stdio transport: one launched process, newline-delimited JSON-RPC on stdin/stdout. stderr is
// the server's log and never an error signal; stdout that is not JSON-RPC, an exit, or silence is a broken
// server, not a legacy one. The command is spawned without a shell, exactly as configured.
import { spawn, type ChildProcess } from 'node:child_process';
import { isJsonRpcResponse, isPlainObject, quoteValue } from './classify';
import { childEnvironment } from '@/lib/settings';
import { CAN_TRACK, descendantsOf, isRunning, signalProcess, type ProcessRef } from './descendants';
import type { StdioPeerSpec } from './era-cache';
import type {
  Exchange,
  JsonRpcId,
  JsonRpcNotification,
  JsonRpcRequest,
  ProbeTransport,
  SendOptions,
} from './transport';
import type { Outcome } from './types';

export interface StdioTransportOptions {
  /** Receives each stderr line (the server's log). */
  onStderr?: (line: string) => void;
  /**
   * Requests whose deadline kills the process. The legacy probe's deadline must be enforced by the
   * transport, so by default an `initialize` that outlives it takes its process down with it.
   */
  killOnTimeout?: (method: string) => boolean;
  /** Environment the process inherits under its configured `env` (default: this process's). */
  baseEnv?: NodeJS.ProcessEnv;
  /** Grace between SIGTERM and SIGKILL on close. */
  killGraceMs?: number;
  /** Cap on one stdout line when no request says otherwise. */
  maxLineBytes?: number;
}

export interface ProcessExit {
  code: number | null;
  signal: NodeJS.Signals | null;
  /** Set when the process could not be started at all (ENOENT, EACCES, ...). */
  spawnError?: string;
}

interface Pending {
  id: JsonRpcId;
  method: string;
  startedAt: number;
  maxBodyBytes: number;
  timer: NodeJS.Timeout;
  /** The line was written into the running process's stdin (or the process answered it). */
  delivered: boolean;
  settle(outcome: Outcome, message: Record<string, unknown> | null, detail?: string): void;
}

/** A request whose deadline passed: still open on the pipe, so its answer may yet arrive. */
interface Overdue {
  startedAt: number;
  timeoutMs: number;
  answer: Exchange | null;
}

const STDERR_TAIL_LINES = 20;
/** How often the command's descendants are looked up while it runs (Linux), besides before every signal. */
const TRACK_INTERVAL_MS = 1_000;

/** Renders a launch for logs and evidence: the argv, quoted where needed, never the environment values. */
export function describeCommand(spec: StdioPeerSpec): string {
  const quote = (s: string) => (/^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`);
  const envNames = Object.keys(spec.env ?? {}).sort();
  const envPart = envNames.length ? `${envNames.map((n) => `${n}=…`).join(' ')} ` : '';
  return envPart + [spec.command, ...spec.args].map(quote).join(' ');
}

export class StdioTransport implements ProbeTransport {
  readonly spec: StdioPeerSpec;
  private readonly child: ChildProcess;
  private readonly options: Required<Omit<StdioTransportOptions, 'onStderr' | 'baseEnv'>> &
    Pick<StdioTransportOptions, 'onStderr'>;
  private readonly pending = new Map<JsonRpcId, Pending>();
  /** Ids we sent whose exchange already ended (a late answer to one of them is expected, not a fault). */
  private readonly retired = new Set<JsonRpcId>();
  private readonly overdue = new Map<JsonRpcId, Overdue>();
  private readonly overdueWaiters = new Set<() => void>();
  private stdoutBuffer = '';
  private stderrBuffer = '';
  private readonly stderrLines: string[] = [];
  private broken: { outcome: Outcome; detail: string } | null = null;
  private exit: ProcessExit | null = null;
  private readonly exitWaiters: Array<(exit: ProcessExit) => void> = [];
  /** Every descendant seen so far (Linux): those that left the process group (setsid) are signalled too. */
  private readonly descendants = new Map<number, ProcessRef>();
  private tracker: NodeJS.Timeout | null = null;

  private constructor(spec: StdioPeerSpec, options: StdioTransportOptions) {
    this.spec = spec;
    this.options = {
      onStderr: options.onStderr,
      killOnTimeout: options.killOnTimeout ?? ((method) => method === 'initialize'),
      killGraceMs: options.killGraceMs ?? 2_000,
      maxLineBytes: options.maxLineBytes ?? 1024 * 1024,
    };
    this.child = spawn(spec.command, [...spec.args], {
      cwd: spec.cwd,
      env: { ...(options.baseEnv ?? childEnvironment()), ...spec.env },
      stdio: ['pipe', 'pipe', 'pipe'],
      shell: false,
      windowsHide: true,
      // Its own process group: whatever it forks is ended with it (signalGroup), not just its own pid.
      detached: process.platform !== 'win32',
    });
    this.child.on('error', (err: NodeJS.ErrnoException) => {
      // 'error' without a pid means the process never started; with one it is a kill or pipe failure.
      if (this.child.pid === undefined)
        this.recordExit({ code: null, signal: null, spawnError: err.code ?? err.message });
    });
    // 'close' comes once stdout is drained, so an answer written just before exiting is still read; a
    // grandchild holding the pipe open would delay it forever, hence the bounded fallback after 'exit'.
    this.child.on('close', (code, signal) => this.recordExit({ code, signal }));
    this.child.on('exit', (code, signal) => {
      setTimeout(() => this.recordExit({ code, signal }), 250).unref();
    });
    this.child.stdout?.setEncoding('utf8');
    this.child.stdout?.on('data', (chunk: string) => this.readStdout(chunk));
    this.child.stdout?.on('error', () => {});
    this.child.stderr?.setEncoding('utf8');
    this.child.stderr?.on('data', (chunk: string) => this.readStderr(chunk));
    this.child.stderr?.on('error', () => {});
    // Writing to a process that has gone away fails with EPIPE; the exit handler reports it.
    this.child.stdin?.on('error', () => {});
    // A descendant whose parent exits is re-parented away from the command: it is remembered while its
    // parent chain still leads here.
    if (CAN_TRACK && this.child.pid !== undefined) {
      this.tracker = setInterval(() => this.track(), TRACK_INTERVAL_MS);
      this.tracker.unref();
    }
  }

  /** Looks up the command's descendants now (those of the command, and of every one remembered). */
  private track(): void {
    if (!CAN_TRACK) return;
    const roots: number[] = [];
    const pid = this.child.pid;
    if (pid !== undefined && this.child.exitCode === null && this.child.signalCode === null) roots.push(pid);
    for (const ref of this.descendants.values()) {
      if (isRunning(ref)) roots.push(ref.pid);
      else this.descendants.delete(ref.pid);
    }
    if (roots.length === 0) return;
    for (const ref of descendantsOf(roots)) this.descendants.set(ref.pid, ref);
  }

  /** Launches the configured command. Never throws: a failed launch shows up as `spawn_failed` exchanges. */
  static launch(spec: StdioPeerSpec, options: StdioTransportOptions = {}): StdioTransport {
    return new StdioTransport(spec, options);
  }

  /** The process id, or null when the launch failed. */
  get pid(): number | null {
    return this.child.pid ?? null;
  }

  get running(): boolean {
    return this.exit === null;
  }

  /** Why the stdout channel stopped being trusted, if it did. */
  get brokenBy(): { outcome: Outcome; detail: string } | null {
    return this.broken;
  }

  exitInfo(): ProcessExit | null {
    return this.exit;
  }

  stderrTail(): readonly string[] {
    return this.stderrLines;
  }

  /** Resolves when the process has exited (at once if it already has). */
  exited(): Promise<ProcessExit> {
    if (this.exit) return Promise.resolve(this.exit);
    return new Promise((resolve) => this.exitWaiters.push(resolve));
  }

  request(message: JsonRpcRequest, options: SendOptions): Promise<Exchange> {
    const startedAt = Date.now();
    const refusal = this.refusal();
    if (refusal)
      return Promise.resolve(this.exchange(refusal.outcome, null, startedAt, refusal.detail, false));
    if (this.pending.has(message.id) || this.retired.has(message.id)) {
      return Promise.reject(
        new Error(`request id ${quoteValue(message.id)} was already used on this transport`),
      );
    }
    return new Promise<Exchange>((resolve) => {
      const entry: Pending = {
        id: message.id,
        method: message.method,
        startedAt,
        maxBodyBytes: options.maxBodyBytes,
        delivered: false,
        timer: setTimeout(() => {
          const kill = this.options.killOnTimeout(message.method);
          if (!kill) this.overdue.set(message.id, { startedAt, timeoutMs: options.timeoutMs, answer: null });
          entry.settle(
            'timeout',
            null,
            `no answer within ${options.timeoutMs} ms${kill ? '; process killed' : ''}`,
          );
          if (kill) this.signalGroup('SIGKILL');
        }, options.timeoutMs),
        settle: (outcome, reply, detail) => {
          if (!this.pending.delete(message.id)) return;
          clearTimeout(entry.timer);
          this.retired.add(message.id);
          resolve(this.exchange(outcome, reply, startedAt, detail, entry.delivered));
        },
      };
      this.pending.set(message.id, entry);
      this.writeLine(message, () => {
        entry.delivered = true;
      });
    });
  }

  /**
   * The answer to a request that timed out and was left open (its deadline did not kill the process),
   * waiting up to `waitMs` for it; null when none came, or the process exited or the channel broke first.
   */
  lateAnswer(id: JsonRpcId, waitMs: number): Promise<Exchange | null> {
    const overdue = this.overdue.get(id);
    if (!overdue) return Promise.resolve(null);
    if (overdue.answer || waitMs <= 0 || this.refusal()) return Promise.resolve(overdue.answer);
    return new Promise((resolve) => {
      const done = () => {
        if (!overdue.answer && !this.refusal()) return;
        clearTimeout(timer);
        this.overdueWaiters.delete(done);
        resolve(overdue.answer);
      };
      const timer = setTimeout(() => {
        this.overdueWaiters.delete(done);
        resolve(overdue.answer);
      }, waitMs);
      this.overdueWaiters.add(done);
    });
  }

  /** The late answer to `id` that has already arrived, if any (what `lateAnswer` with no wait gives). */
  lateAnswerNow(id: JsonRpcId): Exchange | null {
    return this.overdue.get(id)?.answer ?? null;
  }

  async notify(message: JsonRpcNotification, _options: SendOptions): Promise<Exchange> {
    const startedAt = Date.now();
    const refusal = this.refusal();
    if (refusal) return this.exchange(refusal.outcome, null, startedAt, refusal.detail, false);
    this.writeLine(message);
    return this.exchange('result', null, startedAt, 'notification written', true);
  }

  /** stdio has no sessions; the transport lifetime is the connection. */
  async endSession(_sessionId: string, _options: SendOptions): Promise<Exchange> {
    return this.exchange('result', null, Date.now(), 'no sessions on stdio', false);
  }

  /**
   * Ends the process and everything it forked: stdin closed, SIGTERM to its process group, SIGKILL to the
   * group after the grace period if any member is left, and the pipes destroyed, so a grandchild that holds
   * stdout keeps neither this process nor the caller's event loop alive. Resolves once the command is gone.
   */
  async close(): Promise<ProcessExit> {
    this.closing ??= this.end();
    return this.closing;
  }

  private closing: Promise<ProcessExit> | null = null;

  private async end(): Promise<ProcessExit> {
    const graceEnds = Date.now() + this.options.killGraceMs;
    this.child.stdin?.end();
    this.signalGroup('SIGTERM');
    const killer = setTimeout(() => this.signalGroup('SIGKILL'), this.options.killGraceMs);
    const exit = await this.exited();
    clearTimeout(killer);
    // The command is gone; members of its group that outlived the SIGTERM get the rest of the grace.
    while (this.groupAlive() && Date.now() < graceEnds) {
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    if (this.groupAlive()) this.signalGroup('SIGKILL');
    if (this.tracker) clearInterval(this.tracker);
    for (const pipe of [this.child.stdin, this.child.stdout, this.child.stderr]) pipe?.destroy();
    return exit;
  }

  /**
   * Sends `signal` to the command's process group (the command alone where there are no groups) and, on
   * Linux, to every descendant that left the group (setsid), looked up just before.
   */
  private signalGroup(signal: NodeJS.Signals): void {
    const pid = this.child.pid;
    if (pid === undefined) return;
    this.track();
    try {
      if (process.platform === 'win32') this.child.kill(signal);
      else process.kill(-pid, signal);
    } catch {
      // The group is already gone.
    }
    for (const ref of this.descendants.values()) signalProcess(ref, signal);
  }

  /** Whether any member of the group, or any remembered descendant, is still running. */
  private groupAlive(): boolean {
    const pid = this.child.pid;
    if (pid === undefined || process.platform === 'win32') return false;
    this.track();
    if ([...this.descendants.values()].some(isRunning)) return true;
    try {
      process.kill(-pid, 0);
      return true;
    } catch {
      return false;
    }
  }

  private refusal(): { outcome: Outcome; detail: string } | null {
    if (this.exit) return this.exitReason(this.exit);
    return this.broken;
  }

  private exitReason(exit: ProcessExit): { outcome: Outcome; detail: string } {
    if (exit.spawnError)
      return { outcome: 'spawn_failed', detail: `could not start ${this.spec.command}: ${exit.spawnError}` };
    const how = exit.signal ? `signal ${exit.signal}` : `status ${exit.code}`;
    const tail = this.stderrLines.at(-1);
    return {
      outcome: 'process_exited',
      detail: `process exited with ${how}${tail ? `; stderr: ${tail}` : ''}`,
    };
  }

  /** `onWritten` runs once the line is in the process's stdin; a failed write (EPIPE) never calls it. */
  private writeLine(message: JsonRpcRequest | JsonRpcNotification, onWritten?: () => void): void {
    const stdin = this.child.stdin;
    if (!stdin || stdin.destroyed || !stdin.writable) return;
    stdin.write(`${JSON.stringify(message)}\n`, (err) => {
      if (!err) onWritten?.();
    });
  }

  private readStdout(chunk: string): void {
    if (this.broken) return;
    this.stdoutBuffer += chunk;
    let newline = this.stdoutBuffer.indexOf('\n');
    while (newline !== -1) {
      const line = this.stdoutBuffer.slice(0, newline).replace(/\r$/, '');
      this.stdoutBuffer = this.stdoutBuffer.slice(newline + 1);
      if (line.trim() !== '') this.readLine(line);
      if (this.broken) return;
      newline = this.stdoutBuffer.indexOf('\n');
    }
    const cap = Math.max(this.options.maxLineBytes, ...[...this.pending.values()].map((p) => p.maxBodyBytes));
    if (Buffer.byteLength(this.stdoutBuffer) > cap) {
      this.breakChannel('body_too_large', `a stdout line exceeded ${cap} bytes`);
    }
  }

  private readLine(line: string): void {
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      this.breakChannel('invalid_json', `stdout carried a line that is not JSON: ${line.slice(0, 120)}`);
      return;
    }
    if (isPlainObject(value) && value.jsonrpc === '2.0' && typeof value.method === 'string') {
      // A server-initiated request or notification (logging, list_changed): legitimate, not for the probe.
      return;
    }
    if (!isJsonRpcResponse(value)) {
      this.breakChannel('not_jsonrpc', `stdout carried JSON that is not JSON-RPC: ${line.slice(0, 120)}`);
      return;
    }
    const id = value.id as unknown;
    const mine = typeof id === 'string' || typeof id === 'number' ? this.pending.get(id) : undefined;
    if (mine) {
      // An answer with our id proves the line arrived, even if the write callback has not run yet.
      mine.delivered = true;
      if (Buffer.byteLength(line) > mine.maxBodyBytes) {
        mine.settle(
          'body_too_large',
          null,
          `response of ${Buffer.byteLength(line)} bytes exceeds ${mine.maxBodyBytes}`,
        );
        return;
      }
      mine.settle('error' in value ? 'rpc_error' : 'result', value);
      return;
    }
    if ((typeof id === 'string' || typeof id === 'number') && this.retired.has(id)) {
      this.recordLateAnswer(id, value);
      return;
    }
    const oldest = this.pending.values().next();
    if (oldest.done) return;
    // An error with a null id answers the request that could not be parsed: on a pipe, the oldest one.
    if (id === null && 'error' in value) oldest.value.settle('rpc_error', value);
    else oldest.value.settle('wrong_id', value, `response id ${quoteValue(id)}`);
  }

  private readStderr(chunk: string): void {
    this.stderrBuffer += chunk;
    const lines = this.stderrBuffer.split('\n');
    this.stderrBuffer = lines.pop() ?? '';
    if (this.stderrBuffer.length > 8192) this.stderrBuffer = this.stderrBuffer.slice(-8192);
    for (const raw of lines) {
      const line = raw.replace(/\r$/, '').slice(0, 2000);
      if (!line) continue;
      this.stderrLines.push(line);
      if (this.stderrLines.length > STDERR_TAIL_LINES) this.stderrLines.shift();
      this.options.onStderr?.(line);
    }
  }

  /** Keeps the first answer to an overdue request: a timeout on a pipe is not a refusal to answer. */
  private recordLateAnswer(id: JsonRpcId, message: Record<string, unknown>): void {
    const overdue = this.overdue.get(id);
    if (!overdue || overdue.answer) return;
    const late = Date.now() - overdue.startedAt;
    overdue.answer = this.exchange(
      'error' in message ? 'rpc_error' : 'result',
      message,
      overdue.startedAt,
      `answered ${late} ms after the request, past its ${overdue.timeoutMs} ms deadline`,
      true,
    );
    this.wakeOverdueWaiters();
  }

  private wakeOverdueWaiters(): void {
    for (const wake of [...this.overdueWaiters]) wake();
  }

  private breakChannel(outcome: Outcome, detail: string): void {
    this.broken = { outcome, detail };
    this.stdoutBuffer = '';
    for (const entry of [...this.pending.values()]) entry.settle(outcome, null, detail);
    this.wakeOverdueWaiters();
  }

  private recordExit(exit: ProcessExit): void {
    if (this.exit) return;
    this.exit = exit;
    const reason = this.exitReason(exit);
    for (const entry of [...this.pending.values()]) entry.settle(reason.outcome, null, reason.detail);
    for (const waiter of this.exitWaiters.splice(0)) waiter(exit);
    this.wakeOverdueWaiters();
  }

  private exchange(
    outcome: Outcome,
    message: Record<string, unknown> | null,
    startedAt: number,
    detail: string | undefined,
    delivered: boolean,
  ): Exchange {
    const exchange: Exchange = {
      outcome,
      delivered,
      httpStatus: null,
      contentType: null,
      message,
      sessionId: null,
      servedBy: null,
      address: null,
      elapsedMs: Date.now() - startedAt,
    };
    if (detail !== undefined) exchange.detail = detail;
    return exchange;
  }
}
