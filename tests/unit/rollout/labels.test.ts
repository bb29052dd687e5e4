import { describe, expect, it } from 'vitest';
import { CLIENT_ERAS, SERVED_ERAS } from '@/lib/probe/types';
import {
  BALANCER_STATES,
  CLIENT_ERA_LABELS,
  DISPLAY_STATUSES,
  DISPLAY_STATUS_LABELS,
  DISPLAY_STATUS_TEXT,
  EVENT_LABELS,
  EVENT_TYPES,
  pickDisplayStatus,
  SERVED_ERA_LABELS,
  SEVERITIES,
  SEVERITY_LABELS,
  STATE_LABELS,
  WINDOW_STATUSES,
  WINDOW_STATUS_LABELS,
} from '@/lib/rollout';

describe('labels', () => {
  it.each<[string, readonly string[], Record<string, string>]>([
    ['display statuses', DISPLAY_STATUSES, DISPLAY_STATUS_LABELS],
    ['balancer states', BALANCER_STATES, STATE_LABELS],
    ['severities', SEVERITIES, SEVERITY_LABELS],
    ['client eras', CLIENT_ERAS, CLIENT_ERA_LABELS],
    ['served eras', SERVED_ERAS, SERVED_ERA_LABELS],
    ['window statuses', WINDOW_STATUSES, WINDOW_STATUS_LABELS],
    ['event types', EVENT_TYPES, EVENT_LABELS],
  ])('every one of the %s has its own non-empty label', (_name, values, labels) => {
    expect(Object.keys(labels).sort()).toEqual([...values].sort());
    const texts = values.map((v) => labels[v] ?? '');
    expect(texts.every((t) => t.trim().length > 0)).toBe(true);
    expect(new Set(texts).size).toBe(texts.length);
  });

  it('describes every display status and gives it a tone', () => {
    for (const status of DISPLAY_STATUSES) {
      expect(DISPLAY_STATUS_TEXT[status].description.length).toBeGreaterThan(10);
      expect(DISPLAY_STATUS_TEXT[status].label).toBe(DISPLAY_STATUS_LABELS[status]);
    }
  });
});

describe('pickDisplayStatus', () => {
  it('follows the documented precedence, highest first', () => {
    expect(DISPLAY_STATUSES).toEqual([
      'stuck',
      'rolling',
      'era-split',
      'drift',
      'region-split',
      'down',
      'auth-gated',
      'flapping',
      'degraded',
      'uniform',
      'unknown',
    ]);
    // Dropping the highest flag each time must reveal the next status in order.
    for (let i = 0; i < DISPLAY_STATUSES.length; i++) {
      const flags = Object.fromEntries(DISPLAY_STATUSES.slice(i).map((s) => [s, true]));
      expect(pickDisplayStatus(flags)).toBe(DISPLAY_STATUSES[i]);
    }
  });

  it('is unknown when nothing is flagged', () => {
    expect(pickDisplayStatus({})).toBe('unknown');
    expect(pickDisplayStatus({ uniform: false, degraded: false })).toBe('unknown');
  });
});
