// Stdio targets are declared only in the config file: a web request must never make the host run a command,
// so every write method on their paths answers 405 with a problem document that says where they come from.
import { HttpProblem } from './problem';

export const STDIO_READ_ONLY_DETAIL =
  'stdio targets are declared in the config file (the stdio: list of erawatch.config.yaml) and applied at start-up or by `erawatch config apply`; the API only reads them';

/** The handler of every stdio write entry of the route table. */
export function refuseStdioWrite(): never {
  throw new HttpProblem(405, 'stdio_targets_read_only', STDIO_READ_ONLY_DETAIL, {
    headers: { allow: 'GET' },
  });
}
