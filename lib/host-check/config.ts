// host.yaml: the servers an agent host launches (stdio commands) or reaches (HTTP URLs), each with its own
// allowLegacy, deadlines and discovery retry policy. stdio targets come only from this file or the CLI:
// no web request can name a command to run.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { isMap, LineCounter, parseDocument, type Document } from 'yaml';
import { z } from 'zod';
import { resolveOAuth } from '@/lib/poller/targets';
import { processVariables } from '@/lib/settings';
import {
  DEFAULT_LEGACY_VERSIONS,
  DEFAULT_MODERN_VERSIONS,
  type OAuthClientCredentials,
} from '@/lib/probe/types';
import { OAuthClientCredentialsInput } from '@/lib/schemas/balancer';

export const COLLISION_POLICIES = ['prefix', 'reject'] as const;
export type CollisionPolicy = (typeof COLLISION_POLICIES)[number];

const revision = z.string().regex(/^\d{4}-\d{2}-\d{2}$/, 'must be a revision date like 2025-11-25');
const millis = (min: number, max: number) =>
  z
    .int('must be a whole number of milliseconds')
    .min(min, `must be at least ${min}`)
    .max(max, `must be at most ${max}`);

const RetryPolicy = z.strictObject({
  /** Discovery attempts in all, the first included. */
  attempts: z
    .int('must be a whole number')
    .min(1, 'must be at least 1')
    .max(100, 'must be at most 100')
    .default(5),
  delayMs: millis(0, 600_000).default(500),
  backoff: z.number().min(1, 'must be at least 1').max(10, 'must be at most 10').default(2),
  maxDelayMs: millis(0, 600_000).default(10_000),
});

const ServerEntry = z
  .strictObject({
    // The prefix policy renames a tool to <server>/<tool>, so a name may not contain a slash.
    name: z
      .string('is required')
      .regex(
        /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/,
        'must be 1-64 letters, digits, dots, dashes or underscores',
      ),
    command: z.string().min(1, 'must not be empty').optional(),
    args: z.array(z.string('must be a string')).max(256).optional(),
    env: z
      .record(
        z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'must be an environment variable name'),
        z.string(),
      )
      .optional(),
    cwd: z.string().min(1, 'must not be empty').optional(),
    url: z
      .url({ protocol: /^https?$/, error: 'must be an http:// or https:// URL' })
      .max(2048, 'must be at most 2048 characters')
      .optional(),
    headers: z
      .record(
        z.string().regex(/^[A-Za-z0-9!#$%&'*+.^_`|~-]+$/, 'must be a valid HTTP header name'),
        z.string().refine((v) => !/[\r\n]/.test(v), 'must not contain line breaks'),
      )
      .optional(),
    auth: OAuthClientCredentialsInput.optional(),
    allowLegacy: z.boolean('must be true or false').default(false),
    timeoutMs: millis(50, 600_000).default(5_000),
    legacyProbeTimeoutMs: millis(50, 600_000).default(3_000),
    retry: RetryPolicy.default({ attempts: 5, delayMs: 500, backoff: 2, maxDelayMs: 10_000 }),
  })
  .superRefine((s, ctx) => {
    if ((s.command === undefined) === (s.url === undefined)) {
      ctx.addIssue({
        code: 'custom',
        path: ['command'],
        message: 'give exactly one of command (stdio) or url (HTTP)',
      });
    }
    const stdioOnly = ['args', 'env', 'cwd'] as const;
    if (s.url !== undefined) {
      for (const key of stdioOnly) {
        if (s[key] !== undefined)
          ctx.addIssue({ code: 'custom', path: [key], message: 'applies only to a stdio command' });
      }
    }
    for (const key of ['headers', 'auth'] as const) {
      if (s.command !== undefined && s[key] !== undefined) {
        ctx.addIssue({ code: 'custom', path: [key], message: 'applies only to an HTTP url' });
      }
    }
    const missing = s.auth ? resolveOAuth(s.auth, processVariables()).missing : null;
    if (missing) {
      ctx.addIssue({
        code: 'custom',
        path: ['auth', 'clientSecret'],
        message: `environment variable ${missing} is not set`,
      });
    }
  });

export const HostConfigSchema = z
  .strictObject({
    collisionPolicy: z.enum(COLLISION_POLICIES, 'must be prefix or reject'),
    modernVersions: z
      .array(revision)
      .min(1, 'must list at least one revision')
      .default([...DEFAULT_MODERN_VERSIONS]),
    legacyVersions: z
      .array(revision)
      .min(1, 'must list at least one revision')
      .default([...DEFAULT_LEGACY_VERSIONS]),
    servers: z.array(ServerEntry).min(1, 'must list at least one server').max(100, 'at most 100 servers'),
  })
  .superRefine((c, ctx) => {
    const seen = new Map<string, number>();
    c.servers.forEach((s, i) => {
      const first = seen.get(s.name);
      if (first !== undefined) {
        ctx.addIssue({
          code: 'custom',
          path: ['servers', i, 'name'],
          message: `duplicates the name of servers[${first}]`,
        });
      } else seen.set(s.name, i);
    });
  });

type ParsedServer = z.output<typeof ServerEntry>;
export type RetryPolicy = z.output<typeof RetryPolicy>;

interface ServerCommon {
  name: string;
  allowLegacy: boolean;
  timeoutMs: number;
  legacyProbeTimeoutMs: number;
  retry: RetryPolicy;
}
export interface StdioServerConfig extends ServerCommon {
  kind: 'stdio';
  command: string;
  args: string[];
  env: Record<string, string>;
  /** Absolute; relative paths in the file are resolved against the file's directory, which is also the default. */
  cwd: string;
}
export interface HttpServerConfig extends ServerCommon {
  kind: 'http';
  url: string;
  headers: Record<string, string>;
  /** OAuth client credentials, the secret resolved from the environment. */
  oauth: OAuthClientCredentials | null;
}
export type HostServerConfig = StdioServerConfig | HttpServerConfig;

export interface HostConfig {
  file: string;
  collisionPolicy: CollisionPolicy;
  modernVersions: string[];
  legacyVersions: string[];
  servers: HostServerConfig[];
}

export interface ConfigIssue {
  line: number;
  column: number;
  /** Dotted path of the field, e.g. `servers[1].timeoutMs`. */
  field: string;
  message: string;
}

export class HostConfigError extends Error {
  constructor(
    readonly file: string,
    readonly issues: ConfigIssue[],
  ) {
    super(
      issues
        .map(
          (i) =>
            `${i.line > 0 ? `${file}:${i.line}:${i.column}` : file}: ${i.field ? `${i.field}: ` : ''}${i.message}`,
        )
        .join('\n'),
    );
    this.name = 'HostConfigError';
  }
}

function fieldName(segments: ReadonlyArray<PropertyKey>): string {
  let out = '';
  for (const s of segments) out += typeof s === 'number' ? `[${s}]` : out ? `.${String(s)}` : String(s);
  return out;
}

/** Where a path points in the document: the deepest node that exists on it (a missing field points at its parent). */
function positionOf(
  doc: Document,
  lines: LineCounter,
  segments: ReadonlyArray<PropertyKey>,
): { line: number; column: number } {
  for (let depth = segments.length; depth >= 0; depth--) {
    const node: unknown = doc.getIn(segments.slice(0, depth) as unknown[], true);
    const range = (node as { range?: [number, number, number] } | undefined)?.range;
    if (range) {
      const pos = lines.linePos(range[0]);
      return { line: pos.line, column: pos.col };
    }
  }
  return { line: 1, column: 1 };
}

function resolveServer(s: ParsedServer, dir: string): HostServerConfig {
  const common: ServerCommon = {
    name: s.name,
    allowLegacy: s.allowLegacy,
    timeoutMs: s.timeoutMs,
    legacyProbeTimeoutMs: s.legacyProbeTimeoutMs,
    retry: s.retry,
  };
  if (s.url !== undefined) {
    const { oauth } = resolveOAuth(s.auth ?? null, processVariables());
    return { ...common, kind: 'http', url: s.url, headers: s.headers ?? {}, oauth };
  }
  return {
    ...common,
    kind: 'stdio',
    command: s.command ?? '',
    args: s.args ?? [],
    env: s.env ?? {},
    cwd: path.resolve(dir, s.cwd ?? '.'),
  };
}

/** Parses and validates host.yaml text; every problem is reported with the file, line and field. */
export function parseHostConfig(text: string, file: string): HostConfig {
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines, uniqueKeys: true, prettyErrors: true });
  if (doc.errors.length > 0) {
    throw new HostConfigError(
      file,
      doc.errors.map((e) => {
        const pos = e.linePos?.[0] ?? { line: 1, col: 1 };
        // prettyErrors appends the line and position to the first line, and a source excerpt after it.
        const first = (e.message.split('\n')[0] ?? e.message).replace(/ at line \d+, column \d+:?$/, '');
        return { line: pos.line, column: pos.col, field: '', message: first };
      }),
    );
  }
  if (!isMap(doc.contents)) {
    throw new HostConfigError(file, [
      { line: 1, column: 1, field: '', message: 'must be a mapping with collisionPolicy and servers' },
    ]);
  }
  const parsed = HostConfigSchema.safeParse(doc.toJS());
  if (!parsed.success) {
    const issues = parsed.error.issues.map((issue) => {
      const segments = [...issue.path];
      let message = issue.message;
      if (issue.code === 'invalid_key') message = issue.issues[0]?.message ?? message;
      if (issue.code === 'unrecognized_keys') {
        message = `unknown field${issue.keys.length > 1 ? 's' : ''} ${issue.keys.join(', ')}`;
        const first = issue.keys[0];
        if (first !== undefined) segments.push(first);
      }
      return { ...positionOf(doc, lines, segments), field: fieldName(segments), message };
    });
    throw new HostConfigError(file, issues);
  }
  const dir = path.dirname(path.resolve(file));
  return {
    file,
    collisionPolicy: parsed.data.collisionPolicy,
    modernVersions: parsed.data.modernVersions,
    legacyVersions: parsed.data.legacyVersions,
    servers: parsed.data.servers.map((s) => resolveServer(s, dir)),
  };
}

export async function loadHostConfig(file: string): Promise<HostConfig> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? 'unreadable';
    throw new HostConfigError(file, [
      { line: 0, column: 0, field: '', message: `cannot read the file (${code})` },
    ]);
  }
  return parseHostConfig(text, file);
}
