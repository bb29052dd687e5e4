// Text that a server chose (an error message, its name and version, tool names, its log) is printed to a
// terminal only with its control characters made visible: C0 (newlines and ESC included), DEL, C1, the
// bidirectional overrides and isolates, and the line and paragraph separators. A hostile server can then
// neither move the cursor, rewrite an earlier line, set the clipboard (OSC 52) nor forge a report line.
// `--json` output is JSON-escaped already and stays as it is.

// eslint-disable-next-line no-control-regex
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

function visible(ch: string): string {
  const code = ch.charCodeAt(0);
  return code <= 0xff
    ? `\\x${code.toString(16).padStart(2, '0')}`
    : `\\u${code.toString(16).padStart(4, '0')}`;
}

/** `text` with every control character shown as an escape (`\x1b`, `\x0a`, `\u202e`). */
export function terminalSafe(text: string): string {
  return text.replace(UNSAFE, visible);
}

/** Joins report lines, each made safe first: a server's newline stays inside its line. */
export function safeLines(lines: readonly string[]): string {
  return `${lines.map(terminalSafe).join('\n')}\n`;
}
