// `erawatch host-check host.yaml [--json]`: runs an agent host's startup as the seed designs it and says
// whether every server became available (exit 0), not all did or tools collided (1), or the input is bad (2).
import { parseArgs } from 'node:util';
import { HostConfigError, loadHostConfig } from '@/lib/host-check/config';
import { formatHostReport } from '@/lib/host-check/format';
import { runHostCheck } from '@/lib/host-check/session';
import { closeSharedProbeAgents } from '@/lib/probe/agent';
import type { Settings } from '@/lib/settings';
import { formatHelp, HELP_FLAG, usageLines, type CommandHelp } from '../help';
import { terminalSafe } from '@/lib/probe/terminal-text';

export const HELP: CommandHelp = {
  usage: ['erawatch host-check <host.yaml> [--json] [--verbose]'],
  about:
    "Runs an agent host's startup as host.yaml describes it: launches or connects to every MCP server, settles\n" +
    'each one era (modern, legacy or unavailable) with its reason, lists their tools and checks that no tool\n' +
    'name is exposed by two servers. See docs/host-check.md for the file.',
  flags: [
    ['--json', 'print the report as JSON instead of text'],
    ['-v, --verbose', "also print each stdio server's stderr, prefixed with its name"],
    HELP_FLAG,
  ],
  exitCodes: [
    [0, 'every server became available and no tool names collided'],
    [1, 'some server is unavailable, or tools collided (the report says which)'],
    [2, 'bad usage, or host.yaml is missing or invalid (the error names the line and field)'],
  ],
};
const USAGE = usageLines(HELP).trimEnd();

export async function run(argv: string[], _settings: Settings): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        json: { type: 'boolean', default: false },
        verbose: { type: 'boolean', short: 'v', default: false },
        help: { type: 'boolean', short: 'h', default: false },
      },
    });
  } catch (err) {
    process.stderr.write(
      `erawatch host-check: ${err instanceof Error ? err.message : String(err)}\n${USAGE}\n`,
    );
    return 2;
  }
  if (parsed.values.help) {
    process.stdout.write(formatHelp(HELP));
    return 0;
  }
  const [file, ...extra] = parsed.positionals;
  if (!file || extra.length > 0) {
    process.stderr.write(
      `erawatch host-check: ${file ? `unexpected argument '${extra[0]}'` : 'missing host.yaml'}\n${USAGE}\n`,
    );
    return 2;
  }
  let config;
  try {
    config = await loadHostConfig(file);
  } catch (err) {
    if (!(err instanceof HostConfigError)) throw err;
    process.stderr.write(`erawatch host-check: invalid host file\n${err.message}\n`);
    return 2;
  }
  const verbose = parsed.values.verbose;
  try {
    const report = await runHostCheck(config, {
      onStderr: verbose
        ? (server, line) => process.stderr.write(`[${terminalSafe(server)}] ${terminalSafe(line)}\n`)
        : undefined,
    });
    process.stdout.write(
      parsed.values.json ? `${JSON.stringify(report, null, 2)}\n` : formatHostReport(report),
    );
    return report.ok ? 0 : 1;
  } finally {
    await closeSharedProbeAgents();
  }
}
