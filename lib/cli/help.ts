// One shape for every `erawatch <command> --help`: usage lines, what the command does, its flags, the
// environment it reads and what each exit code means, so a script can act on the status alone.

export interface CommandHelp {
  usage: string[];
  /** What the command does, in a few sentences. */
  about: string;
  flags: Array<[flag: string, meaning: string]>;
  env?: Array<[name: string, meaning: string]>;
  exitCodes: Array<[code: number, meaning: string]>;
}

function table(rows: Array<[string, string]>): string {
  const width = Math.max(...rows.map(([k]) => k.length)) + 2;
  return rows.map(([k, v]) => `  ${k.padEnd(width)}${v}`).join('\n');
}

export function formatHelp(h: CommandHelp): string {
  const parts = [
    h.usage.map((u, i) => `${i === 0 ? 'usage: ' : '       '}${u}`).join('\n'),
    h.about,
    `flags:\n${table(h.flags)}`,
  ];
  if (h.env && h.env.length > 0) parts.push(`environment:\n${table(h.env)}`);
  parts.push(`exit codes:\n${table(h.exitCodes.map(([c, m]) => [String(c), m]))}`);
  return `${parts.join('\n\n')}\n`;
}

/** Bad usage found while reading a command's arguments: its message goes out with the usage, exit code 2. */
export class UsageError extends Error {}

/** The usage lines alone, for the message after a usage error. */
export function usageLines(h: CommandHelp): string {
  return `${h.usage.map((u, i) => `${i === 0 ? 'usage: ' : '       '}${u}`).join('\n')}\n`;
}

export const HELP_FLAG: [string, string] = ['-h, --help', 'print this help and exit 0'];
export const USAGE_EXIT: [number, string] = [
  2,
  'bad usage (unknown flag, missing argument); nothing was done',
];
