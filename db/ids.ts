import { randomBytes } from 'node:crypto';

const ALPHABET = 'abcdefghijklmnopqrstuvwxyz234567';

/** A short random id with a type prefix (`bal_`, `nod_`, `evt_`, `win_`): 60 bits, URL-safe. */
export function newId(prefix: string): string {
  const bytes = randomBytes(12);
  let out = '';
  for (const b of bytes) out += ALPHABET[b & 31] ?? 'a';
  return `${prefix}_${out}`;
}
