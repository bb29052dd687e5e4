// `erawatch poller`: the worker under its old name, running the poll role unless --roles says otherwise.
import { runWorker } from './worker';

export function run(argv: string[]): Promise<number> {
  return runWorker(argv, 'poller', ['poll']);
}
