// The outbox plan: which endpoints want an event, whether an open rollout window holds it, and what the
// envelope says. Pure (events, endpoints and open windows in, delivery rows out), so the store's outbox write
// only reads its inputs and inserts what this returns, in the transaction that records the events.
import { HELD_DURING_ROLLOUT, heldByWindow } from '@/lib/rollout/window';
import { buildEnvelope, type EnvelopeEvent } from '@/lib/schemas/webhook-envelope';

/** What the plan needs of an endpoint: alert sinks share the table but receive alert sets, not events. */
export interface PlanEndpoint {
  id: string;
  kind: 'webhook' | 'alertmanager';
  enabled: boolean;
  eventTypes: readonly string[];
  balancerIds: readonly string[];
}

/** A balancer's open rollout window. */
export interface OpenWindow {
  id: string;
  deadline: number;
}

export interface PlannedDelivery {
  endpointId: string;
  eventId: string;
  balancerId: string | null;
  type: string;
  /** The envelope, serialised once per event and shared by its deliveries. */
  payload: string;
  /** The window that holds this delivery until it closes or overruns; null: due at once. */
  heldBy: string | null;
  createdAt: number;
}

/** Whether an endpoint subscribes to the event (empty filters take everything). */
export function endpointWants(endpoint: PlanEndpoint, event: EnvelopeEvent): boolean {
  if (endpoint.kind !== 'webhook' || !endpoint.enabled) return false;
  if (endpoint.eventTypes.length > 0 && !endpoint.eventTypes.includes(event.type)) return false;
  if (endpoint.balancerIds.length > 0) {
    return event.balancerId !== null && endpoint.balancerIds.includes(event.balancerId);
  }
  return true;
}

/** The balancers whose open rollout window may hold one of these events: only theirs need reading. */
export function holdingInterest(events: readonly EnvelopeEvent[]): string[] {
  const ids = new Set<string>();
  for (const e of events) {
    if (e.balancerId !== null && HELD_DURING_ROLLOUT.includes(e.type)) ids.add(e.balancerId);
  }
  return [...ids];
}

/**
 * One delivery per (event, interested enabled webhook endpoint). An alert raised inside its balancer's open
 * rollout window is held by that window (lib/rollout/window.ts's rule). `now` dates the rows (default: the
 * event's time).
 */
export function planDeliveries(
  events: readonly EnvelopeEvent[],
  endpoints: readonly PlanEndpoint[],
  openWindows: ReadonlyMap<string, OpenWindow>,
  now?: number,
): PlannedDelivery[] {
  const out: PlannedDelivery[] = [];
  for (const event of events) {
    const targets = endpoints.filter((e) => endpointWants(e, event));
    if (targets.length === 0) continue;
    const window = event.balancerId === null ? null : (openWindows.get(event.balancerId) ?? null);
    const heldBy = heldByWindow(event.type, event.at, window) ? (window?.id ?? null) : null;
    const payload = JSON.stringify(buildEnvelope(event));
    for (const endpoint of targets) {
      out.push({
        endpointId: endpoint.id,
        eventId: event.id,
        balancerId: event.balancerId,
        type: event.type,
        payload,
        heldBy,
        createdAt: now ?? event.at,
      });
    }
  }
  return out;
}
