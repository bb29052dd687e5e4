// Raw HTTP/1.1 servers on loopback that write exact bytes (framing, late or hostile answers), and one POST
// dispatched with undici's newer handler callbacks, as the probe's transport dispatches it.
import net from 'node:net';
import type { Dispatcher } from 'undici';

export interface RawServer {
  port: number;
  /** Connections accepted so far. */
  connections: () => number;
  /** Each request head received, in order. */
  heads: string[];
  /** Connections open now. */
  open: () => number;
  close: () => Promise<void>;
}

/** A server that answers every request head with `answer(head, index)`, written in the given pieces. */
export async function rawServer(
  answer: (head: string, index: number, socket: net.Socket) => Array<string | Buffer> | null,
): Promise<RawServer> {
  let accepted = 0;
  const heads: string[] = [];
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    accepted++;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
    let pending = '';
    socket.on('data', (data) => {
      pending += data.toString('latin1');
      for (;;) {
        const end = pending.indexOf('\r\n\r\n');
        if (end < 0) return;
        const head = pending.slice(0, end);
        const length = Number(/content-length: (\d+)/i.exec(head)?.[1] ?? 0);
        if (pending.length < end + 4 + length) return;
        pending = pending.slice(end + 4 + length);
        heads.push(head);
        const pieces = answer(head, heads.length - 1, socket);
        if (pieces) for (const p of pieces) socket.write(p);
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;
  return {
    port,
    connections: () => accepted,
    heads,
    open: () => sockets.size,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

export interface Result {
  status: number | null;
  headers: Record<string, string | string[] | undefined>;
  body: string;
  error: (Error & { code?: string }) | null;
}

/** One POST through the agent with the newer handler callbacks, as the probe's transport dispatches it. */
export function post(
  agent: Dispatcher,
  port: number,
  body = '{"id":1}',
  stopAfter?: number,
  /** As the transport marks every request but initialize: safe to send again on a fresh socket. */
  idempotent = true,
): Promise<Result> {
  return new Promise((resolve) => {
    const result: Result = { status: null, headers: {}, body: '', error: null };
    let controller: Dispatcher.DispatchController | null = null;
    agent.dispatch(
      {
        origin: `http://127.0.0.1:${port}`,
        path: '/mcp',
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body,
        idempotent,
      },
      {
        onRequestStart(c) {
          controller = c;
        },
        onResponseStart(_c, status, headers) {
          result.status = status;
          result.headers = headers;
        },
        onResponseData(_c, chunk) {
          result.body += chunk.toString('utf8');
          if (stopAfter !== undefined && result.body.length >= stopAfter) {
            controller?.abort(new Error('enough'));
          }
        },
        onResponseEnd() {
          resolve(result);
        },
        onResponseError(_c, err) {
          result.error = err as Error & { code?: string };
          resolve(result);
        },
      },
    );
  });
}
