// What webhooks and alert sinks share: both are endpoints of one outbox (one table, one delivery log), named
// and filtered alike, and answered with the same health fields. Client-safe.
import { z } from 'zod';
import { Id, Timestamp, withoutControlCharacters } from './common';
import { EventType } from './event';

/** The receiver's address: http or https, at most 2048 characters. */
export const EndpointUrl = z
  .url({ protocol: /^https?$/, error: 'must be an http:// or https:// URL' })
  .max(2048, 'must be at most 2048 characters');

/** The input fields every endpoint kind has; `eventTypes` says what its filter selects. */
export function endpointInputFields(eventTypes: string) {
  return {
    name: z
      .string()
      .trim()
      .min(1, 'is required')
      .max(100, 'must be at most 100 characters')
      .regex(
        /^[A-Za-z0-9][A-Za-z0-9 ._-]*$/,
        'may use letters, digits, spaces, dots, dashes and underscores',
      ),
    description: withoutControlCharacters(z.string().max(500), { lines: true }).default(''),
    eventTypes: z.array(EventType).max(50).default([]).meta({ description: eventTypes }),
    balancerIds: z
      .array(Id)
      .max(1000)
      .default([])
      .meta({ description: 'only these balancers; empty sends all' }),
    enabled: z.boolean().default(true),
  };
}

/** The response fields every endpoint kind has: its filters and its health. */
export const endpointViewFields = {
  id: z.string(),
  name: z.string(),
  description: z.string(),
  eventTypes: z.array(z.string()),
  balancerIds: z.array(z.string()),
  enabled: z.boolean(),
  disabledReason: z.string().nullable(),
  failingSince: Timestamp.nullable(),
  createdAt: Timestamp,
  updatedAt: Timestamp,
};
