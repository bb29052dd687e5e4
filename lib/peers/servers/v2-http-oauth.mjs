// A real v2 SDK MCP server behind OAuth: it verifies the bearer JWT against the authorization server's JWKS
// with jose, and publishes its RFC 9728 protected-resource metadata with the SDK's helpers.
// node v2-http-oauth.mjs --port 0 --issuer URL [--host 127.0.0.1] [--scope mcp:read]
//   [--metadata-resource-path P] publish metadata for another resource on this origin (a mismatch)
//   [--no-challenge]            refuse with a bare 401 and no WWW-Authenticate
// Prints one JSON line {"port":N} on stdout once listening.
import { createServer } from 'node:http';
import { parseArgs } from 'node:util';
import { createRemoteJWKSet, jwtVerify } from 'jose';
import {
  McpServer,
  OAuthError,
  OAuthErrorCode,
  createMcpHandler,
  getOAuthProtectedResourceMetadataUrl,
  oauthMetadataResponse,
  requireBearerAuth,
} from '@modelcontextprotocol/server';
import { toNodeHandler } from '@modelcontextprotocol/node';
import * as z from 'zod';

const { values } = parseArgs({
  options: {
    port: { type: 'string', default: '0' },
    host: { type: 'string', default: '127.0.0.1' },
    issuer: { type: 'string', default: '' },
    scope: { type: 'string', default: 'mcp:read' },
    'metadata-resource-path': { type: 'string', default: '' },
    'no-challenge': { type: 'boolean', default: false },
    name: { type: 'string', default: 'erawatch-peer-v2-oauth' },
    version: { type: 'string', default: '2.4.0' },
  },
});
if (!values.issuer) {
  console.error('--issuer is required');
  process.exit(2);
}
const issuer = values.issuer;
const asMetadata = await (await fetch(`${issuer}/.well-known/openid-configuration`)).json();
const jwks = createRemoteJWKSet(new URL(asMetadata.jwks_uri));

// Every authorization decision, so tests can wait for a rejection (an expired token) as an event.
const decisions = [];
const factory = () => {
  const server = new McpServer({ name: values.name, version: values.version });
  server.registerTool(
    'echo',
    { description: 'Echo the given text', inputSchema: z.object({ text: z.string() }) },
    async ({ text }) => ({ content: [{ type: 'text', text }] }),
  );
  return server;
};
const mcp = createMcpHandler(factory, { legacy: 'stateless' });

const server = createServer();
server.listen(Number(values.port), values.host, () => {
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  const host = values.host.includes(':') ? `[${values.host}]` : values.host;
  const resourceUrl = new URL(`http://${host}:${port}/mcp`);
  const published = values['metadata-resource-path']
    ? new URL(values['metadata-resource-path'], resourceUrl)
    : resourceUrl;
  const metadataOptions = {
    oauthMetadata: asMetadata,
    resourceServerUrl: published,
    scopesSupported: values.scope.split(' '),
    resourceName: values.name,
    dangerouslyAllowInsecureIssuerUrl: true,
  };
  const resourceMetadataUrl = getOAuthProtectedResourceMetadataUrl(published);
  const verifier = {
    async verifyAccessToken(token) {
      try {
        const { payload } = await jwtVerify(token, jwks, { issuer, audience: resourceUrl.href });
        decisions.push({ ok: true });
        return {
          token,
          clientId: String(payload.client_id ?? payload.sub ?? ''),
          scopes: String(payload.scope ?? '')
            .split(' ')
            .filter(Boolean),
          expiresAt: payload.exp,
          resource: resourceUrl,
        };
      } catch (err) {
        decisions.push({ ok: false, reason: err?.code === 'ERR_JWT_EXPIRED' ? 'expired' : 'invalid' });
        throw new OAuthError(
          OAuthErrorCode.InvalidToken,
          err instanceof Error ? err.message : 'invalid token',
        );
      }
    },
  };
  const gate = requireBearerAuth({
    verifier,
    requiredScopes: values.scope.split(' '),
    resourceMetadataUrl,
    expectedResource: resourceUrl,
  });
  const handler = toNodeHandler({
    async fetch(request) {
      const metadata = oauthMetadataResponse(request, metadataOptions);
      if (metadata) return metadata;
      if (new URL(request.url).pathname !== '/mcp') return new Response('not found', { status: 404 });
      if (!request.headers.get('authorization')) decisions.push({ ok: false, reason: 'missing' });
      const auth = await gate(request);
      if (auth instanceof Response) {
        if (!values['no-challenge']) return auth;
        return new Response('unauthorized', { status: 401, headers: { 'content-type': 'text/plain' } });
      }
      return mcp.fetch(request, { authInfo: auth });
    },
  });
  server.on('request', (req, res) => {
    if (req.method === 'GET' && req.url === '/__erawatch/decisions') {
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ decisions }));
      return;
    }
    void handler(req, res);
  });
  console.log(JSON.stringify({ port }));
});
process.on('SIGTERM', () => {
  server.close(() => process.exit(0));
  server.closeAllConnections();
});
