// The stdio target contract: an MCP server the poller launches as a command and probes over stdin/stdout.
// Declared only in the config file (never through the API or UI: a web request must not run a command).
// Client-safe: no database imports.
import { z } from 'zod';
import { CLIENT_ERAS, DEFAULT_LEGACY_VERSIONS } from '@/lib/probe/types';
import { Regions } from './balancer';
import { deadlineFits, deadlineIssue } from './common';
import { Verdict } from './verdict';

const revision = z.string().regex(/^\d{4}-\d{2}-\d{2}$/, 'must be a revision date like 2025-11-25');

const noNul = (v: string) => !v.includes('\0');
const argText = z.string('must be a string').max(4096).refine(noNul, 'must not contain NUL characters');

export const StdioTargetName = z
  .string()
  .trim()
  .min(1, 'is required')
  .max(100, 'must be at most 100 characters')
  .regex(/^[A-Za-z0-9][A-Za-z0-9._-]*$/, 'may use letters, digits, dots, dashes and underscores');

export const STDIO_ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

const stdioTargetFields = {
  name: StdioTargetName,
  command: argText.min(1, 'must not be empty'),
  args: z.array(argText).max(256, 'at most 256 arguments').default([]),
  env: z
    .record(z.string(), argText)
    .superRefine((env, ctx) => {
      for (const key of Object.keys(env)) {
        if (!STDIO_ENV_NAME.test(key))
          ctx.addIssue({ code: 'custom', path: [key], message: 'must be an environment variable name' });
      }
    })
    .default({})
    .meta({ description: 'added to the poller environment; values may use ${ENV_VAR}' }),
  cwd: z
    .string()
    .min(1, 'must not be empty')
    .refine(noNul, 'must not contain NUL characters')
    .optional()
    .meta({ description: "working directory; relative to the config file's directory (the default)" }),
  allowLegacy: z.boolean('must be true or false').default(false),
  auditLegacy: z.boolean('must be true or false').default(false),
  legacyVersions: z
    .array(revision)
    .min(1)
    .max(20)
    .default([...DEFAULT_LEGACY_VERSIONS]),
  intervalMs: z.int().min(1_000).max(86_400_000).default(60_000),
  timeoutMs: z.int().min(100).max(60_000).default(5_000),
  legacyProbeTimeoutMs: z.int().min(100).max(60_000).default(3_000),
  /** Where the command exists: workers of other regions never launch it. */
  regions: Regions,
};

export const StdioTargetInput = z.strictObject(stdioTargetFields).refine(deadlineFits, deadlineIssue);
export type StdioTargetInput = z.input<typeof StdioTargetInput>;
/** As validated; `cwd` is made absolute when the config file is loaded. */
export type StdioTargetSettings = z.output<typeof StdioTargetInput>;

/** Which env values came from `${VAR}` templates (key → the template as written): exported as written. */
export type StdioEnvTemplates = Record<string, string>;

const Timestamp = z.int().meta({ description: 'epoch milliseconds' });

/** A stdio target as the API and UI see it: the command line, and env names only (never values). */
export const StdioTargetView = z
  .object({
    id: z.string(),
    name: z.string(),
    commandLine: z.string().meta({ description: 'the argv for reading; env shown as NAME=…' }),
    command: z.string(),
    args: z.array(z.string()),
    envNames: z.array(z.string()).meta({ description: 'names of the configured variables; values never' }),
    cwd: z.string(),
    allowLegacy: z.boolean(),
    auditLegacy: z.boolean(),
    legacyVersions: z.array(z.string()),
    intervalMs: z.int(),
    timeoutMs: z.int(),
    legacyProbeTimeoutMs: z.int(),
    regions: z.array(z.string()).nullable().meta({
      description: 'the regions whose workers probe it; null: every region that has a worker',
    }),
    createdAt: Timestamp,
    updatedAt: Timestamp,
    state: z
      .object({
        clientEra: z.enum(CLIENT_ERAS),
        reason: z.string(),
        negotiatedVersion: z.string().nullable(),
        probedAt: Timestamp,
        durationMs: z.int(),
        fingerprintSince: Timestamp,
        probes: z.int(),
        failures: z.int(),
        consecutiveFailures: z.int(),
      })
      .nullable(),
  })
  .meta({ id: 'StdioTarget' });
export type StdioTargetView = z.output<typeof StdioTargetView>;
export type StdioTargetStateView = NonNullable<StdioTargetView['state']>;

export const StdioTargetHistoryView = z
  .object({
    fingerprintKey: z.string(),
    clientEra: z.string(),
    reason: z.string(),
    negotiatedVersion: z.string().nullable(),
    servedEras: z.string(),
    isChange: z.boolean(),
    startedAt: Timestamp,
    endedAt: Timestamp.nullable(),
    probes: z.int().nullable(),
    failures: z.int().nullable(),
  })
  .meta({ id: 'StdioTargetHistoryEntry' });
export type StdioTargetHistoryView = z.output<typeof StdioTargetHistoryView>;

export const StdioTargetDetailView = StdioTargetView.extend({
  verdict: Verdict.nullable().meta({
    description: 'the full Verdict with its evidence steps; null before the first probe',
  }),
  history: z.array(StdioTargetHistoryView),
}).meta({ id: 'StdioTargetDetail' });
