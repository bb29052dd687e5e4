// Parses a WWW-Authenticate header (RFC 9110 §11.6.1): challenges of `scheme token68` or `scheme a=b, c="d"`,
// several per header, comma separated. Pure; a header we cannot read yields no challenge, never a throw.
import type { AuthChallengeEvidence } from './types';

export interface ParsedChallenge {
  /** Lower-cased, as schemes compare case-insensitively. */
  scheme: string;
  /** Parameter names lower-cased; values unquoted. */
  params: Record<string, string>;
  token68: string | null;
}

const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+/;
const TOKEN68 = /^[A-Za-z0-9\-._~+/]+=*/;
const HEADER_LIMIT = 8_192;

class Cursor {
  i = 0;
  constructor(readonly s: string) {}
  skipSpace(): void {
    while (this.i < this.s.length && (this.s[this.i] === ' ' || this.s[this.i] === '\t')) this.i++;
  }
  skipSpaceAndCommas(): void {
    while (this.i < this.s.length && /[ \t,]/.test(this.s[this.i] ?? '')) this.i++;
  }
  peek(): string | undefined {
    return this.s[this.i];
  }
  match(re: RegExp): string | null {
    const m = re.exec(this.s.slice(this.i));
    if (!m) return null;
    this.i += m[0].length;
    return m[0];
  }
  done(): boolean {
    return this.i >= this.s.length;
  }
  /** A quoted-string starting at the cursor, with backslash escapes undone. */
  quoted(): string | null {
    if (this.peek() !== '"') return null;
    let out = '';
    for (let j = this.i + 1; j < this.s.length; j++) {
      const c = this.s[j];
      if (c === '\\' && j + 1 < this.s.length) {
        out += this.s[j + 1];
        j++;
      } else if (c === '"') {
        this.i = j + 1;
        return out;
      } else out += c;
    }
    return null;
  }
}

/** True when the cursor stands at `name = …` (an auth-param), not at the next challenge's scheme. */
function atParam(c: Cursor): boolean {
  const rest = c.s.slice(c.i);
  return /^[!#$%&'*+.^_`|~0-9A-Za-z-]+[ \t]*=/.test(rest) && !/^[A-Za-z0-9\-._~+/]+=*[ \t]*(,|$)/.test(rest);
}

export function parseWwwAuthenticate(header: string): ParsedChallenge[] {
  const c = new Cursor(header.slice(0, HEADER_LIMIT));
  const out: ParsedChallenge[] = [];
  for (let guard = 0; guard < 64; guard++) {
    c.skipSpaceAndCommas();
    if (c.done()) break;
    const scheme = c.match(TOKEN);
    if (!scheme) break;
    const challenge: ParsedChallenge = { scheme: scheme.toLowerCase(), params: {}, token68: null };
    out.push(challenge);
    c.skipSpace();
    if (!atParam(c)) {
      const t68 = c.match(TOKEN68);
      if (t68) challenge.token68 = t68;
      continue;
    }
    for (let p = 0; p < 64 && atParam(c); p++) {
      const name = c.match(TOKEN) ?? '';
      c.skipSpace();
      c.match(/^=/);
      c.skipSpace();
      const value = c.quoted() ?? c.match(TOKEN) ?? '';
      challenge.params[name.toLowerCase()] = value;
      c.skipSpace();
      if (c.peek() !== ',') break;
      c.i++;
      c.skipSpaceAndCommas();
    }
  }
  return out;
}

/** The challenge the evidence keeps: the Bearer one when offered, else the first. Null for no challenge. */
export function challengeEvidence(header: string | null): AuthChallengeEvidence | null {
  if (header === null || header.trim() === '') return null;
  const all = parseWwwAuthenticate(header);
  const chosen = all.find((ch) => ch.scheme === 'bearer') ?? all[0];
  if (!chosen) return null;
  const param = (name: string): string | null => chosen.params[name] ?? null;
  return {
    scheme: chosen.scheme,
    resourceMetadata: param('resource_metadata'),
    scope: param('scope'),
    error: param('error'),
    errorDescription: param('error_description'),
    realm: param('realm'),
    otherSchemes: all.filter((ch) => ch !== chosen).map((ch) => ch.scheme),
  };
}
