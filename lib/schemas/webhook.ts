// Webhook endpoint and delivery contract. Client-safe. Signing secrets are accepted on create and returned only
// once (CreatedWebhookEndpoint, rotation); every other response omits them.
import { z } from 'zod';
import { Cursor, Limit, Timestamp } from './common';
import { EndpointUrl, endpointInputFields, endpointViewFields } from './endpoint';

export const DELIVERY_STATUSES = ['pending', 'held', 'succeeded', 'failed', 'suppressed'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

/** `whsec_` + base64 of 24 to 64 random bytes, the Standard Webhooks secret format. */
export const WebhookSecret = z
  .string()
  .regex(/^whsec_[A-Za-z0-9+/]{32,88}={0,2}$/, 'must be whsec_ followed by base64 of 24 to 64 bytes');

const webhookFields = {
  ...endpointInputFields('event types to send; empty sends all'),
  url: EndpointUrl,
};

export const CreateWebhookInput = z.strictObject({
  ...webhookFields,
  secret: WebhookSecret.optional().meta({ description: 'generated when omitted' }),
});
export type CreateWebhookInput = z.input<typeof CreateWebhookInput>;
export type WebhookSettings = z.output<typeof CreateWebhookInput>;

export const UpdateWebhookInput = z.strictObject(webhookFields).partial();
export type UpdateWebhookInput = z.input<typeof UpdateWebhookInput>;

export const RotateSecretInput = z.strictObject({
  /** How long the previous secret keeps signing beside the new one. */
  overlapMs: z
    .int()
    .min(0)
    .max(7 * 86_400_000)
    .default(86_400_000),
  secret: WebhookSecret.optional(),
});

export const WebhookEndpoint = z
  .object({
    ...endpointViewFields,
    url: z.string(),
    disabledAt: Timestamp.nullable(),
    secretRotating: z.boolean().meta({ description: 'true while a previous secret still signs too' }),
  })
  .meta({ id: 'WebhookEndpoint' });
export type WebhookEndpoint = z.infer<typeof WebhookEndpoint>;

export const CreatedWebhookEndpoint = WebhookEndpoint.extend({
  secret: z.string().meta({ description: 'the signing secret; shown only in this response' }),
}).meta({ id: 'CreatedWebhookEndpoint' });

export const WebhookAttempt = z
  .object({
    at: Timestamp,
    httpStatus: z.int().nullable(),
    outcome: z.string(),
    error: z.string().nullable(),
    durationMs: z.int(),
  })
  .meta({ id: 'WebhookAttempt' });

export const WebhookDelivery = z
  .object({
    id: z.string().meta({ description: 'the webhook-id header value' }),
    endpointId: z.string(),
    eventId: z.string().nullable(),
    type: z.string(),
    status: z.enum(DELIVERY_STATUSES),
    attempts: z.int(),
    nextAttemptAt: Timestamp.nullable(),
    lastAttemptAt: Timestamp.nullable(),
    lastHttpStatus: z.int().nullable(),
    lastError: z.string().nullable(),
    createdAt: Timestamp,
    completedAt: Timestamp.nullable(),
    log: z.array(WebhookAttempt).optional(),
  })
  .meta({ id: 'WebhookDelivery' });
export type WebhookDelivery = z.infer<typeof WebhookDelivery>;

/** The body of every webhook request. `version` changes only with an incompatible envelope. */
export const WebhookEnvelope = z
  .object({
    id: z.string(),
    type: z.string(),
    version: z.literal(1),
    timestamp: z.string().meta({ description: 'ISO 8601 time of the event' }),
    data: z.record(z.string(), z.unknown()).meta({
      description:
        "the event's data, in the schema of its type (the Event schema's data: BalancerDivergedData, " +
        'NodeAuthGatedData, …), with the balancerId and nodeId it concerns added',
    }),
  })
  .meta({ id: 'WebhookEnvelope' });
export type WebhookEnvelope = z.infer<typeof WebhookEnvelope>;

/** The delivery log's query: a page, optionally of one status. */
export const DeliveriesQuery = z.object({
  limit: Limit,
  cursor: Cursor.optional(),
  status: z.enum(DELIVERY_STATUSES, { error: `must be one of ${DELIVERY_STATUSES.join(', ')}` }).optional(),
});

/** The one attempt of a test send. */
export const WebhookTestResult = z.object({
  deliveryId: z.string(),
  outcome: z.string(),
  httpStatus: z.int().nullable(),
  error: z.string().nullable(),
  durationMs: z.int(),
});
