// Reads erawatch.config.yaml: YAML with `${ENV}` substitution in string values, validated by the zod contract.
// Every error names the file, the line and the field.
import fs from 'node:fs';
import path from 'node:path';
import { LineCounter, isScalar, parseDocument, visit, type Document } from 'yaml';
import { ConfigFile } from '@/lib/schemas/config';
import type { StdioEnvTemplates } from '@/lib/schemas/stdio-target';
import { targetUrlIssues } from '@/lib/net/target-urls';
import { probeEgressPolicy } from '@/lib/net/egress';
import type { Settings } from '@/lib/settings';
import { checkWebhookUrl, webhookEgressPolicy } from '@/lib/deliver/egress';

/** What reading the file depends on: the variables `${VAR}` names, and which addresses targets may have. */
export type ConfigSettings = Pick<Settings, 'environment' | 'allowLoopback' | 'webhookAllowPrivate'>;

export const DEFAULT_CONFIG_FILE = './erawatch.config.yaml';

export interface ConfigIssue {
  file: string;
  line: number | null;
  /** Dotted path of the field, e.g. `balancers.2.publicUrl`; empty for the file as a whole. */
  field: string;
  message: string;
}

/** A validated file, plus which stdio env values were `${VAR}` templates (by target name), for export. */
export type LoadedConfig = ConfigFile & { stdioEnvTemplates: Record<string, StdioEnvTemplates> };

export class ConfigError extends Error {
  override readonly name = 'ConfigError';
  constructor(readonly issues: ConfigIssue[]) {
    super(issues.map(formatIssue).join('\n'));
  }
}

export function formatIssue(i: ConfigIssue): string {
  const where = i.line === null ? i.file : `${i.file}:${i.line}`;
  return `${where}: ${i.field ? `${i.field}: ` : ''}${i.message}`;
}

const ENV_REF = /\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g;

function lineOf(doc: Document, counter: LineCounter, path: ReadonlyArray<PropertyKey>): number | null {
  // The deepest node that exists on the path: a missing field points at its parent object.
  for (let n = path.length; n >= 0; n--) {
    const node = doc.getIn(
      path.slice(0, n).map((p) => (typeof p === 'symbol' ? String(p) : p)),
      true,
    ) as { range?: [number, number, number] } | undefined;
    if (node && typeof node === 'object' && node.range) return counter.linePos(node.range[0]).line;
  }
  return null;
}

/** The env values of each stdio entry as written, before `${VAR}` substitution, where they used one. */
function stdioEnvTemplatesOf(raw: unknown, config: ConfigFile): Record<string, StdioEnvTemplates> {
  const entries = (raw as { stdio?: unknown } | null)?.stdio;
  const out: Record<string, StdioEnvTemplates> = {};
  config.stdio.forEach((target, i) => {
    const rawEnv = (Array.isArray(entries) ? (entries[i] as { env?: unknown } | undefined) : undefined)?.env;
    const templates: StdioEnvTemplates = {};
    for (const key of Object.keys(target.env)) {
      const value = (rawEnv as Record<string, unknown> | undefined)?.[key];
      if (typeof value === 'string' && ENV_REF.test(value)) templates[key] = value;
      ENV_REF.lastIndex = 0;
    }
    out[target.name] = templates;
  });
  return out;
}

/** Parses and validates config text; throws ConfigError. */
export function parseConfig(text: string, file: string, settings: ConfigSettings): LoadedConfig {
  if (text.length > MAX_CONFIG_BYTES) throw tooLarge(file, Buffer.byteLength(text, 'utf8'));
  const env = settings.environment;
  const counter = new LineCounter();
  const doc = parseDocument(text, { lineCounter: counter, prettyErrors: false, uniqueKeys: true });
  if (doc.errors.length > 0) {
    throw new ConfigError(
      doc.errors.map((e) => ({
        file,
        line: counter.linePos(e.pos[0]).line,
        field: '',
        message: e.message.split('\n')[0] ?? e.message,
      })),
    );
  }
  const raw: unknown = doc.toJS();
  const issues: ConfigIssue[] = [];
  visit(doc, {
    Scalar(_key, node) {
      if (!isScalar(node) || typeof node.value !== 'string' || !node.value.includes('${')) return;
      node.value = node.value.replace(ENV_REF, (_m, name: string) => {
        const value = env[name];
        if (value === undefined) {
          const line = node.range ? counter.linePos(node.range[0]).line : null;
          issues.push({ file, line, field: '', message: `environment variable ${name} is not set` });
          return '';
        }
        return value;
      });
    },
  });
  if (issues.length > 0) throw new ConfigError(issues);
  const parsed = ConfigFile.safeParse(doc.toJS() ?? {});
  if (!parsed.success) {
    throw new ConfigError(
      parsed.error.issues.flatMap((i) =>
        (i.code === 'unrecognized_keys' ? i.keys.map((k) => [...i.path, k]) : [i.path]).map((at) => ({
          file,
          line: lineOf(doc, counter, at),
          field: at.map(String).join('.'),
          message: i.code === 'unrecognized_keys' ? `unknown field '${String(at.at(-1))}'` : i.message,
        })),
      ),
    );
  }
  const policy = webhookEgressPolicy(settings);
  const refused: ConfigIssue[] = parsed.data.webhooks.flatMap((w, i) => {
    const refusal = checkWebhookUrl(w.url, policy);
    return refusal
      ? [
          {
            file,
            line: lineOf(doc, counter, ['webhooks', i, 'url']),
            field: `webhooks.${i}.url`,
            message: refusal,
          },
        ]
      : [];
  });
  parsed.data.alertSinks.forEach((sink, i) =>
    sink.urls.forEach((url, j) => {
      const refusal = checkWebhookUrl(url, policy);
      if (refusal) {
        refused.push({
          file,
          line: lineOf(doc, counter, ['alertSinks', i, 'urls', j]),
          field: `alertSinks.${i}.urls.${j}`,
          message: refusal,
        });
      }
    }),
  );
  const targetPolicy = probeEgressPolicy(settings);
  parsed.data.balancers.forEach((b, i) => {
    for (const issue of targetUrlIssues(b, targetPolicy)) {
      const at = ['balancers', i, ...issue.path.split('.').map((p) => (/^\d+$/.test(p) ? Number(p) : p))];
      refused.push({ file, line: lineOf(doc, counter, at), field: at.join('.'), message: issue.message });
    }
  });
  if (refused.length > 0) throw new ConfigError(refused);
  // A stdio command runs in the file's directory unless told otherwise, so the file means the same from anywhere.
  const dir = path.dirname(path.resolve(file));
  const stdio = parsed.data.stdio.map((t) => ({ ...t, cwd: path.resolve(dir, t.cwd ?? '.') }));
  const config = { ...parsed.data, stdio };
  return { ...config, stdioEnvTemplates: stdioEnvTemplatesOf(raw, config) };
}

/** The largest config file read: a YAML parse costs many times the text's size in memory. */
export const MAX_CONFIG_BYTES = 8 * 1024 * 1024;

function tooLarge(file: string, bytes: number): ConfigError {
  return new ConfigError([
    {
      file,
      line: null,
      field: '',
      message: `the file is ${bytes} bytes, more than the ${MAX_CONFIG_BYTES} (8 MiB) a config file may have`,
    },
  ]);
}

export function loadConfigFile(file: string, settings: ConfigSettings): LoadedConfig {
  let text: string;
  try {
    // Refused before it is read, let alone parsed.
    const size = fs.statSync(file).size;
    if (size > MAX_CONFIG_BYTES) throw tooLarge(file, size);
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    if (err instanceof ConfigError) throw err;
    const code = (err as NodeJS.ErrnoException).code ?? 'read error';
    throw new ConfigError([{ file, line: null, field: '', message: `cannot read the file (${code})` }]);
  }
  return parseConfig(text, file, settings);
}
