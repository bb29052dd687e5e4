// Registering and changing alert sinks: the input is validated here and handed to the store, which keeps it.
import type { Store } from '@/db/index';
import { insertAlertSink, updateAlertSink } from '@/db/queries/alert-sinks';
import { parseInput, parsePatch } from '@/lib/schemas/common';
import { CreateAlertSinkInput, UpdateAlertSinkInput, type AlertSink } from '@/lib/schemas/alert-sink';

/** Validates and stores a new sink (a duplicate name is a ConflictError). */
export function createAlertSink(
  store: Store,
  input: CreateAlertSinkInput,
  now: number = Date.now(),
): Promise<AlertSink> {
  return insertAlertSink(store, parseInput(CreateAlertSinkInput, input), now);
}

/** Applies the fields a partial update sent (validated; `enabled: true` re-enables a disabled sink). */
export function updateAlertSinkSettings(
  store: Store,
  id: string,
  patch: unknown,
  now: number = Date.now(),
): Promise<AlertSink> {
  return updateAlertSink(store, id, parsePatch(UpdateAlertSinkInput, patch), now);
}
