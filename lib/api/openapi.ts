// The OpenAPI 3.1 document, generated from the same zod schemas that validate requests. The operation table
// below also feeds the human-readable reference page.
import { z } from 'zod';
import { AlertSink, CreateAlertSinkInput, SinkAlert, UpdateAlertSinkInput } from '@/lib/schemas/alert-sink';
import { CreateBalancerInput, UpdateBalancerInput } from '@/lib/schemas/balancer';
import { BalancerAnalysisView } from '@/lib/schemas/balancer-analysis';
import {
  BalancerListItemView,
  BalancerListQuery,
  BalancerView,
  NodeHistoryEntry,
  NodeView,
} from '@/lib/schemas/balancer-view';
import { Limit, pageOf } from '@/lib/schemas/common';
import { Event, EventQuery } from '@/lib/schemas/event';
import {
  FlaggerHookAnswer,
  FlaggerHookInput,
  GateAnswer,
  GateQuery,
  OpenRolloutInput,
  RolloutWindow,
} from '@/lib/schemas/rollout';
import { LoginInput, SessionState } from '@/lib/schemas/session';
import { StdioTargetDetailView, StdioTargetView } from '@/lib/schemas/stdio-target';
import { ApiToken, CreatedApiToken, CreateTokenInput } from '@/lib/schemas/token';
import {
  CreatedWebhookEndpoint,
  CreateWebhookInput,
  RotateSecretInput,
  UpdateWebhookInput,
  WebhookDelivery,
  WebhookEndpoint,
  WebhookEnvelope,
} from '@/lib/schemas/webhook';
import type { Access } from './with-api';
import { AuditEntry, AuditQuery } from '@/lib/schemas/audit';

export interface Operation {
  method: 'get' | 'post' | 'patch' | 'delete';
  path: string;
  summary: string;
  tag: string;
  access: Access;
  query?: z.ZodObject;
  body?: z.ZodType;
  response?: z.ZodType;
  status?: number;
  errors: number[];
  /** Replaces the generated "Needs …" line, for routes whose credential is not a header. */
  description?: string;
}

const TestResult = z.object({
  deliveryId: z.string(),
  outcome: z.string(),
  httpStatus: z.int().nullable(),
  error: z.string().nullable(),
  durationMs: z.int(),
});
const ProbeResult = z.record(z.string(), z.unknown()).meta({ description: 'the cycle summary' });

const READ = [400, 401, 404, 429];
const WRITE = [400, 401, 403, 404, 413, 415, 422, 429];

export const OPERATIONS: Operation[] = [
  {
    method: 'get',
    path: '/balancers',
    summary: 'List balancers with their latest state',
    tag: 'balancers',
    access: 'read',
    query: BalancerListQuery,
    response: pageOf(BalancerListItemView),
    errors: READ,
  },
  {
    method: 'post',
    path: '/balancers',
    summary: 'Register a balancer',
    tag: 'balancers',
    access: 'write',
    body: CreateBalancerInput,
    response: BalancerView,
    status: 201,
    errors: [...WRITE, 409],
  },
  {
    method: 'get',
    path: '/balancers/{id}',
    summary: 'A balancer with its settings, its current analysis and its nodes',
    tag: 'balancers',
    access: 'read',
    response: BalancerView.extend({
      analysis: BalancerAnalysisView.nullable().meta({ description: 'null before the first cycle' }),
      nodes: z.array(NodeView),
    }).meta({ id: 'BalancerDetail' }),
    errors: READ,
  },
  {
    method: 'patch',
    path: '/balancers/{id}',
    summary: 'Change some settings of a balancer',
    tag: 'balancers',
    access: 'write',
    body: UpdateBalancerInput,
    response: BalancerView,
    errors: [...WRITE, 409],
  },
  {
    method: 'delete',
    path: '/balancers/{id}',
    summary: 'Delete a balancer with its nodes, history and events',
    tag: 'balancers',
    access: 'write',
    status: 204,
    errors: WRITE,
  },
  {
    method: 'get',
    path: '/balancers/{id}/nodes',
    summary: "A balancer's nodes with their current verdicts",
    tag: 'nodes',
    access: 'read',
    response: z.object({ items: z.array(NodeView) }),
    errors: READ,
  },
  {
    method: 'get',
    path: '/balancers/{id}/gate',
    summary: 'Is the balancer ready to advertise a revision? ({id} is the id or the name)',
    tag: 'rollouts',
    access: 'read',
    query: GateQuery,
    response: GateAnswer,
    errors: READ,
    description:
      'Needs a read or write token. Every judged case is 200 with JSON (open, closed, cannot_judge), so Argo ' +
      "Rollouts' web provider reads `ready` instead of counting an Error; fresh=true probes the balancer first.",
  },
  {
    method: 'post',
    path: '/hooks/flagger',
    summary: 'Flagger webhook: 200 when the gate is open, 409 gate_closed otherwise',
    tag: 'rollouts',
    access: 'public',
    body: FlaggerHookInput,
    response: FlaggerHookAnswer,
    errors: [400, 401, 404, 409, 413, 415, 422, 429],
    description:
      "Needs a read token in metadata.token (Flagger's webhook spec has no headers field); it is never logged " +
      'or echoed. The 409 problem carries the gate answer as `gate`.',
  },
  {
    method: 'post',
    path: '/hooks/flagger/rollback',
    summary: 'Flagger rollback webhook: 200 (roll back) when the gate is not open, 409 gate_open while it is',
    tag: 'rollouts',
    access: 'public',
    body: FlaggerHookInput,
    response: FlaggerHookAnswer,
    errors: [400, 401, 404, 409, 413, 415, 422, 429],
    description:
      'Needs a read token in metadata.token, never logged or echoed. The inverse of /hooks/flagger: Flagger ' +
      'rolls back on a 2xx from a rollback hook.',
  },
  {
    method: 'post',
    path: '/balancers/{id}/probe',
    summary: 'Probe every node of the balancer now',
    tag: 'balancers',
    access: 'write',
    response: ProbeResult,
    errors: [401, 403, 404, 409, 429, 502, 503, 504],
  },
  {
    method: 'get',
    path: '/balancers/{id}/rollouts',
    summary: 'The open rollout window, if any',
    tag: 'rollouts',
    access: 'read',
    response: z.object({ open: RolloutWindow.nullable() }),
    errors: READ,
  },
  {
    method: 'post',
    path: '/balancers/{id}/rollouts',
    summary: 'Open a rollout window (target and deadline)',
    tag: 'rollouts',
    access: 'write',
    body: OpenRolloutInput,
    response: RolloutWindow,
    status: 201,
    errors: [...WRITE, 409],
  },
  {
    method: 'post',
    path: '/rollouts/{id}/close',
    summary: 'Close a rollout window',
    tag: 'rollouts',
    access: 'write',
    response: RolloutWindow,
    errors: [401, 403, 404, 409, 429],
  },
  {
    method: 'get',
    path: '/nodes/{id}',
    summary: 'A node with its current verdict and evidence',
    tag: 'nodes',
    access: 'read',
    response: NodeView,
    errors: READ,
  },
  {
    method: 'get',
    path: '/nodes/{id}/history',
    summary: "A node's fingerprint history, newest first",
    tag: 'nodes',
    access: 'read',
    query: z.object({ limit: Limit }),
    response: z.object({ items: z.array(NodeHistoryEntry) }),
    errors: READ,
  },
  {
    method: 'get',
    path: '/stdio-targets',
    summary: 'Stdio targets from the config file, with their latest verdict (read-only: writes answer 405)',
    tag: 'stdio targets',
    access: 'read',
    response: z.object({ items: z.array(StdioTargetView) }),
    errors: [401, 405, 429],
  },
  {
    method: 'get',
    path: '/stdio-targets/{id}',
    summary: 'A stdio target with its verdict, evidence and history (env names only, never values)',
    tag: 'stdio targets',
    access: 'read',
    response: StdioTargetDetailView,
    errors: [...READ, 405],
  },
  {
    method: 'get',
    path: '/events',
    summary: 'Events, newest first, filtered by balancer, type and time',
    tag: 'events',
    access: 'read',
    query: EventQuery,
    response: pageOf(Event),
    errors: READ,
  },
  {
    method: 'get',
    path: '/webhooks',
    summary: 'List webhook endpoints',
    tag: 'webhooks',
    access: 'read',
    response: z.object({ items: z.array(WebhookEndpoint) }),
    errors: READ,
  },
  {
    method: 'post',
    path: '/webhooks',
    summary: 'Register a webhook endpoint (the secret is returned once)',
    tag: 'webhooks',
    access: 'write',
    body: CreateWebhookInput,
    response: CreatedWebhookEndpoint,
    status: 201,
    errors: [...WRITE, 409],
  },
  {
    method: 'get',
    path: '/webhooks/{id}',
    summary: 'A webhook endpoint',
    tag: 'webhooks',
    access: 'read',
    response: WebhookEndpoint,
    errors: READ,
  },
  {
    method: 'patch',
    path: '/webhooks/{id}',
    summary: 'Change a webhook endpoint (enabled: true re-enables it)',
    tag: 'webhooks',
    access: 'write',
    body: UpdateWebhookInput,
    response: WebhookEndpoint,
    errors: [...WRITE, 409],
  },
  {
    method: 'delete',
    path: '/webhooks/{id}',
    summary: 'Delete a webhook endpoint and its delivery log',
    tag: 'webhooks',
    access: 'write',
    status: 204,
    errors: WRITE,
  },
  {
    method: 'post',
    path: '/webhooks/{id}/rotate-secret',
    summary: 'Rotate the signing secret, with an overlap',
    tag: 'webhooks',
    access: 'write',
    body: RotateSecretInput,
    response: CreatedWebhookEndpoint,
    errors: WRITE,
  },
  {
    method: 'post',
    path: '/webhooks/{id}/test',
    summary: 'Send a signed webhook.test event now',
    tag: 'webhooks',
    access: 'write',
    response: TestResult,
    errors: [401, 403, 404, 429],
  },
  {
    method: 'get',
    path: '/webhooks/{id}/deliveries',
    summary: 'Delivery log of an endpoint, with attempts',
    tag: 'webhooks',
    access: 'read',
    response: pageOf(WebhookDelivery),
    errors: READ,
  },
  {
    method: 'post',
    path: '/webhooks/{id}/deliveries/{deliveryId}/redeliver',
    summary: 'Queue a delivery again',
    tag: 'webhooks',
    access: 'write',
    response: WebhookDelivery,
    status: 202,
    errors: [401, 403, 404, 409, 429],
  },
  {
    method: 'get',
    path: '/alert-sinks',
    summary: 'List alert sinks (Alertmanager), credentials never shown',
    tag: 'alert-sinks',
    access: 'read',
    response: z.object({ items: z.array(AlertSink) }),
    errors: READ,
  },
  {
    method: 'post',
    path: '/alert-sinks',
    summary: 'Register an Alertmanager sink',
    tag: 'alert-sinks',
    access: 'write',
    body: CreateAlertSinkInput,
    response: AlertSink,
    status: 201,
    errors: [...WRITE, 409],
  },
  {
    method: 'get',
    path: '/alert-sinks/{id}',
    summary: 'An alert sink',
    tag: 'alert-sinks',
    access: 'read',
    response: AlertSink,
    errors: READ,
  },
  {
    method: 'patch',
    path: '/alert-sinks/{id}',
    summary: 'Change an alert sink (enabled: true re-enables it)',
    tag: 'alert-sinks',
    access: 'write',
    body: UpdateAlertSinkInput,
    response: AlertSink,
    errors: [...WRITE, 409],
  },
  {
    method: 'delete',
    path: '/alert-sinks/{id}',
    summary: 'Delete an alert sink, its alerts and its delivery log',
    tag: 'alert-sinks',
    access: 'write',
    status: 204,
    errors: WRITE,
  },
  {
    method: 'get',
    path: '/alert-sinks/{id}/alerts',
    summary: 'Alerts the sink is sending: firing, and resolved in the last 15 minutes',
    tag: 'alert-sinks',
    access: 'read',
    response: z.object({ items: z.array(SinkAlert) }),
    errors: READ,
  },
  {
    method: 'get',
    path: '/alert-sinks/{id}/deliveries',
    summary: 'Delivery log of an alert sink (its pushes), with attempts',
    tag: 'alert-sinks',
    access: 'read',
    response: pageOf(WebhookDelivery),
    errors: READ,
  },
  {
    method: 'post',
    path: '/alert-sinks/{id}/deliveries/{deliveryId}/redeliver',
    summary: 'Queue a push again (it sends the alerts as they are then)',
    tag: 'alert-sinks',
    access: 'write',
    response: WebhookDelivery,
    status: 202,
    errors: [401, 403, 404, 409, 429],
  },
  {
    method: 'get',
    path: '/tokens',
    summary: 'List API tokens (never their secrets): an admin sees everyone’s, others their own',
    tag: 'tokens',
    access: 'account',
    response: z.object({ items: z.array(ApiToken) }),
    errors: [401, 403, 429],
  },
  {
    method: 'post',
    path: '/tokens',
    summary: 'Create an API token (shown once), of a scope no higher than the caller’s role',
    tag: 'tokens',
    access: 'account',
    body: CreateTokenInput,
    response: CreatedApiToken,
    status: 201,
    errors: [400, 401, 403, 413, 415, 422, 429],
  },
  {
    method: 'delete',
    path: '/tokens/{id}',
    summary: 'Revoke an API token (one’s own; an admin any)',
    tag: 'tokens',
    access: 'account',
    response: ApiToken,
    errors: [401, 403, 404, 429],
  },
  {
    method: 'get',
    path: '/audit',
    summary: 'The audit trail: who changed what, from where, with each field before and after',
    tag: 'audit',
    access: 'admin',
    query: AuditQuery,
    response: pageOf(AuditEntry),
    errors: [400, 401, 403, 429],
  },
  {
    method: 'get',
    path: '/session',
    summary: 'Who the caller is, and whether the dashboard needs a login',
    tag: 'session',
    access: 'public',
    response: SessionState,
    errors: [429],
  },
  {
    method: 'post',
    path: '/session',
    summary: 'Log in to the dashboard with the admin secret (sets an HttpOnly session cookie)',
    tag: 'session',
    access: 'public',
    body: LoginInput,
    response: SessionState,
    errors: [400, 401, 403, 409, 413, 415, 422, 429],
  },
  {
    method: 'delete',
    path: '/session',
    summary: 'Log out: ends the session in the store, so every web process refuses its cookie, and clears it',
    tag: 'session',
    access: 'public',
    response: SessionState,
    errors: [429],
  },
  {
    method: 'get',
    path: '/openapi.json',
    summary: 'This OpenAPI 3.1 document',
    tag: 'contracts',
    access: 'public',
    errors: [429],
  },
  {
    method: 'get',
    path: '/config.schema.json',
    summary: 'The JSON Schema of erawatch.config.yaml, for editors',
    tag: 'contracts',
    access: 'public',
    errors: [429],
  },
];

const ProblemSchema = {
  type: 'object',
  required: ['type', 'title', 'status', 'detail'],
  properties: {
    type: { type: 'string', format: 'uri' },
    title: { type: 'string' },
    status: { type: 'integer' },
    detail: { type: 'string' },
    errors: {
      type: 'array',
      items: {
        type: 'object',
        required: ['pointer', 'detail'],
        properties: {
          pointer: { type: 'string' },
          detail: { type: 'string' },
          in: { enum: ['body', 'query', 'path'] },
        },
      },
    },
  },
};

// Named schemas (.meta({ id })) come out of zod as `$defs` with `#/$defs/X` refs; in an OpenAPI document they
// belong under components.schemas (input shapes suffixed `Input`: defaults make them differ from outputs).
function schemaOf(
  schema: z.ZodType,
  io: 'input' | 'output',
  components: Record<string, unknown> = {},
): Record<string, unknown> {
  const suffix = io === 'input' ? 'Input' : '';
  const rewrite = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(rewrite);
    if (value && typeof value === 'object') {
      return Object.fromEntries(
        Object.entries(value).map(([k, v]) => [
          k,
          k === '$ref' && typeof v === 'string'
            ? v.replace(/^#\/\$defs\/(.+)$/, (_m, id: string) => `#/components/schemas/${id}${suffix}`)
            : rewrite(v),
        ]),
      );
    }
    return value;
  };
  const out = z.toJSONSchema(schema, { io, unrepresentable: 'any', target: 'draft-2020-12' }) as Record<
    string,
    unknown
  >;
  delete out.$schema;
  const defs = (out.$defs ?? {}) as Record<string, unknown>;
  delete out.$defs;
  for (const [id, def] of Object.entries(defs)) components[`${id}${suffix}`] = rewrite(def);
  return rewrite(out) as Record<string, unknown>;
}

function queryParameters(query: z.ZodObject) {
  const json = schemaOf(query, 'input') as {
    properties?: Record<string, Record<string, unknown>>;
    required?: string[];
  };
  return Object.entries(json.properties ?? {}).map(([name, schema]) => ({
    name,
    in: 'query',
    required: json.required?.includes(name) ?? false,
    schema,
  }));
}

function pathParameters(path: string) {
  return [...path.matchAll(/\{(\w+)\}/g)].map((m) => ({
    name: m[1],
    in: 'path',
    required: true,
    schema: { type: 'string' },
  }));
}

export function describeAccess(access: Access): string {
  switch (access) {
    case 'public':
      return 'no credentials';
    case 'read':
      return 'a read or write token, or a session of the viewer role or above';
    case 'write':
      return 'a write token, or a session of the operator role or above';
    case 'admin':
      return 'the admin secret, or a session of the admin role';
    case 'account':
      return 'a person (a session of any role, or the admin secret), not a token';
  }
}

export function buildOpenApiDocument(version: string): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  const components: Record<string, unknown> = {};
  schemaOf(WebhookEnvelope, 'output', components);
  for (const op of OPERATIONS) {
    const responses: Record<string, unknown> = {};
    const ok = op.status ?? 200;
    responses[String(ok)] =
      ok === 204 || !op.response
        ? { description: ok === 204 ? 'No content' : 'OK' }
        : {
            description: 'OK',
            content: { 'application/json': { schema: schemaOf(op.response, 'output', components) } },
          };
    for (const status of op.errors) {
      responses[String(status)] = {
        description: `problem details (${status})`,
        content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } },
      };
    }
    const operation: Record<string, unknown> = {
      operationId: `${op.method}${op.path.replace(/\{(\w+)\}/g, 'By$1').replace(/[/-](\w)/g, (_, c: string) => c.toUpperCase())}`,
      summary: op.summary,
      description: op.description ?? `Needs ${describeAccess(op.access)}.`,
      tags: [op.tag],
      parameters: [...pathParameters(op.path), ...(op.query ? queryParameters(op.query) : [])],
      responses,
      security: op.access === 'public' ? [] : [{ bearer: [] }, { session: [] }],
    };
    if (op.body) {
      operation.requestBody = {
        required: true,
        content: { 'application/json': { schema: schemaOf(op.body, 'input', components) } },
      };
    }
    paths[op.path] = { ...paths[op.path], [op.method]: operation };
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Erawatch API',
      version,
      description:
        'Watches MCP fleets through the 2026-07-28 rollout. Errors are RFC 9457 problem+json with a pointer per invalid field.',
    },
    servers: [{ url: '/api/v1' }],
    paths,
    components: {
      securitySchemes: {
        bearer: { type: 'http', scheme: 'bearer', description: 'an API token (ewt_read_… or ewt_write_…)' },
        session: {
          type: 'apiKey',
          in: 'cookie',
          name: 'erawatch_session',
          description: 'dashboard login; writes need a same-origin Origin',
        },
      },
      schemas: { ...components, Problem: ProblemSchema },
    },
  };
}
