// The probe core talks to a node only through this interface, so a stdio transport can be added later
// without touching the classifier or the probe sequence.
import type { Outcome } from './types';

export type JsonRpcId = string | number;

export interface JsonRpcRequest {
  jsonrpc: '2.0';
  id: JsonRpcId;
  method: string;
  params: Record<string, unknown>;
}

export interface JsonRpcNotification {
  jsonrpc: '2.0';
  method: string;
  params?: Record<string, unknown>;
}

export interface SendOptions {
  /** Overall deadline for this exchange, from send to the last byte read. */
  timeoutMs: number;
  /** Cap on the response body, counted after decompression. */
  maxBodyBytes: number;
  /** Value of the MCP-Protocol-Version header; omitted when undefined (a legacy initialize sends none). */
  protocolVersionHeader?: string;
  /** Send Mcp-Method (modern requests only). */
  methodHeader?: boolean;
  sessionId?: string;
}

/** What one request/response exchange came to, before any era reasoning. */
export interface Exchange {
  outcome: Outcome;
  httpStatus: number | null;
  contentType: string | null;
  /** The JSON-RPC response that settled the exchange (ours, or the wrong-id one), when there was one. */
  message: Record<string, unknown> | null;
  sessionId: string | null;
  /** Value of the configured attribution header, when present. */
  servedBy: string | null;
  /** The address the request was sent to, when known. */
  address: string | null;
  elapsedMs: number;
  detail?: string;
  /**
   * The request's bytes reached the peer: written on an open connection (HTTP) or into the running
   * process's stdin (stdio). False when it was refused, never connected, or the channel was already gone.
   */
  delivered?: boolean;
  /** Body bytes read (after decompression), when the transport counts them. */
  bytes?: number;
  /** The WWW-Authenticate header of a 401/403 (several joined with ", "), when there was one. */
  challenge?: string | null;
  /** Over TLS: the peer certificate's expiry (epoch ms), when the handshake got as far as a certificate. */
  certificateExpiresAt?: number | null;
}

export interface ProbeTransport {
  request(message: JsonRpcRequest, options: SendOptions): Promise<Exchange>;
  notify(message: JsonRpcNotification, options: SendOptions): Promise<Exchange>;
  /** Ends a legacy session the server issued (HTTP: DELETE with Mcp-Session-Id). */
  endSession(sessionId: string, options: SendOptions): Promise<Exchange>;
  /**
   * stdio only: a request that timed out stays open on the pipe. Its answer, if one arrives within
   * `waitMs` (0: only one that has already arrived); null otherwise. HTTP aborts at the deadline.
   */
  lateAnswer?(id: JsonRpcId, waitMs: number): Promise<Exchange | null>;
}
