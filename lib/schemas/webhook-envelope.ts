// The webhook body: a versioned envelope around one event. Built once, when the outbox row is written, so
// every attempt and every redelivery sends the same bytes.
import type { WebhookEnvelope } from '@/lib/schemas/webhook';

export const ENVELOPE_VERSION = 1 as const;
export const TEST_EVENT_TYPE = 'webhook.test';

export interface EnvelopeEvent {
  id: string;
  type: string;
  balancerId: string | null;
  nodeId: string | null;
  at: number;
  data: Record<string, unknown>;
}

export function buildEnvelope(event: EnvelopeEvent): WebhookEnvelope {
  return {
    id: event.id,
    type: event.type,
    version: ENVELOPE_VERSION,
    timestamp: new Date(event.at).toISOString(),
    data: { ...event.data, balancerId: event.balancerId, nodeId: event.nodeId },
  };
}
