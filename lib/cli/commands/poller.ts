// `erawatch poller`: the worker under its old name, running the poll role unless --roles says otherwise.
import type { Settings } from '@/lib/settings';
import { runWorker } from './worker';

export function run(argv: string[], settings: Settings): Promise<number> {
  return runWorker(argv, settings, 'poller', ['poll']);
}
