// Redaction of the OAuth client secret, as a property: random secrets drawn from all printable ASCII, in
// every encoding the major stacks produce (written out here from each stack's rules, independently of the
// probe's list), at any place in longer text and at any alignment inside longer base64. A seeded generator
// makes every run the same cases; a failure names its seed.
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { redactInPlace, redactText, secretForms, SECRET_REDACTED } from '@/lib/probe/redact';

/** mulberry32: a small seeded generator, enough to draw test cases. */
function generator(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const PRINTABLE = Array.from({ length: 0x7f - 0x20 }, (_, i) => String.fromCharCode(0x20 + i)).join('');

function draw(random: () => number, min: number, max: number, alphabet = PRINTABLE): string {
  const length = min + Math.floor(random() * (max - min + 1));
  let out = '';
  for (let i = 0; i < length; i++) out += alphabet[Math.floor(random() * alphabet.length)];
  return out;
}

const hex = (c: string) => `%${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`;
/** Escapes every printable ASCII character outside `keep` (and letters and digits); a space as `space`. */
const escapeExcept = (keep: RegExp, space: string) => (s: string) =>
  [...s].map((c) => (keep.test(c) ? c : c === ' ' ? space : hex(c))).join('');

/** Each stack's encoding of a printable-ASCII text, from that stack's documented rules. */
const STACKS: Record<string, (s: string) => string> = {
  raw: (s) => s,
  encodeURIComponent: (s) => encodeURIComponent(s),
  'WHATWG form (URLSearchParams)': (s) => new URLSearchParams({ v: s }).toString().slice(2),
  'RFC 3986 unreserved only': escapeExcept(/[A-Za-z0-9\-._~]/, '%20'),
  "Go's url.QueryEscape": escapeExcept(/[A-Za-z0-9\-._~]/, '+'),
  "Python's quote_plus": escapeExcept(/[A-Za-z0-9\-._~]/, '+'),
  "PHP's urlencode": escapeExcept(/[A-Za-z0-9\-._]/, '+'),
  'RFC 6749 Basic': escapeExcept(/[A-Za-z0-9]/, '+'),
  'lower-case hex': (s) => encodeURIComponent(s).replace(/%[0-9A-F]{2}/g, (m) => m.toLowerCase()),
};

/** Nothing of `form` is left between the markers (the marker itself may contain a secret's letters). */
function leaked(out: string, form: string): boolean {
  return out.split(SECRET_REDACTED).some((segment) => segment.includes(form));
}

const CASES = 400;

describe('the client secret is redacted in every form the major stacks produce', () => {
  it('in every encoding, anywhere in a longer text', () => {
    for (let seed = 1; seed <= CASES; seed++) {
      const random = generator(seed);
      const secret = draw(random, 1, 40);
      const forms = secretForms({ clientId: draw(random, 1, 12), clientSecret: secret });
      for (const [stack, encode] of Object.entries(STACKS)) {
        const form = encode(secret);
        const text = `${draw(random, 0, 30)}${form}${draw(random, 0, 30)}`;
        const out = redactText(text, forms);
        expect(out, `seed ${seed}, ${stack}: ${JSON.stringify(secret)}`).toContain(SECRET_REDACTED);
        expect(leaked(out, form), `seed ${seed}, ${stack}: ${JSON.stringify(out)}`).toBe(false);
      }
    }
  });

  it('in every encoding, inside longer base64 at any alignment (standard, unpadded, URL-safe)', () => {
    for (let seed = 1; seed <= CASES; seed++) {
      const random = generator(seed);
      const secret = draw(random, 8, 40);
      const clientId = draw(random, 1, 12);
      const forms = secretForms({ clientId, clientSecret: secret });
      for (const [stack, encode] of Object.entries(STACKS)) {
        const form = Buffer.from(encode(secret));
        for (let lead = 0; lead < 3; lead++) {
          // Any bytes before it (a Basic credential's `id:`, or anything), any after.
          const before = Buffer.from(draw(random, 0, 8) + 'x'.repeat(lead));
          const after = Buffer.from(draw(random, 0, 8));
          const bytes = Buffer.concat([before, form, after]);
          const p = before.length;
          // The base64 characters that depend on the secret's bytes alone.
          const first = Math.ceil((p * 8) / 6);
          const end = Math.floor(((p + form.length) * 8) / 6);
          for (const encoding of ['base64', 'base64url'] as const) {
            for (const pad of [true, false]) {
              let text = bytes.toString(encoding);
              if (!pad) text = text.replace(/=+$/, '');
              const determined = text.slice(first, end);
              const out = redactText(`Basic ${text} was refused`, forms);
              const label = `seed ${seed}, ${stack}, ${encoding}${pad ? '' : ' unpadded'}, offset ${p}`;
              expect(out, label).toContain(SECRET_REDACTED);
              // No six characters in a row that only the secret decides survive the redaction.
              const windows = Array.from({ length: Math.max(0, determined.length - 5) }, (_, i) =>
                determined.slice(i, i + 6),
              );
              expect(windows.length, label).toBeGreaterThan(2);
              expect(
                windows.filter((w) => leaked(out, w)),
                `${label}: ${out}`,
              ).toEqual([]);
            }
          }
        }
      }
    }
  });

  it("the issue's secret in client_secret_post's form body, and base64 that a form body percent-encodes", () => {
    const secret = 'S3CR3T-redteam!value~123';
    const forms = secretForms({ clientId: 'erawatch', clientSecret: secret });
    const body = new URLSearchParams({ grant_type: 'client_credentials', client_secret: secret }).toString();
    expect(body).toContain('S3CR3T-redteam%21value%7E123');
    expect(redactText(`invalid_client: ${body}`, forms)).toBe(
      `invalid_client: grant_type=client_credentials&client_secret=${SECRET_REDACTED}`,
    );
    const basic = Buffer.from(`erawatch:${secret}?>>`).toString('base64');
    expect(basic).toMatch(/[+/=]/);
    const out = redactText(`echo=${encodeURIComponent(basic)}`, forms);
    expect(out).toMatch(/^echo=\[redacted\][A-Za-z0-9+/=]{0,8}$/);
  });

  it('redacts keys and values of nested structures, and an empty secret changes nothing', () => {
    const secret = 'a b/c';
    const forms = secretForms({ clientId: 'id', clientSecret: secret });
    const value: Record<string, unknown> = { [`k-${secret}`]: [{ v: `x a+b%2Fc y` }], n: 1 };
    redactInPlace(value, forms);
    expect(value).toEqual({ [`k-${SECRET_REDACTED}`]: [{ v: `x ${SECRET_REDACTED} y` }], n: 1 });
    expect(secretForms({ clientId: 'id', clientSecret: '' })).toBeNull();
    expect(redactText('a b/c', null)).toBe('a b/c');
  });
});

// Python's own quote_plus and quote, where Python is installed: the forms above are what it sends.
const python = (() => {
  try {
    execFileSync('python3', ['-c', 'import urllib.parse'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

describe.skipIf(!python)("Python's urllib.parse encodings", () => {
  it('quote_plus and quote of random printable secrets are redacted', () => {
    const random = generator(7);
    const secrets = Array.from({ length: 200 }, () => draw(random, 1, 40));
    const out = execFileSync(
      'python3',
      [
        '-c',
        'import json,sys,urllib.parse as u\nfor s in json.load(sys.stdin): print(json.dumps([u.quote_plus(s), u.quote(s)]))',
      ],
      { input: JSON.stringify(secrets), encoding: 'utf8' },
    )
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as [string, string]);
    secrets.forEach((secret, i) => {
      const forms = secretForms({ clientId: 'erawatch', clientSecret: secret });
      for (const form of out[i] ?? []) {
        expect(leaked(redactText(`detail: ${form}.`, forms), form), JSON.stringify(secret)).toBe(false);
      }
    });
  });
});
