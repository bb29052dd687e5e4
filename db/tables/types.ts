// The constants and types the table declaration names (db/tables/declaration.ts), shared by both engines.
import type { AlertSinkAuthInput } from '../../lib/schemas/alert-sink';

/** How a node came to be known: a listed URL, a DNS address of the balancer's host, or a sample attribution. */
export const NODE_ORIGINS = ['listed', 'dns', 'sample'] as const;
export type NodeOrigin = (typeof NODE_ORIGINS)[number];

/** `webhook`: signed event envelopes; `alertmanager`: an alert sink (same outbox and delivery log). */
export const ENDPOINT_KINDS = ['webhook', 'alertmanager'] as const;
export type EndpointKind = (typeof ENDPOINT_KINDS)[number];

/** An Alertmanager sink's settings; `url` then holds the first of `urls`, `secret` is empty. */
export interface AlertmanagerSettings {
  urls: string[];
  auth: AlertSinkAuthInput;
  resendIntervalMs: number;
}

/** What a probed subject is: a balancer's node (HTTP) or a stdio target the poller launches. */
export type SubjectKind = 'node' | 'stdio';
