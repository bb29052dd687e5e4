// The human rendering of a host check: one table row per server (server, era, reason, tools), then the merge.
import { safeLines, terminalSafe } from '@/lib/probe/terminal-text';
import type { HostCheckReport } from './session';

function pad(cells: string[][]): string[] {
  const widths: number[] = [];
  for (const row of cells) row.forEach((cell, i) => (widths[i] = Math.max(widths[i] ?? 0, cell.length)));
  return cells.map((row) =>
    row
      .map((cell, i) => (i === row.length - 1 ? cell : cell.padEnd(widths[i] ?? 0)))
      .join('  ')
      .trimEnd(),
  );
}

export function formatHostReport(report: HostCheckReport): string {
  const exposed = new Map<string, string[]>();
  for (const tool of report.tools) exposed.set(tool.server, [...(exposed.get(tool.server) ?? []), tool.name]);
  const rows = [['SERVER', 'ERA', 'VERSION', 'REASON', 'TOOLS']];
  for (const s of report.servers) {
    const reason = s.attempts > 1 ? `${s.reason} (after ${s.attempts} attempts)` : s.reason;
    const tools = s.available ? (exposed.get(s.name) ?? []).join(', ') || '(none)' : '-';
    // Escaped before padding, so a server's control characters neither reach the terminal nor skew columns.
    rows.push([s.name, s.era, s.version ?? '-', reason, tools].map(terminalSafe));
  }
  const lines = pad(rows);
  for (const s of report.servers) {
    for (const note of s.notes) lines.push(`  ${s.name}: ${note}`);
  }
  for (const c of report.collisions) {
    if (c.renamedTo)
      lines.push(
        `  renamed: '${c.tool}' of '${c.servers[1]}' is exposed as '${c.renamedTo}' ('${c.servers[0]}' kept '${c.tool}')`,
      );
  }
  for (const error of report.errors) lines.push(`  collision: ${error}`);
  const available = report.servers.filter((s) => s.available).length;
  lines.push('');
  lines.push(
    `${available} of ${report.servers.length} servers available; ${report.tools.length} tools merged under '${report.collisionPolicy}'` +
      (report.ok ? '' : report.allAvailable ? '; merge failed' : '; startup incomplete'),
  );
  return safeLines(lines);
}
