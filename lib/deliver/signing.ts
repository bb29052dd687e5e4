// Standard Webhooks signatures: `v1,` + base64 HMAC-SHA256 over `id.timestamp.body`, keyed by the base64
// part of a `whsec_` secret. During a rotation both secrets sign and the header carries both signatures.
import { createHmac, randomBytes } from 'node:crypto';

export const SECRET_PREFIX = 'whsec_';

/** The secrets to sign with at `now`: the current one, and the previous one while the overlap lasts. */
export function signingSecrets(
  endpoint: { secret: string; previousSecret: string | null; previousSecretUntil: number | null },
  now: number,
): string[] {
  const out = [endpoint.secret];
  if (endpoint.previousSecret && (endpoint.previousSecretUntil ?? 0) > now) out.push(endpoint.previousSecret);
  return out;
}

export function generateWebhookSecret(): string {
  return `${SECRET_PREFIX}${randomBytes(32).toString('base64')}`;
}

function secretKey(secret: string): Buffer {
  const raw = secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret;
  return Buffer.from(raw, 'base64');
}

export function signPayload(secret: string, msgId: string, timestampS: number, body: string): string {
  const mac = createHmac('sha256', secretKey(secret))
    .update(`${msgId}.${timestampS}.${body}`)
    .digest('base64');
  return `v1,${mac}`;
}

/** The three Standard Webhooks headers for one attempt, signed with every given secret. */
export function signedHeaders(
  secrets: readonly string[],
  msgId: string,
  timestampS: number,
  body: string,
): Record<string, string> {
  return {
    'webhook-id': msgId,
    'webhook-timestamp': String(timestampS),
    'webhook-signature': secrets.map((s) => signPayload(s, msgId, timestampS, body)).join(' '),
  };
}
