// The OAuth client secret never leaves the probe in what it reports. An authorization server (or a resource
// server) may echo what it was sent: the secret as given, percent- or form-encoded the way any client stack
// encodes it, or inside the base64 of a Basic credential. Every string of a verdict is cleaned of all of
// these before the verdict is returned, so nothing stored, served or printed carries the secret.
//
// Percent-encodings differ in which characters they leave alone (encodeURIComponent keeps `!~*'()`, WHATWG
// form encoding keeps `*-._`, RFC 3986 `-._~`, Go's QueryEscape and Python's quote_plus `-._~`, PHP's
// urlencode `-._`, RFC 6749's Basic encoding only letters and digits) and in how a space travels (`+` or
// `%20`), and a server may re-encode with lower-case hex. Rather than list every stack, the secret is
// matched by one pattern in which each character may appear as itself or percent-encoded (either case), a
// space also as `+`: every such encoding, and any mix of them, is one match. Base64 cannot be matched that
// way, so the secret's base64 is listed for each of those encodings that a Basic credential may carry.
import type { OAuthClientCredentials } from './types';

export const SECRET_REDACTED = '[redacted]';

/** Letters and digits: no encoder escapes them. */
const ALNUM = /^[A-Za-z0-9]$/;

function pct(byte: number): string {
  return `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
}

/**
 * Percent-encodes `text` as UTF-8, leaving letters, digits and the characters of `keep` as they are; with
 * `plus`, a space becomes `+`.
 */
function percentEncode(text: string, keep: string, plus: boolean): string {
  let out = '';
  for (const ch of text) {
    if (ALNUM.test(ch) || keep.includes(ch)) out += ch;
    else if (ch === ' ' && plus) out += '+';
    else for (const b of Buffer.from(ch, 'utf8')) out += pct(b);
  }
  return out;
}

/**
 * The encodings the major stacks send a secret in: in a form body, in a query, and (RFC 6749 §2.3.1) inside
 * a Basic credential. A secret may also be sent with no encoding at all.
 */
export const ENCODERS: ReadonlyArray<(text: string) => string> = [
  (t) => t,
  (t) => percentEncode(t, "-_.!~*'()", false), // encodeURIComponent
  (t) => percentEncode(t, '*-._', true), // WHATWG application/x-www-form-urlencoded, Java's URLEncoder
  (t) => percentEncode(t, '-._~', false), // RFC 3986 unreserved only, PHP's rawurlencode
  (t) => percentEncode(t, '-._~', true), // Go's url.QueryEscape, Python's urllib.parse.quote_plus
  (t) => percentEncode(t, '-._~/', false), // Python's urllib.parse.quote
  (t) => percentEncode(t, '-._', true), // PHP's urlencode
  (t) => percentEncode(t, '', true), // RFC 6749 §2.3.1 as oauth4webapi sends Basic
];

function escapeRegExp(text: string): string {
  return text.replace(/[\\^$.*+?()[\]{}|/-]/g, '\\$&');
}

/** `%xx` matching either case of the hex digits. */
function pctPattern(byte: number): string {
  const hex = byte.toString(16).padStart(2, '0');
  return `%${[...hex].map((d) => (/[a-f]/.test(d) ? `[${d}${d.toUpperCase()}]` : d)).join('')}`;
}

/** The secret with every character as itself, percent-encoded in either case, or (a space) `+`. */
function percentPattern(secret: string): string {
  let out = '';
  for (const ch of secret) {
    const bytes = [...Buffer.from(ch, 'utf8')];
    const options = new Set<string>([escapeRegExp(ch), bytes.map(pctPattern).join('')]);
    // A header value is read as latin1: the character's UTF-8 bytes echoed in a header arrive that way.
    if (bytes.length > 1) options.add(escapeRegExp(Buffer.from(ch, 'utf8').toString('latin1')));
    if (ch === ' ') options.add('\\+');
    out += `(?:${[...options].join('|')})`;
  }
  return out;
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

export interface SecretMatcher {
  /** The secret in any percent-encoding (or none); global. */
  readonly percent: RegExp;
  /** The secret's base64 forms, longest first. */
  readonly base64: readonly string[];
}

/** Every form of the secret to look for; null when there is no secret. */
export function secretForms(
  creds: Pick<OAuthClientCredentials, 'clientId' | 'clientSecret'>,
): SecretMatcher | null {
  const secret = creds.clientSecret;
  if (secret === '') return null;
  const lower = (e: string) => e.replace(/%[0-9A-F]{2}/g, (m) => m.toLowerCase());
  const base64 = new Set<string>();
  const encoded = (e: string) => {
    for (const f of base64Forms(Buffer.from(e))) if (f.length >= 4) base64.add(f);
    for (const f of base64Cores(Buffer.from(e))) base64.add(f);
  };
  encoded(Buffer.from(secret, 'utf8').toString('latin1'));
  for (const encode of ENCODERS) {
    for (const e of new Set([encode(secret), lower(encode(secret))])) {
      // A Basic credential: the id encoded the same way, or as given.
      for (const id of new Set([encode(creds.clientId), creds.clientId]))
        for (const f of base64Forms(Buffer.from(`${id}:${e}`))) base64.add(f);
      encoded(e);
    }
  }
  return {
    percent: new RegExp(percentPattern(secret), 'g'),
    // Longest first: where two forms overlap, the longer one (the whole credential) is the one replaced.
    base64: [...base64].filter((f) => f !== '').sort((a, b) => b.length - a.length),
  };
}

function replaceAll(text: string, forms: readonly string[]): string {
  let out = text;
  for (const form of forms) if (out.includes(form)) out = out.split(form).join(SECRET_REDACTED);
  return out;
}

/** base64's `+`, `/` and `=` as a form body or a query percent-encodes them. */
const BASE64_ESCAPES = /%(?:2[bBfF]|3[dD])/g;

export function redactText(text: string, forms: SecretMatcher | null): string {
  if (!forms) return text;
  let out = text.replace(forms.percent, SECRET_REDACTED);
  out = replaceAll(out, forms.base64);
  // base64 that arrived percent-encoded: its escapes are decoded where that reveals the secret.
  BASE64_ESCAPES.lastIndex = 0;
  if (BASE64_ESCAPES.test(out)) {
    const decoded = out.replace(BASE64_ESCAPES, (m) => decodeURIComponent(m));
    const cleaned = replaceAll(decoded, forms.base64);
    if (cleaned !== decoded) out = cleaned;
  }
  return out;
}

/**
 * Replaces every form of the secret in every string (and object key) reachable from `value`, in place.
 * Iterative: server-sent values (an error's `data`) decide how deep the structure goes.
 */
export function redactInPlace(value: unknown, forms: SecretMatcher | null): void {
  if (!forms) return;
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
