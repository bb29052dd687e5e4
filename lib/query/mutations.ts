// Every write the dashboard makes, in one place so that the API paths live beside the read options.
import type { RolloutTarget } from '@/lib/rollout/types';
import type { CreateBalancerInput, UpdateBalancerInput } from '@/lib/schemas/balancer';
import type { ApiToken, CreateTokenInput, CreatedApiToken } from '@/lib/schemas/token';
import type { AlertSink, CreateAlertSinkInput, UpdateAlertSinkInput } from '@/lib/schemas/alert-sink';
import type { CreateWebhookInput } from '@/lib/schemas/webhook';
import { sendJson, type Fetcher } from './fetch-json';
import type { Balancer, RolloutWindow } from './types';

const enc = encodeURIComponent;

export const createBalancer = (f: Fetcher, input: CreateBalancerInput) =>
  sendJson<Balancer>(f, 'POST', '/api/v1/balancers', input);

export const updateBalancer = (f: Fetcher, id: string, patch: UpdateBalancerInput) =>
  sendJson<Balancer>(f, 'PATCH', `/api/v1/balancers/${enc(id)}`, patch);

export const deleteBalancer = (f: Fetcher, id: string) =>
  sendJson<null>(f, 'DELETE', `/api/v1/balancers/${enc(id)}`);

export const probeBalancer = (f: Fetcher, id: string) =>
  sendJson<unknown>(f, 'POST', `/api/v1/balancers/${enc(id)}/probe`, {});

export const openRolloutWindow = (
  f: Fetcher,
  balancerId: string,
  input: { target: RolloutTarget; deadline: number },
) => sendJson<RolloutWindow>(f, 'POST', `/api/v1/balancers/${enc(balancerId)}/rollouts`, input);

export const closeRolloutWindow = (f: Fetcher, windowId: string) =>
  sendJson<RolloutWindow>(f, 'POST', `/api/v1/rollouts/${enc(windowId)}/close`, {});

export interface CreatedWebhook {
  id: string;
  secret: string;
}

export const createWebhook = (f: Fetcher, input: CreateWebhookInput) =>
  sendJson<CreatedWebhook>(f, 'POST', '/api/v1/webhooks', input);

export const setWebhookEnabled = (f: Fetcher, id: string, enabled: boolean) =>
  sendJson<unknown>(f, 'PATCH', `/api/v1/webhooks/${enc(id)}`, { enabled });

export const deleteWebhook = (f: Fetcher, id: string) =>
  sendJson<null>(f, 'DELETE', `/api/v1/webhooks/${enc(id)}`);

export const testWebhook = (f: Fetcher, id: string) =>
  sendJson<unknown>(f, 'POST', `/api/v1/webhooks/${enc(id)}/test`, {});

/** The previous secret keeps signing beside the new one for `overlapMs` (the API's default when omitted). */
export const rotateWebhookSecret = (f: Fetcher, id: string, overlapMs?: number) =>
  sendJson<{ secret: string }>(
    f,
    'POST',
    `/api/v1/webhooks/${enc(id)}/rotate-secret`,
    overlapMs === undefined ? {} : { overlapMs },
  );

export const redeliver = (
  f: Fetcher,
  endpointId: string,
  deliveryId: string,
  resource: 'webhooks' | 'alert-sinks' = 'webhooks',
) =>
  sendJson<unknown>(
    f,
    'POST',
    `/api/v1/${resource}/${enc(endpointId)}/deliveries/${enc(deliveryId)}/redeliver`,
    {},
  );

export const createToken = (f: Fetcher, input: CreateTokenInput) =>
  sendJson<CreatedApiToken>(f, 'POST', '/api/v1/tokens', input);

export const revokeToken = (f: Fetcher, id: string) =>
  sendJson<null>(f, 'DELETE', `/api/v1/tokens/${enc(id)}`);

/** An admin's: every live token one person minted (`owner`, their createdBy). */
export const revokeOwnerTokens = (f: Fetcher, owner: string) =>
  sendJson<{ items: ApiToken[] }>(f, 'POST', '/api/v1/tokens/revoke', { owner });

export const endSession = (f: Fetcher, id: string) =>
  sendJson<null>(f, 'DELETE', `/api/v1/sessions/${enc(id)}`);

export const createAlertSink = (f: Fetcher, input: CreateAlertSinkInput) =>
  sendJson<AlertSink>(f, 'POST', '/api/v1/alert-sinks', input);

export const updateAlertSink = (f: Fetcher, id: string, patch: UpdateAlertSinkInput) =>
  sendJson<AlertSink>(f, 'PATCH', `/api/v1/alert-sinks/${enc(id)}`, patch);

export const deleteAlertSink = (f: Fetcher, id: string) =>
  sendJson<null>(f, 'DELETE', `/api/v1/alert-sinks/${enc(id)}`);
