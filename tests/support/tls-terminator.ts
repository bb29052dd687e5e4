// A TLS terminator in front of a plain-HTTP server (a real SDK peer, here), as a load balancer or ingress
// puts one: it decrypts and relays the bytes as they are. It counts connections and resumed handshakes.
import net from 'node:net';
import tls from 'node:tls';

export interface TlsTerminator {
  port: number;
  /** TLS connections accepted, and how many of them resumed a session. */
  stats(): { connections: number; resumed: number };
  close(): Promise<void>;
}

export async function startTlsTerminator(
  target: { host: string; port: number },
  credentials: { cert: string; key: string },
): Promise<TlsTerminator> {
  const open = new Set<net.Socket>();
  let connections = 0;
  let resumed = 0;
  const server = tls.createServer({ cert: credentials.cert, key: credentials.key }, (client) => {
    connections += 1;
    if (client.isSessionReused()) resumed += 1;
    const upstream = net.connect(target.port, target.host);
    for (const s of [client, upstream]) {
      open.add(s);
      s.once('close', () => open.delete(s));
      s.on('error', () => undefined);
    }
    client.pipe(upstream).pipe(client);
    client.once('close', () => upstream.destroy());
    upstream.once('close', () => client.destroy());
  });
  server.on('tlsClientError', () => undefined);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  return {
    port: typeof address === 'object' && address ? address.port : 0,
    stats: () => ({ connections, resumed }),
    close: async () => {
      for (const s of open) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
