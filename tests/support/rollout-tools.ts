// The requests Argo Rollouts' web metric provider and Flagger's webhooks send, byte for byte in shape, and
// how each tool reads the answer (from argo-rollouts metricproviders/webmetric and flagger pkg/controller).

export const BASE = 'http://127.0.0.1:3999';

/**
 * Argo's `web` provider: a GET (its default method) with the template's `headers` and Go's client defaults,
 * no body. The AnalysisTemplate in docs/rollout-gates.md puts the read token in an Authorization header.
 */
export function argoRequest(url: string, token: string | null): Request {
  const headers: Record<string, string> = {
    host: '127.0.0.1:3999',
    'user-agent': 'Go-http-client/1.1',
    'accept-encoding': 'gzip',
  };
  if (token !== null) headers.authorization = `Bearer ${token}`;
  return new Request(`${BASE}${url}`, { method: 'GET', headers });
}

export type ArgoPhase = 'Successful' | 'Failed' | 'Inconclusive' | 'Error';

/**
 * How Argo turns the answer into a measurement: any non-2xx is an Error; otherwise the jsonPath value is
 * judged by successCondition, then failureCondition when one is set (neither matching is Inconclusive);
 * a missing jsonPath is an Error.
 */
export async function argoMeasure(
  res: Response,
  field: string,
  success: (v: unknown) => boolean,
  failure?: (v: unknown) => boolean,
): Promise<{ phase: ArgoPhase; value: unknown }> {
  const text = await res.text();
  if (res.status < 200 || res.status >= 300) return { phase: 'Error', value: text };
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return { phase: 'Successful', value: text };
  }
  const value = body && typeof body === 'object' ? (body as Record<string, unknown>)[field] : undefined;
  if (value === undefined) return { phase: 'Error', value: body };
  if (success(value)) return { phase: 'Successful', value };
  if (!failure || failure(value)) return { phase: 'Failed', value };
  return { phase: 'Inconclusive', value };
}

export interface FlaggerMetadata {
  balancer?: string;
  revision?: string;
  token?: string;
  fresh?: string;
  [key: string]: string | undefined;
}

/** Flagger's CanaryWebhookPayload as Go marshals it: name, namespace, phase, checksum, metadata. */
export function flaggerRequest(
  url: string,
  metadata: FlaggerMetadata | null,
  phase = 'Progressing',
): Request {
  const payload: Record<string, unknown> = {
    name: 'podinfo',
    namespace: 'test',
    phase,
    checksum: '6d5c9b8f7',
  };
  if (metadata !== null) payload.metadata = metadata;
  return new Request(`${BASE}${url}`, {
    method: 'POST',
    headers: {
      host: '127.0.0.1:3999',
      'user-agent': 'Go-http-client/1.1',
      'content-type': 'application/json',
      'accept-encoding': 'gzip',
    },
    body: JSON.stringify(payload),
  });
}

/** Flagger counts a webhook as passed when it answers 202 or lower, and as failed otherwise. */
export function flaggerPassed(status: number): boolean {
  return status >= 200 && status <= 202;
}
