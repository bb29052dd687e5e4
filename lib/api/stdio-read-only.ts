// Stdio targets are declared only in the config file: a web request must never make the host run a command,
// so every write method on their paths answers 405 with a problem document that says where they come from.
import { HttpProblem } from './problem';
import { withApi } from './with-api';

export const STDIO_READ_ONLY_DETAIL =
  'stdio targets are declared in the config file (the stdio: list of erawatch.config.yaml) and applied at start-up or by `erawatch config apply`; the API only reads them';

export const refuseStdioWrite = withApi<Record<string, string>>('public', () => {
  throw new HttpProblem(405, 'stdio_targets_read_only', STDIO_READ_ONLY_DETAIL, {
    headers: { allow: 'GET' },
  });
});
