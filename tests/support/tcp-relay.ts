// A loopback TCP relay in front of a real server (PostgreSQL, here) that a test can cut off, as an outage, a
// paused VM or a hung server behind a load balancer looks to the client, and then restore.
import net from 'node:net';

export interface TcpRelay {
  /** The loopback port the client connects to instead of the server's. */
  port: number;
  /** Drops every connection and refuses new ones (closed at once): the server is gone. */
  cut(): void;
  /** Drops every connection and holds new ones open, never answered: the server hangs. */
  silence(): void;
  /** Relays new connections again; the connections held while silent are dropped. */
  restore(): void;
  close(): Promise<void>;
}

export async function startTcpRelay(target: { host: string; port: number }): Promise<TcpRelay> {
  const relayed = new Set<net.Socket>();
  const held = new Set<net.Socket>();
  let mode: 'open' | 'cut' | 'silent' = 'open';
  const track = (set: Set<net.Socket>, s: net.Socket) => {
    set.add(s);
    s.once('close', () => set.delete(s));
    s.on('error', () => undefined);
  };
  const server = net.createServer((client) => {
    if (mode === 'cut') {
      client.destroy();
      return;
    }
    if (mode === 'silent') {
      track(held, client);
      return;
    }
    const upstream = net.connect(target.port, target.host);
    track(relayed, client);
    track(relayed, upstream);
    client.pipe(upstream).pipe(client);
    client.once('close', () => upstream.destroy());
    upstream.once('close', () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const drop = (set: Set<net.Socket>) => {
    for (const s of set) s.destroy();
  };
  return {
    port: (server.address() as net.AddressInfo).port,
    cut() {
      mode = 'cut';
      drop(relayed);
    },
    silence() {
      mode = 'silent';
      drop(relayed);
    },
    restore() {
      mode = 'open';
      drop(held);
    },
    close: () =>
      new Promise<void>((resolve) => {
        drop(relayed);
        drop(held);
        server.close(() => resolve());
      }),
  };
}
