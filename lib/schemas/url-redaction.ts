// URLs as a person is shown them: a query value (`?apikey=…`) or the password of `user:password@` may be a
// credential, so their values are replaced; the names stay, so the URL still says what it carries. Client-safe.

export const URL_REDACTED = '[redacted]';
/** What an audit entry shows for a hidden value that a change replaced (lib/schemas/audit). */
export const URL_CHANGED = '[changed]';

const AUTHORITY = /^([A-Za-z][A-Za-z0-9+.-]*:\/\/)([^/?#@]*)@/;

interface UrlParts {
  /** Up to and including `user:` when the URL has a userinfo password, else empty. */
  head: string;
  password: string | null;
  /** After the userinfo, up to and including `?` (or to the fragment without a query). */
  rest: string;
  /** Each query pair: its name and value (null without `=`). */
  pairs: Array<{ name: string; value: string | null }>;
  fragment: string;
}

function partsOf(url: string): UrlParts {
  let head = '';
  let password: string | null = null;
  let rest = url;
  const auth = AUTHORITY.exec(url);
  const userinfo = auth?.[2] ?? '';
  if (auth && userinfo.includes(':')) {
    const colon = userinfo.indexOf(':');
    head = `${auth[1] ?? ''}${userinfo.slice(0, colon)}:`;
    password = userinfo.slice(colon + 1);
    rest = url.slice(auth[0].length);
  }
  const hash = rest.indexOf('#');
  const fragment = hash < 0 ? '' : rest.slice(hash);
  const beforeHash = hash < 0 ? rest : rest.slice(0, hash);
  const q = beforeHash.indexOf('?');
  if (q < 0) return { head, password, rest: beforeHash, pairs: [], fragment };
  const pairs = beforeHash
    .slice(q + 1)
    .split('&')
    .map((part) => {
      const eq = part.indexOf('=');
      return eq < 0 ? { name: part, value: null } : { name: part.slice(0, eq), value: part.slice(eq + 1) };
    });
  return { head, password, rest: beforeHash.slice(0, q + 1), pairs, fragment };
}

function join(p: UrlParts, password: string | null, query: string[]): string {
  const userinfo = p.password === null ? '' : `${p.head}${password ?? ''}@`;
  return `${userinfo}${p.rest}${query.join('&')}${p.fragment}`;
}

/** Every query value, by name, in order of appearance. */
function valuesByName(pairs: UrlParts['pairs']): Map<string, Array<string | null>> {
  const out = new Map<string, Array<string | null>>();
  for (const p of pairs) out.set(p.name, [...(out.get(p.name) ?? []), p.value]);
  return out;
}

/**
 * `url` with every query value and a userinfo password replaced by `[redacted]`, names kept. Given the URL
 * `before` a change, a value that differs from the one it replaced (same name, same place among its
 * namesakes) reads `[changed]` instead: what an audit entry records, never the value.
 */
export function redactUrl(url: string, before: string | null = null): string {
  const parts = partsOf(url);
  const prior = before === null ? null : partsOf(before);
  const priorValues = prior ? valuesByName(prior.pairs) : null;
  const seen = new Map<string, number>();
  const query = parts.pairs.map(({ name, value }) => {
    if (value === null) return name;
    const n = seen.get(name) ?? 0;
    seen.set(name, n + 1);
    if (value === '') return `${name}=`;
    const old = priorValues?.get(name)?.[n];
    const changed = old !== undefined && old !== null && old !== value;
    return `${name}=${changed ? URL_CHANGED : URL_REDACTED}`;
  });
  let password: string | null = null;
  if (parts.password !== null) {
    const changed = prior !== null && prior.password !== null && prior.password !== parts.password;
    password = parts.password === '' ? '' : changed ? URL_CHANGED : URL_REDACTED;
  }
  return join(parts, password, query);
}

/** Whether `url` carries a value that redactUrl hid (sent back as shown). */
export function hasRedactedValue(url: string): boolean {
  const parts = partsOf(url);
  return parts.password === URL_REDACTED || parts.pairs.some((p) => p.value === URL_REDACTED);
}

/**
 * A URL sent back as it was shown: each `[redacted]` value takes the stored URL's value of the same name and
 * place, so a read-modify-write keeps the credential. Only for the same scheme, host and path: a credential is
 * never carried to another address. Returns null when a `[redacted]` value has nothing to take.
 */
export function restoreRedactedUrl(sent: string, stored: string): string | null {
  if (!hasRedactedValue(sent)) return sent;
  const s = partsOf(sent);
  const o = partsOf(stored);
  const where = (p: UrlParts) => `${p.head}${p.password === null ? '' : '@'}${p.rest}`;
  if (where(s) !== where(o)) return null;
  const storedValues = valuesByName(o.pairs);
  const seen = new Map<string, number>();
  let missing = false;
  const query = s.pairs.map(({ name, value }) => {
    if (value === null) return name;
    const n = seen.get(name) ?? 0;
    seen.set(name, n + 1);
    if (value !== URL_REDACTED) return `${name}=${value}`;
    const kept = storedValues.get(name)?.[n];
    if (kept === undefined || kept === null) missing = true;
    return `${name}=${kept ?? ''}`;
  });
  let password = s.password;
  if (password === URL_REDACTED) {
    if (o.password === null) missing = true;
    password = o.password;
  }
  if (missing) return null;
  return join(s, password, query);
}
