// A real OAuth 2.1 authorization server (oidc-provider 9) for tests and the demo: client credentials with
// resource indicators, JWT access tokens signed with a key made at start-up, published in its JWKS.
// node oauth-as.mjs --port 0 [--host 127.0.0.1] --client-id ID --client-secret S [--scope mcp:read] [--ttl-s 300]
// Prints one JSON line {"port":N} on stdout once listening; the issuer is http://HOST:PORT.
import { createServer } from 'node:http';
import { parseArgs } from 'node:util';
import { exportJWK, generateKeyPair } from 'jose';
import Provider from 'oidc-provider';

const { values } = parseArgs({
  options: {
    port: { type: 'string', default: '0' },
    host: { type: 'string', default: '127.0.0.1' },
    'client-id': { type: 'string', default: 'erawatch' },
    'client-secret': { type: 'string', default: '' },
    scope: { type: 'string', default: 'mcp:read' },
    'ttl-s': { type: 'string', default: '300' },
  },
});
if (!values['client-secret']) {
  console.error('--client-secret is required');
  process.exit(2);
}
const ttl = Number(values['ttl-s']);

// Token requests the server answered, so tests can wait for one instead of sleeping.
const issued = [];
const { privateKey } = await generateKeyPair('RS256', { extractable: true });
const jwk = { ...(await exportJWK(privateKey)), kid: 'peer-1', alg: 'RS256', use: 'sig' };

const server = createServer();
server.listen(Number(values.port), values.host, () => {
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  const host = values.host.includes(':') ? `[${values.host}]` : values.host;
  const issuer = `http://${host}:${port}`;
  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: values['client-id'],
        client_secret: values['client-secret'],
        grant_types: ['client_credentials'],
        redirect_uris: [],
        response_types: [],
        scope: values.scope,
      },
    ],
    scopes: values.scope.split(' '),
    jwks: { keys: [jwk] },
    features: {
      devInteractions: { enabled: false },
      clientCredentials: { enabled: true },
      resourceIndicators: {
        enabled: true,
        defaultResource: () => undefined,
        useGrantedResource: () => true,
        getResourceServerInfo: (_ctx, resource) => ({
          scope: values.scope,
          audience: resource,
          accessTokenTTL: ttl,
          accessTokenFormat: 'jwt',
          jwt: { sign: { alg: 'RS256' } },
        }),
      },
    },
  });
  provider.on('grant.success', (ctx) =>
    issued.push({ at: Date.now(), client: ctx.oidc.client?.clientId ?? null }),
  );
  provider.on('grant.error', (ctx, err) =>
    issued.push({
      at: Date.now(),
      client: ctx.oidc.client?.clientId ?? null,
      error: err.error ?? String(err),
    }),
  );
  const callback = provider.callback();
  server.on('request', (req, res) => {
    if (req.method === 'GET' && req.url === '/__erawatch/issued') {
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ issued }));
      return;
    }
    callback(req, res);
  });
  console.log(JSON.stringify({ port }));
});
process.on('SIGTERM', () => {
  server.close(() => process.exit(0));
  server.closeAllConnections();
});
