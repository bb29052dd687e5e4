// The route table: every HTTP operation the server answers, declared once. A route file takes its definition
// from here (`export const GET = route('listBalancers', handler)`, lib/api/route.ts), the OpenAPI document and
// the /api-docs page are derived from the /api/v1 entries (lib/api/openapi.ts), and a test walks every
// app/**/route.ts export against this table (tests/integration/api/route-table.test.ts).
//
// The key of each entry is its operationId. `access` is the one field that says who may call it.
import { z } from 'zod';
import { AlertSink, CreateAlertSinkInput, SinkAlert, UpdateAlertSinkInput } from '@/lib/schemas/alert-sink';
import { CreateBalancerInput, UpdateBalancerInput } from '@/lib/schemas/balancer';
import { BalancerAnalysisView } from '@/lib/schemas/balancer-analysis';
import {
  BalancerListItemView,
  BalancerListQuery,
  BalancerView,
  NodeHistoryEntry,
  NodeHistoryQuery,
  NodeView,
  ProbeNowResult,
} from '@/lib/schemas/balancer-view';
import { pageOf } from '@/lib/schemas/common';
import { BalancerDetailView, LatencyPoint, NodeLabelsQuery } from '@/lib/schemas/dashboard';
import { NodeListQuery, NodeRowView, nodePageOf } from '@/lib/schemas/node-query';
import { BalancerProgressView } from '@/lib/schemas/progress';
import { Event, EventQuery } from '@/lib/schemas/event';
import { BalancerHistory, HistoryQuery } from '@/lib/schemas/history';
import {
  FlaggerHookAnswer,
  FlaggerHookInput,
  GateAnswer,
  GateQuery,
  OpenRolloutInput,
  RolloutWindow,
} from '@/lib/schemas/rollout';
import { DashboardSession, LoginInput, SessionState } from '@/lib/schemas/session';
import { AuditEntry, AuditQuery } from '@/lib/schemas/audit';
import { StdioTargetDetailView, StdioTargetView } from '@/lib/schemas/stdio-target';
import {
  ApiToken,
  CreatedApiToken,
  CreateTokenInput,
  RevokeOwnerTokensInput,
  TokenListQuery,
} from '@/lib/schemas/token';
import {
  CreatedWebhookEndpoint,
  CreateWebhookInput,
  DeliveriesQuery,
  RotateSecretInput,
  UpdateWebhookInput,
  WebhookDelivery,
  WebhookEndpoint,
  WebhookTestResult,
} from '@/lib/schemas/webhook';

/**
 * The role an operation needs: `viewer` (a read token, or any signed-in role), `operator` (a write token, or an
 * operator or admin), `admin` (the admin secret, or an admin: everyone's tokens, sessions, the audit log), or `account`
 * (a person of any role, never a token: one's own tokens). `public` needs no credentials.
 */
export type Access = 'public' | 'viewer' | 'operator' | 'admin' | 'account';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface RouteDefinition {
  method: HttpMethod;
  /** The full path, `{name}` for a path parameter (the route file's `[name]` folder). */
  path: string;
  summary: string;
  tag: string;
  access: Access;
  /** Parsed before the handler runs: 400 `invalid_query` with a pointer per parameter. */
  query?: z.ZodObject;
  /** What `body()` parses the JSON body with: 415, 413, 400 or 422 with a pointer per field. */
  body?: z.ZodType;
  /** The success answer's JSON (none: 204, a non-JSON body, or a document of its own). */
  response?: z.ZodType;
  /** The success status; 200 unless given. */
  status?: number;
  /** The statuses it answers with problem+json. */
  problems: readonly number[];
  /**
   * Answered with a weak ETag and `Cache-Control: private, no-cache`; a request whose If-None-Match holds it
   * gets 304 with no body (lib/api/route.ts, `withEtag`).
   */
  etag?: true;
  /** Replaces the generated "Needs …" line, for routes whose credential is not a header. */
  description?: string;
  /**
   * Served without the API wrapper (no rate limit or credentials): the health checks. The Host check is the
   * front door's (proxy.ts), which lets /healthz answer whatever Host a container's health check sends.
   */
  bare?: true;
  /**
   * The credential travels in the body (the Flagger hooks' metadata.token): not a browser's cross-site write,
   * so local mode's Origin rule does not apply, and the handler checks it under the same lockout.
   */
  credentialInBody?: true;
}

const READ = [400, 401, 404, 429] as const;
// 503: a SQLite store whose file was removed or replaced refuses writes (store_unavailable).
const WRITE = [400, 401, 403, 404, 413, 415, 422, 429, 503] as const;
const LIST = [401, 429] as const;

/** The API's base path: its entries form the OpenAPI document; the rest are the dashboard's and operators'. */
export const API_BASE = '/api/v1';

const STDIO_REFUSED =
  'Refused: stdio targets are declared in the config file (the stdio: list of erawatch.config.yaml), and a web ' +
  'request must never make the host run a command.';

function stdioRefusals<P extends string, N extends string>(path: P, noun: N) {
  const refusal = (method: HttpMethod) =>
    ({
      method,
      path,
      summary: `Refused with 405 stdio_targets_read_only (Allow: GET)`,
      tag: 'stdio targets',
      access: 'public',
      status: 405,
      problems: [405],
      description: STDIO_REFUSED,
    }) as const;
  return {
    [`post${noun}`]: refusal('POST'),
    [`put${noun}`]: refusal('PUT'),
    [`patch${noun}`]: refusal('PATCH'),
    [`delete${noun}`]: refusal('DELETE'),
  } as Record<`${'post' | 'put' | 'patch' | 'delete'}${N}`, ReturnType<typeof refusal>>;
}

export const ROUTES = {
  listBalancers: {
    method: 'GET',
    path: '/api/v1/balancers',
    summary: 'List balancers with their latest state',
    tag: 'balancers',
    access: 'viewer',
    query: BalancerListQuery,
    response: pageOf(
      BalancerListItemView.extend({
        progress: BalancerProgressView.nullable().meta({ description: 'as in GET /balancers/{id}' }),
      }),
    ),
    problems: READ,
  },
  createBalancer: {
    method: 'POST',
    path: '/api/v1/balancers',
    summary: 'Register a balancer',
    tag: 'balancers',
    access: 'operator',
    body: CreateBalancerInput.strict(),
    response: BalancerView,
    status: 201,
    problems: [...WRITE, 409],
  },
  getBalancer: {
    method: 'GET',
    path: '/api/v1/balancers/{id}',
    summary: 'A balancer with its settings, its current analysis and its nodes',
    tag: 'balancers',
    access: 'viewer',
    etag: true,
    response: BalancerView.extend({
      analysis: BalancerAnalysisView.nullable().meta({ description: 'null before the first cycle' }),
      progress: BalancerProgressView.nullable().meta({
        description:
          "progress toward the open window's target (or the largest group); null before the first cycle",
      }),
      nodes: z.array(NodeView),
    }).meta({ id: 'BalancerDetail' }),
    problems: READ,
  },
  getBalancerHistory: {
    method: 'GET',
    path: '/api/v1/balancers/{id}/history',
    summary:
      "A balancer's history per step (from, to: epoch ms or ISO 8601; step: 1m … or 1h …): state, severity, nodes per client era, nodes serving the target, availability",
    tag: 'balancers',
    access: 'viewer',
    query: HistoryQuery,
    response: BalancerHistory,
    problems: READ,
  },
  updateBalancer: {
    method: 'PATCH',
    path: '/api/v1/balancers/{id}',
    summary: 'Change some settings of a balancer',
    tag: 'balancers',
    access: 'operator',
    body: UpdateBalancerInput.strict(),
    response: BalancerView,
    problems: [...WRITE, 409],
  },
  deleteBalancer: {
    method: 'DELETE',
    path: '/api/v1/balancers/{id}',
    summary: 'Delete a balancer with its nodes, history and events',
    tag: 'balancers',
    access: 'operator',
    status: 204,
    problems: WRITE,
  },
  listBalancerNodes: {
    method: 'GET',
    path: '/api/v1/balancers/{id}/nodes',
    summary:
      "A balancer's nodes with their current verdicts: filtered (q, group, clientEra, served, region, lacks, availability), sorted (stable) and paged with a cursor",
    tag: 'nodes',
    access: 'viewer',
    query: NodeListQuery,
    response: nodePageOf(NodeView).meta({ id: 'NodePage' }),
    etag: true,
    problems: READ,
  },
  getGate: {
    method: 'GET',
    path: '/api/v1/balancers/{id}/gate',
    summary: 'Is the balancer ready to advertise a revision? ({id} is the id or the name)',
    tag: 'rollouts',
    access: 'viewer',
    query: GateQuery,
    response: GateAnswer,
    problems: READ,
    description:
      'Needs a read or write token. Every judged case is 200 with JSON (open, closed, cannot_judge), so Argo ' +
      "Rollouts' web provider reads `ready` instead of counting an Error; fresh=true probes the balancer first.",
  },
  flaggerGate: {
    method: 'POST',
    path: '/api/v1/hooks/flagger',
    summary: 'Flagger webhook: 200 when the gate is open, 409 gate_closed otherwise',
    tag: 'rollouts',
    access: 'public',
    credentialInBody: true,
    body: FlaggerHookInput,
    response: FlaggerHookAnswer,
    problems: [400, 401, 404, 409, 413, 415, 422, 429],
    description:
      "Needs a read token in metadata.token (Flagger's webhook spec has no headers field); it is never logged " +
      'or echoed. The 409 problem carries the gate answer as `gate`.',
  },
  flaggerRollback: {
    method: 'POST',
    path: '/api/v1/hooks/flagger/rollback',
    summary: 'Flagger rollback webhook: 200 (roll back) when the gate is not open, 409 gate_open while it is',
    tag: 'rollouts',
    access: 'public',
    credentialInBody: true,
    body: FlaggerHookInput,
    response: FlaggerHookAnswer,
    problems: [400, 401, 404, 409, 413, 415, 422, 429],
    description:
      'Needs a read token in metadata.token, never logged or echoed. The inverse of /hooks/flagger: Flagger ' +
      'rolls back on a 2xx from a rollback hook.',
  },
  probeBalancer: {
    method: 'POST',
    path: '/api/v1/balancers/{id}/probe',
    summary: 'Probe every node of the balancer now',
    tag: 'balancers',
    access: 'operator',
    response: ProbeNowResult,
    problems: [401, 403, 404, 409, 429, 502, 503, 504],
  },
  getOpenRollout: {
    method: 'GET',
    path: '/api/v1/balancers/{id}/rollouts',
    summary: 'The open rollout window, if any',
    tag: 'rollouts',
    access: 'viewer',
    response: z.object({ open: RolloutWindow.nullable() }),
    problems: READ,
  },
  openRollout: {
    method: 'POST',
    path: '/api/v1/balancers/{id}/rollouts',
    summary: 'Open a rollout window (target and deadline)',
    tag: 'rollouts',
    access: 'operator',
    body: OpenRolloutInput,
    response: RolloutWindow,
    status: 201,
    problems: [...WRITE, 409],
  },
  closeRollout: {
    method: 'POST',
    path: '/api/v1/rollouts/{id}/close',
    summary: 'Close a rollout window',
    tag: 'rollouts',
    access: 'operator',
    response: RolloutWindow,
    problems: [401, 403, 404, 409, 429],
  },
  getNode: {
    method: 'GET',
    path: '/api/v1/nodes/{id}',
    summary: 'A node with its current verdict and evidence',
    tag: 'nodes',
    access: 'viewer',
    response: NodeView,
    problems: READ,
  },
  getNodeHistory: {
    method: 'GET',
    path: '/api/v1/nodes/{id}/history',
    summary: "A node's fingerprint history, newest first",
    tag: 'nodes',
    access: 'viewer',
    query: NodeHistoryQuery,
    response: z.object({ items: z.array(NodeHistoryEntry) }),
    problems: READ,
  },
  listStdioTargets: {
    method: 'GET',
    path: '/api/v1/stdio-targets',
    summary: 'Stdio targets from the config file, with their latest verdict (read-only: writes answer 405)',
    tag: 'stdio targets',
    access: 'viewer',
    response: z.object({ items: z.array(StdioTargetView) }),
    problems: LIST,
  },
  ...stdioRefusals('/api/v1/stdio-targets', 'StdioTargets'),
  getStdioTarget: {
    method: 'GET',
    path: '/api/v1/stdio-targets/{id}',
    summary: 'A stdio target with its verdict, evidence and history (env names only, never values)',
    tag: 'stdio targets',
    access: 'viewer',
    response: StdioTargetDetailView,
    problems: READ,
  },
  ...stdioRefusals('/api/v1/stdio-targets/{id}', 'StdioTarget'),
  listEvents: {
    method: 'GET',
    path: '/api/v1/events',
    summary: 'Events, newest first, filtered by balancer, node, type and time',
    tag: 'events',
    access: 'viewer',
    etag: true,
    query: EventQuery,
    response: pageOf(Event),
    problems: READ,
  },
  listWebhooks: {
    method: 'GET',
    path: '/api/v1/webhooks',
    summary: 'List webhook endpoints',
    tag: 'webhooks',
    access: 'viewer',
    response: z.object({ items: z.array(WebhookEndpoint) }),
    problems: LIST,
  },
  createWebhook: {
    method: 'POST',
    path: '/api/v1/webhooks',
    summary: 'Register a webhook endpoint (the secret is returned once)',
    tag: 'webhooks',
    access: 'operator',
    body: CreateWebhookInput,
    response: CreatedWebhookEndpoint,
    status: 201,
    problems: [...WRITE, 409],
  },
  getWebhook: {
    method: 'GET',
    path: '/api/v1/webhooks/{id}',
    summary: 'A webhook endpoint',
    tag: 'webhooks',
    access: 'viewer',
    response: WebhookEndpoint,
    problems: READ,
  },
  updateWebhook: {
    method: 'PATCH',
    path: '/api/v1/webhooks/{id}',
    summary: 'Change a webhook endpoint (enabled: true re-enables it)',
    tag: 'webhooks',
    access: 'operator',
    body: UpdateWebhookInput,
    response: WebhookEndpoint,
    problems: [...WRITE, 409],
  },
  deleteWebhook: {
    method: 'DELETE',
    path: '/api/v1/webhooks/{id}',
    summary: 'Delete a webhook endpoint and its delivery log',
    tag: 'webhooks',
    access: 'operator',
    status: 204,
    problems: WRITE,
  },
  rotateWebhookSecret: {
    method: 'POST',
    path: '/api/v1/webhooks/{id}/rotate-secret',
    summary: 'Rotate the signing secret, with an overlap',
    tag: 'webhooks',
    access: 'operator',
    body: RotateSecretInput,
    response: CreatedWebhookEndpoint,
    problems: WRITE,
  },
  testWebhook: {
    method: 'POST',
    path: '/api/v1/webhooks/{id}/test',
    summary: 'Send a signed webhook.test event now',
    tag: 'webhooks',
    access: 'operator',
    response: WebhookTestResult,
    problems: [401, 403, 404, 429],
  },
  listWebhookDeliveries: {
    method: 'GET',
    path: '/api/v1/webhooks/{id}/deliveries',
    summary: 'Delivery log of an endpoint, with attempts',
    tag: 'webhooks',
    access: 'viewer',
    query: DeliveriesQuery,
    response: pageOf(WebhookDelivery),
    problems: READ,
  },
  redeliverWebhook: {
    method: 'POST',
    path: '/api/v1/webhooks/{id}/deliveries/{deliveryId}/redeliver',
    summary: 'Queue a delivery again',
    tag: 'webhooks',
    access: 'operator',
    response: WebhookDelivery,
    status: 202,
    problems: [401, 403, 404, 409, 429],
  },
  listAlertSinks: {
    method: 'GET',
    path: '/api/v1/alert-sinks',
    summary: 'List alert sinks (Alertmanager), credentials never shown',
    tag: 'alert-sinks',
    access: 'viewer',
    response: z.object({ items: z.array(AlertSink) }),
    problems: LIST,
  },
  createAlertSink: {
    method: 'POST',
    path: '/api/v1/alert-sinks',
    summary: 'Register an Alertmanager sink',
    tag: 'alert-sinks',
    access: 'operator',
    body: CreateAlertSinkInput,
    response: AlertSink,
    status: 201,
    problems: [...WRITE, 409],
  },
  getAlertSink: {
    method: 'GET',
    path: '/api/v1/alert-sinks/{id}',
    summary: 'An alert sink',
    tag: 'alert-sinks',
    access: 'viewer',
    response: AlertSink,
    problems: READ,
  },
  updateAlertSink: {
    method: 'PATCH',
    path: '/api/v1/alert-sinks/{id}',
    summary: 'Change an alert sink (enabled: true re-enables it)',
    tag: 'alert-sinks',
    access: 'operator',
    body: UpdateAlertSinkInput,
    response: AlertSink,
    problems: [...WRITE, 409],
  },
  deleteAlertSink: {
    method: 'DELETE',
    path: '/api/v1/alert-sinks/{id}',
    summary: 'Delete an alert sink, its alerts and its delivery log',
    tag: 'alert-sinks',
    access: 'operator',
    status: 204,
    problems: WRITE,
  },
  listSinkAlerts: {
    method: 'GET',
    path: '/api/v1/alert-sinks/{id}/alerts',
    summary: 'Alerts the sink is sending: firing, and resolved in the last 15 minutes',
    tag: 'alert-sinks',
    access: 'viewer',
    response: z.object({ items: z.array(SinkAlert) }),
    problems: READ,
  },
  listAlertSinkDeliveries: {
    method: 'GET',
    path: '/api/v1/alert-sinks/{id}/deliveries',
    summary: 'Delivery log of an alert sink (its pushes), with attempts',
    tag: 'alert-sinks',
    access: 'viewer',
    query: DeliveriesQuery,
    response: pageOf(WebhookDelivery),
    problems: READ,
  },
  redeliverAlertSinkPush: {
    method: 'POST',
    path: '/api/v1/alert-sinks/{id}/deliveries/{deliveryId}/redeliver',
    summary: 'Queue a push again (it sends the alerts as they are then)',
    tag: 'alert-sinks',
    access: 'operator',
    response: WebhookDelivery,
    status: 202,
    problems: [401, 403, 404, 409, 429],
  },
  listTokens: {
    method: 'GET',
    path: '/api/v1/tokens',
    summary:
      'List API tokens (never their secrets): an admin sees everyone’s (or one person’s, with owner), others their own',
    tag: 'tokens',
    access: 'account',
    query: TokenListQuery,
    response: z.object({ items: z.array(ApiToken) }),
    problems: [400, 401, 403, 429],
  },
  createToken: {
    method: 'POST',
    path: '/api/v1/tokens',
    summary: 'Create an API token (shown once), of a scope no higher than the caller’s role',
    tag: 'tokens',
    access: 'account',
    body: CreateTokenInput,
    response: CreatedApiToken,
    status: 201,
    problems: [400, 401, 403, 413, 415, 422, 429],
  },
  revokeToken: {
    method: 'DELETE',
    path: '/api/v1/tokens/{id}',
    summary: 'Revoke an API token (one’s own; an admin any)',
    tag: 'tokens',
    access: 'account',
    response: ApiToken,
    problems: [401, 403, 404, 429],
  },
  revokeOwnerTokens: {
    method: 'POST',
    path: '/api/v1/tokens/revoke',
    summary:
      'Revoke every live token one person minted (owner: their createdBy, e.g. user:<sub>), each audited; answers the tokens revoked',
    tag: 'tokens',
    access: 'admin',
    body: RevokeOwnerTokensInput,
    response: z.object({ items: z.array(ApiToken) }),
    problems: [400, 401, 403, 413, 415, 422, 429, 503],
  },
  listAudit: {
    method: 'GET',
    path: '/api/v1/audit',
    summary: 'The audit trail: who changed what, from where, with each field before and after',
    tag: 'audit',
    access: 'admin',
    query: AuditQuery,
    response: pageOf(AuditEntry),
    problems: [400, 401, 403, 429],
  },
  listSessions: {
    method: 'GET',
    path: '/api/v1/sessions',
    summary: 'Live dashboard sessions (not expired, not ended), newest first, the caller’s own marked',
    tag: 'session',
    access: 'admin',
    response: z.object({ items: z.array(DashboardSession) }),
    problems: [401, 403, 429],
  },
  endSession: {
    method: 'DELETE',
    path: '/api/v1/sessions/{id}',
    summary: 'End a dashboard session: every web process refuses its cookie from then on',
    tag: 'session',
    access: 'admin',
    status: 204,
    problems: [401, 403, 404, 429, 503],
  },
  getSession: {
    method: 'GET',
    path: '/api/v1/session',
    summary: 'Who the caller is, and whether the dashboard needs a login',
    tag: 'session',
    access: 'public',
    response: SessionState,
    problems: [429],
  },
  login: {
    method: 'POST',
    path: '/api/v1/session',
    summary: 'Log in to the dashboard with the admin secret (sets an HttpOnly session cookie)',
    tag: 'session',
    access: 'public',
    body: LoginInput,
    response: SessionState,
    problems: [400, 401, 403, 409, 413, 415, 422, 429],
  },
  logout: {
    method: 'DELETE',
    path: '/api/v1/session',
    summary: 'Log out: ends the session in the store, so every web process refuses its cookie, and clears it',
    tag: 'session',
    access: 'public',
    response: SessionState,
    problems: [429],
  },
  getOpenApiDocument: {
    method: 'GET',
    path: '/api/v1/openapi.json',
    summary: 'This OpenAPI 3.1 document',
    tag: 'contracts',
    access: 'public',
    problems: [429],
  },
  getConfigSchema: {
    method: 'GET',
    path: '/api/v1/config.schema.json',
    summary: 'The JSON Schema of erawatch.config.yaml, for editors',
    tag: 'contracts',
    access: 'public',
    problems: [429],
  },

  // The dashboard's read model (lib/api/read-model.ts): shaped for the screens, not a contract for integrations.
  dashboardFleet: {
    method: 'GET',
    path: '/dashboard-data/fleet',
    summary: "The fleet overview's rows in one response",
    tag: 'dashboard',
    access: 'viewer',
    problems: LIST,
  },
  dashboardBalancer: {
    method: 'GET',
    path: '/dashboard-data/balancers/{id}',
    summary: "One balancer's headline for the detail screen",
    tag: 'dashboard',
    access: 'viewer',
    etag: true,
    response: BalancerDetailView,
    problems: READ,
  },
  dashboardBalancerNodes: {
    method: 'GET',
    path: '/dashboard-data/balancers/{id}/nodes',
    summary:
      "A balancer's rows for the matrix, without evidence: filtered, sorted and paged as the API's nodes",
    tag: 'dashboard',
    access: 'viewer',
    query: NodeListQuery,
    response: nodePageOf(NodeRowView),
    etag: true,
    problems: READ,
  },
  dashboardNodeLabels: {
    method: 'GET',
    path: '/dashboard-data/node-labels',
    summary: 'Labels (URL or attribution) for the node ids a list shows',
    tag: 'dashboard',
    access: 'viewer',
    query: NodeLabelsQuery,
    response: z.object({ labels: z.record(z.string(), z.string()) }),
    problems: [400, 401, 429],
  },
  dashboardNodeRollups: {
    method: 'GET',
    path: '/dashboard-data/nodes/{id}/rollups',
    summary: "A node's latency chart: minute buckets for the last six hours, hourly rollups before (31 days)",
    tag: 'dashboard',
    access: 'viewer',
    response: pageOf(LatencyPoint),
    problems: READ,
  },

  // For operators and their load balancers and scrapers.
  metrics: {
    method: 'GET',
    path: '/metrics',
    summary:
      'Prometheus exposition (needs a read token except in local mode: balancer names are fleet information)',
    tag: 'ops',
    access: 'viewer',
    problems: LIST,
  },
  readiness: {
    method: 'GET',
    path: '/readyz',
    summary: '200 when ready, 503 with the failing check otherwise; public and secret-free',
    tag: 'ops',
    access: 'public',
    problems: [],
    bare: true,
  },
  liveness: {
    method: 'GET',
    path: '/healthz',
    summary: 'The process is up and serving; nothing else is checked',
    tag: 'ops',
    access: 'public',
    problems: [],
    bare: true,
  },
  startSignIn: {
    method: 'GET',
    path: '/auth/login',
    summary: 'Single sign-on: redirects to the OpenID Connect provider (with ?next=, a same-site path)',
    tag: 'session',
    access: 'public',
    problems: [],
    bare: true,
  },
  finishSignIn: {
    method: 'GET',
    path: '/auth/callback',
    summary: 'Single sign-on: the provider redirects back here; makes the session, or goes to the login page',
    tag: 'session',
    access: 'public',
    problems: [],
    bare: true,
  },
} as const satisfies Record<string, RouteDefinition>;

export type OperationId = keyof typeof ROUTES;
export type RouteOf<K extends OperationId> = (typeof ROUTES)[K];

/** Every entry with its operationId, in table order. */
export function routeEntries(): Array<RouteDefinition & { operationId: OperationId }> {
  return (Object.entries(ROUTES) as Array<[OperationId, RouteDefinition]>).map(([operationId, def]) => ({
    operationId,
    ...def,
  }));
}
