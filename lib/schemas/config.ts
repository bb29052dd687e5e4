// The config file contract (erawatch.config.yaml): the same balancer and webhook schemas the API uses, so the
// published JSON Schema, the API and the file can never disagree. Client-safe.
import { z } from 'zod';
import { CreateAlertSinkInput } from './alert-sink';
import { CreateBalancerInput } from './balancer';
import { StdioTargetInput } from './stdio-target';
import { CreateWebhookInput } from './webhook';

export const CONFIG_VERSION = 1;

export const ConfigFile = z
  .strictObject({
    version: z.literal(CONFIG_VERSION, { error: `must be ${CONFIG_VERSION}` }).default(CONFIG_VERSION),
    balancers: z.array(CreateBalancerInput.strict()).max(10_000).default([]),
    webhooks: z
      .array(CreateWebhookInput)
      .max(1_000)
      .default([])
      .meta({ description: 'an omitted secret is generated once and then kept' }),
    alertSinks: z
      .array(CreateAlertSinkInput)
      .max(100)
      .default([])
      .meta({ description: 'Alertmanager sinks; credentials as env:NAME or ${ENV}' }),
    stdio: z
      .array(StdioTargetInput)
      .max(1_000)
      .default([])
      .meta({ description: 'MCP servers launched as commands and probed over stdio (only declared here)' }),
  })
  .superRefine((cfg, ctx) => {
    // Webhooks and alert sinks share one namespace: both are delivery endpoints.
    const endpointNames = new Map(cfg.webhooks.map((w, i) => [w.name, i]));
    cfg.alertSinks.forEach((sink, i) => {
      const hook = endpointNames.get(sink.name);
      if (hook !== undefined) {
        ctx.addIssue({
          code: 'custom',
          path: ['alertSinks', i, 'name'],
          message: `duplicates the name of webhooks[${hook}]`,
        });
      }
    });
    for (const key of ['balancers', 'webhooks', 'alertSinks', 'stdio'] as const) {
      const seen = new Map<string, number>();
      cfg[key].forEach((item, i) => {
        const first = seen.get(item.name);
        if (first !== undefined) {
          ctx.addIssue({
            code: 'custom',
            path: [key, i, 'name'],
            message: `duplicates the name of ${key}[${first}]`,
          });
        } else seen.set(item.name, i);
      });
    }
  })
  .meta({ id: 'ErawatchConfig', title: 'Erawatch configuration', description: 'Values may use ${ENV_VAR}.' });

export type ConfigFile = z.output<typeof ConfigFile>;

/** The JSON Schema of the file, with the root definition inlined so editors and readers see it at the top. */
export function configJsonSchema(): Record<string, unknown> {
  const json = z.toJSONSchema(ConfigFile, {
    io: 'input',
    unrepresentable: 'any',
    target: 'draft-2020-12',
  }) as {
    $ref?: string;
    $defs?: Record<string, Record<string, unknown>>;
    [k: string]: unknown;
  };
  const rootId = json.$ref?.replace('#/$defs/', '');
  const root = rootId ? json.$defs?.[rootId] : undefined;
  if (!rootId || !root) return json;
  const { [rootId]: _root, ...rest } = json.$defs ?? {};
  const { $ref: _ref, $defs: _defs, ...top } = json;
  return { ...top, ...root, ...(Object.keys(rest).length > 0 ? { $defs: rest } : {}) };
}
