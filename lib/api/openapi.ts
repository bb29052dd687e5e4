// The OpenAPI 3.1 document, derived from the route table (lib/api/routes.ts): every /api/v1 entry is an
// operation, with the same zod schemas that validate its requests. The /api-docs page reads the same list.
import { z } from 'zod';
import { WebhookEnvelope } from '@/lib/schemas/webhook';
import { API_BASE, routeEntries, type Access, type OperationId, type RouteDefinition } from './routes';

/** One documented operation: a route-table entry under /api/v1, its path relative to the base. */
export interface Operation extends Omit<RouteDefinition, 'method'> {
  operationId: OperationId;
  method: 'get' | 'post' | 'put' | 'patch' | 'delete';
}

/** The documented operations, in table order. */
export function apiOperations(): Operation[] {
  return routeEntries()
    .filter((r) => r.path.startsWith(`${API_BASE}/`))
    .map((r) => ({
      ...r,
      path: r.path.slice(API_BASE.length),
      method: r.method.toLowerCase() as Operation['method'],
    }));
}

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
    case 'viewer':
      return 'the viewer role: a read or write token, or a session of any role';
    case 'operator':
      return 'the operator role: a write token, or a session of an operator or admin';
    case 'admin':
      return 'the admin role: the admin secret, or a session of an admin';
    case 'account':
      return 'a person (a session of any role, or the admin secret), not a token';
  }
}

const ETAG_HEADER = {
  description: 'a weak validator of the body: send it back as If-None-Match to get 304 while it holds',
  schema: { type: 'string' },
};

const IF_NONE_MATCH = {
  name: 'If-None-Match',
  in: 'header',
  required: false,
  description: 'the ETag of the copy held: 304 with no body while it is current',
  schema: { type: 'string' },
};

/** A read answered with an ETag: its 200 names the header, and 304 answers a matching If-None-Match. */
function revalidated(responses: Record<string, unknown>): void {
  const ok = responses['200'] as Record<string, unknown> | undefined;
  if (ok) responses['200'] = { ...ok, headers: { ETag: ETAG_HEADER } };
  responses['304'] = {
    description: 'Not modified: If-None-Match holds the current ETag (no body)',
    headers: { ETag: ETAG_HEADER },
  };
}

export function buildOpenApiDocument(version: string): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  const components: Record<string, unknown> = {};
  schemaOf(WebhookEnvelope, 'output', components);
  for (const op of apiOperations()) {
    const responses: Record<string, unknown> = {};
    const ok = op.status ?? 200;
    if (ok < 400)
      responses[String(ok)] =
        ok === 204 || !op.response
          ? { description: ok === 204 ? 'No content' : 'OK' }
          : {
              description: 'OK',
              content: { 'application/json': { schema: schemaOf(op.response, 'output', components) } },
            };
    if (op.etag) revalidated(responses);
    for (const status of op.problems) {
      responses[String(status)] = {
        description: `problem details (${status})`,
        content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } },
      };
    }
    const operation: Record<string, unknown> = {
      operationId: op.operationId,
      summary: op.summary,
      description: op.description ?? `Needs ${describeAccess(op.access)}.`,
      tags: [op.tag],
      parameters: [
        ...pathParameters(op.path),
        ...(op.query ? queryParameters(op.query) : []),
        ...(op.etag ? [IF_NONE_MATCH] : []),
      ],
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
