// The config file contract (erawatch.config.yaml): the same balancer and webhook schemas the API uses, so the
// published JSON Schema, the API and the file can never disagree. Client-safe.
import { z } from 'zod';
import { CreateAlertSinkInput } from './alert-sink';
import { StrictCreateBalancerInput } from './balancer';
import { StdioTargetInput } from './stdio-target';
import { CreateWebhookInput } from './webhook';

export const CONFIG_VERSION = 1;

const groupList = z.array(z.string().trim().min(1).max(256)).max(1_000).default([]);

/** Single sign-on, as the ERAWATCH_OIDC_* settings say it (those win when set). */
export const OidcConfig = z
  .strictObject({
    issuer: z
      .url({ protocol: /^https?$/, error: 'must be an http(s) URL' })
      .transform((u) => u.replace(/\/+$/, '')),
    clientId: z.string().trim().min(1, 'is required').max(1_000),
    clientSecret: z
      .string()
      .min(1, 'is required')
      .max(10_000)
      .refine(
        (v) => !v.startsWith('env:') || /^env:[A-Za-z_][A-Za-z0-9_]*$/.test(v),
        'env: must be followed by a variable name',
      )
      .meta({ description: 'the value (use ${ENV}), or env:NAME' }),
    scopes: z
      .array(z.string().trim().min(1).max(256))
      .max(100)
      .default(['openid', 'email', 'profile', 'groups'])
      .refine((s) => s.includes('openid'), 'must include openid'),
    groupsClaim: z.string().trim().min(1).max(256).default('groups'),
    adminGroups: groupList,
    operatorGroups: groupList,
    viewerGroups: groupList,
  })
  .refine((o) => o.adminGroups.length + o.operatorGroups.length + o.viewerGroups.length > 0, {
    path: ['viewerGroups'],
    error: 'one of adminGroups, operatorGroups, viewerGroups must name a group',
  });

export const ConfigFile = z
  .strictObject({
    version: z.literal(CONFIG_VERSION, { error: `must be ${CONFIG_VERSION}` }).default(CONFIG_VERSION),
    balancers: z.array(StrictCreateBalancerInput).max(10_000).default([]),
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
    auth: z
      .strictObject({ oidc: OidcConfig.optional() })
      .optional()
      .meta({ description: 'single sign-on; ERAWATCH_OIDC_* settings win over it' }),
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
