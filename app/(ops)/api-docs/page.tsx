// The readable API reference: the same route table and zod schemas as /api/v1/openapi.json, rendered on
// the server with no external assets.
import type { Metadata } from 'next';
import type { z } from 'zod';
import { apiOperations, describeAccess, type Operation } from '@/lib/api/openapi';
import { toJSONSchema } from 'zod';

export const metadata: Metadata = { title: 'API reference' };

interface JsonSchema {
  $ref?: string;
  $defs?: Record<string, JsonSchema>;
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
  enum?: unknown[];
  default?: unknown;
  description?: string;
  anyOf?: JsonSchema[];
  format?: string;
}

function typeOf(s: JsonSchema): string {
  if (s.$ref) return s.$ref.replace('#/$defs/', '');
  if (s.enum) return s.enum.map((v) => JSON.stringify(v)).join(' | ');
  if (s.anyOf) return s.anyOf.map(typeOf).join(' | ');
  if (s.type === 'array' && s.items) return `${typeOf(s.items)}[]`;
  if (Array.isArray(s.type)) return s.type.join(' | ');
  return s.format ? `${s.type ?? 'any'} (${s.format})` : (s.type ?? 'any');
}

function Fields({ schema, io }: { schema: z.ZodType; io: 'input' | 'output' }) {
  const raw = toJSONSchema(schema, { io, unrepresentable: 'any' }) as JsonSchema;
  // A named schema comes as a $ref to its own definition: show the definition.
  const json = (raw.$ref && raw.$defs?.[raw.$ref.replace('#/$defs/', '')]) || raw;
  const props = Object.entries(json.properties ?? {});
  if (props.length === 0) return <p>{typeOf(json)}</p>;
  return (
    <table className="api-fields">
      <thead>
        <tr>
          <th scope="col">field</th>
          <th scope="col">type</th>
          <th scope="col">notes</th>
        </tr>
      </thead>
      <tbody>
        {props.map(([name, p]) => (
          <tr key={name}>
            <td>
              <code>{name}</code>
              {json.required?.includes(name) && io === 'input' ? ' (required)' : ''}
            </td>
            <td>
              <code>{typeOf(p)}</code>
            </td>
            <td>
              {p.description ?? ''}
              {p.default !== undefined ? ` default ${JSON.stringify(p.default)}` : ''}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function OperationEntry({ op }: { op: Operation }) {
  return (
    <section className="api-op" id={`${op.method}-${op.path}`}>
      <h3>
        <code>
          {op.method.toUpperCase()} /api/v1{op.path}
        </code>
      </h3>
      <p>
        {op.summary}. {op.description ?? `Needs ${describeAccess(op.access)}.`} Answers {op.status ?? 200};
        errors {op.problems.join(', ')} as <code>application/problem+json</code>.
      </p>
      {op.query && (
        <>
          <h4>Query</h4>
          <Fields schema={op.query} io="input" />
        </>
      )}
      {op.body && (
        <>
          <h4>Body</h4>
          <Fields schema={op.body} io="input" />
        </>
      )}
      {op.response && (
        <>
          <h4>Response</h4>
          <Fields schema={op.response} io="output" />
        </>
      )}
    </section>
  );
}

export default function ApiDocsPage() {
  const operations = apiOperations();
  const tags = [...new Set(operations.map((o) => o.tag))];
  return (
    <article className="api-docs">
      <h1>Erawatch API v1</h1>
      <p>
        Machine-readable: <a href="/api/v1/openapi.json">/api/v1/openapi.json</a> (OpenAPI 3.1) and{' '}
        <a href="/api/v1/config.schema.json">/api/v1/config.schema.json</a> (the config file). Send{' '}
        <code>Authorization: Bearer &lt;token&gt;</code>; tokens are created under Settings or with{' '}
        <code>POST /api/v1/tokens</code> using the admin secret.
      </p>
      <nav aria-label="Resources">
        <ul>
          {tags.map((t) => (
            <li key={t}>
              <a href={`#${t}`}>{t}</a>
            </li>
          ))}
        </ul>
      </nav>
      {tags.map((t) => (
        <section key={t} id={t}>
          <h2>{t}</h2>
          {operations
            .filter((o) => o.tag === t)
            .map((op) => (
              <OperationEntry key={`${op.method} ${op.path}`} op={op} />
            ))}
        </section>
      ))}
    </article>
  );
}
