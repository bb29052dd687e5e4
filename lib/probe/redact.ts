// The OAuth client secret never leaves the probe in what it reports. An authorization server (or a resource
// server) may echo what it was sent: the secret as given, percent- or form-encoded as a token request
// carries it, or inside the base64 of a Basic credential. Every string of a verdict is cleaned of all of
// these before the verdict is returned, so nothing stored, served or printed carries the secret.
import type { OAuthClientCredentials } from './types';

export const SECRET_REDACTED = '[redacted]';

/** application/x-www-form-urlencoded as RFC 6749 §2.3.1 asks for Basic (and as oauth4webapi sends it). */
function formEncode(text: string): string {
  return encodeURIComponent(text)
    .replace(/[-_.!~*'()]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)
    .replace(/%20/g, '+');
}

function base64Forms(bytes: Buffer): string[] {
  const std = bytes.toString('base64');
  const url = bytes.toString('base64url');
  return [std, std.replace(/=+$/, ''), url];
}

/**
 * The base64 characters that depend on `bytes` alone, at each of the three alignments the bytes can have
 * inside a longer base64 text: they appear whatever surrounds the secret in the encoded credential.
 */
function base64Cores(bytes: Buffer): string[] {
  const out: string[] = [];
  for (let lead = 0; lead < 3; lead += 1) {
    const encoded = Buffer.concat([Buffer.alloc(lead), bytes]).toString('base64');
    const first = Math.ceil((lead * 8) / 6);
    const end = Math.floor(((lead + bytes.length) * 8) / 6);
    const core = encoded.slice(first, end);
    // A short core would also match text that has nothing to do with the secret.
    if (core.length >= 8) out.push(core, core.replace(/\+/g, '-').replace(/\//g, '_'));
  }
  return out;
}

/** Every form of the secret to look for, longest first. */
export function secretForms(creds: Pick<OAuthClientCredentials, 'clientId' | 'clientSecret'>): string[] {
  const secret = creds.clientSecret;
  if (secret === '') return [];
  // A header value is read as latin1: the secret's UTF-8 bytes echoed in a header arrive that way.
  const plain = new Set([
    secret,
    Buffer.from(secret, 'utf8').toString('latin1'),
    encodeURIComponent(secret),
    formEncode(secret),
  ]);
  // Percent-escapes with lower-case hex are the same bytes to a server that decodes and re-encodes them.
  for (const p of [...plain]) plain.add(p.replace(/%[0-9A-F]{2}/g, (m) => m.toLowerCase()));
  const forms = new Set<string>(plain);
  for (const p of plain) {
    for (const id of new Set([creds.clientId, formEncode(creds.clientId)])) {
      for (const f of base64Forms(Buffer.from(`${id}:${p}`))) forms.add(f);
    }
    for (const f of base64Forms(Buffer.from(p))) if (f.length >= 4) forms.add(f);
    for (const f of base64Cores(Buffer.from(p))) forms.add(f);
  }
  return [...forms].filter((f) => f !== '').sort((a, b) => b.length - a.length);
}

export function redactText(text: string, forms: readonly string[]): string {
  let out = text;
  for (const form of forms) if (out.includes(form)) out = out.split(form).join(SECRET_REDACTED);
  return out;
}

/**
 * Replaces every form of the secret in every string (and object key) reachable from `value`, in place.
 * Iterative: server-sent values (an error's `data`) decide how deep the structure goes.
 */
export function redactInPlace(value: unknown, forms: readonly string[]): void {
  if (forms.length === 0) return;
  const seen = new Set<object>();
  const work: unknown[] = [value];
  while (work.length > 0) {
    const item = work.pop();
    if (typeof item !== 'object' || item === null || seen.has(item)) continue;
    seen.add(item);
    if (Array.isArray(item)) {
      for (let i = 0; i < item.length; i += 1) {
        const v: unknown = item[i];
        if (typeof v === 'string') item[i] = redactText(v, forms);
        else work.push(v);
      }
      continue;
    }
    const record = item as Record<string, unknown>;
    for (const key of Object.keys(record)) {
      const v = record[key];
      const cleanKey = redactText(key, forms);
      if (cleanKey !== key) delete record[key];
      if (typeof v === 'string') record[cleanKey] = redactText(v, forms);
      else {
        if (cleanKey !== key) record[cleanKey] = v;
        work.push(v);
      }
    }
  }
}
