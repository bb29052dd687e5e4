// Plain MCP POSTs for the demo and proxy tests: what a client sends first in each era, and the one
// JSON-RPC message that came back (JSON or SSE), with every wait bounded.

export interface RpcExchange {
  status: number;
  headers: Headers;
  /** The JSON-RPC message answering our id, or null when the body held none. */
  message: {
    id?: unknown;
    result?: Record<string, unknown>;
    error?: { code: number; message: string };
  } | null;
}

const ACCEPT = 'application/json, text/event-stream';

export function discoverBody(id: number | string = 1): object {
  return {
    jsonrpc: '2.0',
    id,
    method: 'server/discover',
    params: {
      _meta: {
        'io.modelcontextprotocol/protocolVersion': '2026-07-28',
        'io.modelcontextprotocol/clientCapabilities': {},
        'io.modelcontextprotocol/clientInfo': { name: 'erawatch-test', version: '0' },
      },
    },
  };
}

export async function postDiscover(url: string, id: number | string = 1): Promise<RpcExchange> {
  return postRpc(url, discoverBody(id), {
    'mcp-protocol-version': '2026-07-28',
    'mcp-method': 'server/discover',
  });
}

export async function postInitialize(
  url: string,
  id: number | string = 1,
  protocolVersion = '2025-11-25',
): Promise<RpcExchange> {
  const body = {
    jsonrpc: '2.0',
    id,
    method: 'initialize',
    params: { protocolVersion, capabilities: {}, clientInfo: { name: 'erawatch-test', version: '0' } },
  };
  return postRpc(url, body, {});
}

export async function postRpc(
  url: string,
  body: object,
  headers: Record<string, string>,
): Promise<RpcExchange> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: ACCEPT, ...headers },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(10_000),
  });
  const text = await res.text();
  return {
    status: res.status,
    headers: res.headers,
    message: parseMessage(text, res.headers.get('content-type')),
  };
}

function parseMessage(text: string, contentType: string | null): RpcExchange['message'] {
  const candidates: string[] = [];
  if (contentType?.startsWith('text/event-stream')) {
    for (const line of text.split('\n')) if (line.startsWith('data:')) candidates.push(line.slice(5).trim());
  } else {
    candidates.push(text);
  }
  for (const candidate of candidates) {
    if (!candidate) continue;
    try {
      const parsed = JSON.parse(candidate) as unknown;
      if (parsed && typeof parsed === 'object' && 'jsonrpc' in parsed)
        return parsed as RpcExchange['message'];
    } catch {
      // not JSON-RPC: keep looking
    }
  }
  return null;
}

/** serverInfo from a discover result's _meta or an initialize result, when present. */
export function serverInfoOf(exchange: RpcExchange): { name: string; version: string } | null {
  const result = exchange.message?.result;
  if (!result) return null;
  const meta = result._meta as Record<string, unknown> | undefined;
  const info = (meta?.['io.modelcontextprotocol/serverInfo'] ?? result.serverInfo) as
    { name: string; version: string } | undefined;
  return info ?? null;
}
