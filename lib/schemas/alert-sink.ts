// Alert sink contract: an Alertmanager (or several replicas of one) that receives Erawatch's alerts through
// `POST /api/v2/alerts`. Client-safe. Credentials are accepted as `env:NAME` or a literal; responses never
// carry a literal, only whether one is stored.
import { z } from 'zod';
import {
  CONTROL_CHARACTERS_ISSUE,
  Timestamp,
  hasControlCharacters,
  withoutControlCharacters,
} from './common';
import { EndpointUrl, endpointInputFields, endpointViewFields } from './endpoint';
import { EventType } from './event';
import type { StoredAnalysisView } from './balancer-analysis';

export const ALERT_SINK_KINDS = ['alertmanager'] as const;
export type AlertSinkKind = (typeof ALERT_SINK_KINDS)[number];

/** Every alert Erawatch raises, with the event type that a sink's `eventTypes` filter matches it by. */
export const ALERT_NAMES = {
  ErawatchNonUniform: 'balancer.diverged',
  ErawatchBalancerUnavailable: 'node.unavailable',
  ErawatchAuthGated: 'node.auth_gated',
  ErawatchRolloutStuck: 'rollout.stuck',
  ErawatchRegionSplit: 'balancer.region_split',
} as const satisfies Record<string, z.output<typeof EventType>>;
export type AlertName = keyof typeof ALERT_NAMES;

export const DEFAULT_RESEND_INTERVAL_MS = 60_000;

const ENV_REF = /^env:[A-Za-z_][A-Za-z0-9_]*$/;

/** A credential: `env:NAME` (read at send time) or the literal value (stored, never shown again). */
const Credential = z
  .string()
  .min(1, 'is required')
  .max(4096, 'must be at most 4096 characters')
  .refine((v) => !v.startsWith('env:') || ENV_REF.test(v), 'env: must be followed by a variable name')
  .refine((v) => !/[\r\n]/.test(v), 'must not contain line breaks')
  .refine((v) => !hasControlCharacters(v, ['\r', '\n']), CONTROL_CHARACTERS_ISSUE);

export const AlertSinkAuthInput = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('none') }),
  z.strictObject({
    type: z.literal('basic'),
    username: withoutControlCharacters(z.string().min(1, 'is required').max(256)).refine(
      (v) => !v.includes(':'),
      'must not contain ":"',
    ),
    password: Credential,
  }),
  z.strictObject({ type: z.literal('bearer'), token: Credential }),
]);
export type AlertSinkAuthInput = z.output<typeof AlertSinkAuthInput>;

const alertmanagerUrl = EndpointUrl.refine((u) => {
  const parsed = new URL(u);
  return parsed.search === '' && parsed.hash === '';
}, 'must not carry a query or fragment (alerts go to <url>/api/v2/alerts)');

const sinkFields = {
  ...endpointInputFields('send only the alerts of these event types; empty sends all'),
  kind: z.enum(ALERT_SINK_KINDS).default('alertmanager'),
  urls: z
    .array(alertmanagerUrl)
    .min(1, 'needs at least one Alertmanager URL')
    .max(10, 'at most 10 URLs')
    .refine((urls) => new Set(urls).size === urls.length, 'lists a URL twice')
    .meta({ description: 'Alertmanager base URLs (every replica of one cluster); alerts go to each' }),
  auth: AlertSinkAuthInput.default({ type: 'none' }),
  resendIntervalMs: z
    .int('must be an integer')
    .min(10_000, 'must be at least 10000 (10 s)')
    .max(3_600_000, 'must be at most 3600000 (1 h)')
    .default(DEFAULT_RESEND_INTERVAL_MS)
    .meta({ description: 'how often firing alerts are sent again' }),
};

export const CreateAlertSinkInput = z.strictObject(sinkFields);
export type CreateAlertSinkInput = z.input<typeof CreateAlertSinkInput>;
export type AlertSinkSettings = z.output<typeof CreateAlertSinkInput>;

export const UpdateAlertSinkInput = z.strictObject(sinkFields).partial();
export type UpdateAlertSinkInput = z.input<typeof UpdateAlertSinkInput>;

/** What a response says about credentials: the `env:NAME` reference, or only that a literal is stored. */
export const AlertSinkAuthView = z
  .object({
    type: z.enum(['none', 'basic', 'bearer']),
    username: z.string().nullable(),
    credential: z
      .string()
      .nullable()
      .meta({ description: '`env:NAME` as configured, "stored" for a literal (never shown), null for none' }),
  })
  .meta({ id: 'AlertSinkAuth' });
export type AlertSinkAuthView = z.output<typeof AlertSinkAuthView>;

export const AlertSink = z
  .object({
    ...endpointViewFields,
    kind: z.enum(ALERT_SINK_KINDS),
    urls: z.array(z.string()),
    auth: AlertSinkAuthView,
    resendIntervalMs: z.int(),
    firing: z.int().meta({ description: 'alerts currently firing at this sink' }),
  })
  .meta({ id: 'AlertSink' });
export type AlertSink = z.output<typeof AlertSink>;

/** One alert as posted to Alertmanager's `/api/v2/alerts` (its PostableAlert). */
export const PostableAlert = z
  .object({
    labels: z.record(z.string(), z.string()),
    annotations: z.record(z.string(), z.string()),
    startsAt: z.string(),
    endsAt: z.string(),
    generatorURL: z.string(),
  })
  .meta({ id: 'PostableAlert' });
export type PostableAlert = z.output<typeof PostableAlert>;

export const SinkAlert = z
  .object({
    fingerprint: z.string(),
    status: z.enum(['firing', 'resolved']),
    labels: z.record(z.string(), z.string()),
    annotations: z.record(z.string(), z.string()),
    startsAt: Timestamp,
    endsAt: Timestamp.nullable(),
  })
  .meta({ id: 'SinkAlert' });
export type SinkAlert = z.output<typeof SinkAlert>;

// The shapes alert sync passes between lib/alertmanager (which decides) and the store (which keeps them).
export interface AlertSubject {
  balancerId: string;
  balancerName: string;
  analysis: StoredAnalysisView;
  /** How operators know each node (URL or address), by node id. */
  nodeLabels: Record<string, string>;
}

export interface DesiredAlert {
  balancerId: string;
  alertname: AlertName;
  fingerprint: string;
  labels: Record<string, string>;
  annotations: Record<string, string>;
  generatorUrl: string;
}

export interface KnownAlert {
  labels: Record<string, string>;
  annotations: Record<string, string>;
  generatorUrl: string;
  startsAt: number;
  endsAt: number | null;
}
