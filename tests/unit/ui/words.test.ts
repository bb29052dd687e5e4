import { describe, expect, it } from 'vitest';
import type { Verdict } from '@/lib/probe/types';
import { describeCertificate, describeOutcome, describeReason } from '@/lib/ui/evidence';
import { describeEvent, eventLook, withNodeNames } from '@/lib/ui/events';
import { presentEra, presentGate, presentStatus, FLEET_STATUSES } from '@/lib/ui/presentation';

describe('describeEvent', () => {
  it.each([
    [
      {
        type: 'node.era_changed',
        data: {
          from: { era: 'legacy', servedEras: 'legacy-only' },
          to: { era: 'modern', servedEras: 'dual-era' },
        },
      },
      'legacy (legacy-only) → modern (dual-era)',
    ],
    [{ type: 'node.unavailable', data: { reason: 'timeout' } }, 'timeout'],
    [{ type: 'node.recovered', data: { era: 'modern', downReason: 'refused' } }, 'modern, after refused'],
    [
      { type: 'balancer.diverged', data: { severity: 'era-split', rolling: true } },
      'era-split, inside a rollout window',
    ],
    [{ type: 'balancer.converged', data: { fromSeverity: 'drift' } }, 'was drift'],
    [
      { type: 'gate.closed', data: { revision: '2026-07-28', reasons: ['1 node unavailable'] } },
      '2026-07-28: 1 node unavailable',
    ],
    [
      { type: 'rollout.stuck', data: { progress: '6 of 10 nodes on 2026-07-28' } },
      '6 of 10 nodes on 2026-07-28',
    ],
    [{ type: 'webhook.test', data: {} }, ''],
  ])('%j → %s', (e, text) => {
    expect(describeEvent({ nodeId: null, ...e })).toBe(text);
  });

  it('labels unknown types by their name', () => {
    expect(eventLook('webhook.test')).toMatchObject({ label: 'webhook.test', tone: 'muted' });
    expect(eventLook('gate.opened')).toMatchObject({ label: 'Gate opened', icon: 'unlock', tone: 'ok' });
  });

  it('names nodes by URL in analysis text', () => {
    const names = new Map([['nod_abc123', 'http://127.0.0.1:1/mcp']]);
    expect(withNodeNames('2026-07-28 is not served by nod_abc123, nod_zzz', names)).toBe(
      '2026-07-28 is not served by http://127.0.0.1:1/mcp, nod_zzz',
    );
  });
});

describe('evidence words', () => {
  it.each([
    [{ outcome: 'result' as const, rpcError: null }, 'result'],
    [
      { outcome: 'rpc_error' as const, rpcError: { code: -32022, message: 'x' } },
      '-32022 UnsupportedProtocolVersion',
    ],
    [{ outcome: 'rpc_error' as const, rpcError: { code: -32000, message: 'x' } }, 'error -32000'],
    [{ outcome: 'timeout' as const, rpcError: null }, 'timed out'],
  ])('describeOutcome %j', (step, text) => {
    expect(describeOutcome(step)).toBe(text);
  });

  it.each([
    [{ verdict: 'legacy', reason: 'legacy_positive_evidence' }, /passed all five positive-evidence checks/],
    [
      { verdict: 'unavailable', reason: 'legacy_check_failed:server_info' },
      /serverInfo has non-empty string name/,
    ],
    [{ verdict: 'unavailable', reason: 'http_5xx' }, /http_5xx\. A broken server is not a legacy one/],
    [{ verdict: 'unavailable', reason: 'ambiguous_not_allowlisted' }, /does not allow legacy: fail closed/],
  ] as Array<[Pick<Verdict, 'verdict' | 'reason'>, RegExp]>)('describeReason %j', (v, text) => {
    expect(describeReason(v)).toMatch(text);
  });
});

describe('presentation', () => {
  it('gives every status, era and gate an icon and a non-empty label', () => {
    const all = [
      ...FLEET_STATUSES.map(presentStatus),
      presentEra('modern'),
      presentEra('legacy'),
      presentEra('unavailable'),
      presentGate(true),
      presentGate(false),
      presentGate(null),
    ];
    for (const p of all) {
      expect(p.label.length).toBeGreaterThan(0);
      expect(p.icon.length).toBeGreaterThan(0);
    }
    const labels = FLEET_STATUSES.map((s) => presentStatus(s).label);
    expect(new Set(labels).size).toBe(labels.length);
  });
});

describe('describeCertificate', () => {
  const DAY = 86_400_000;
  const now = Date.UTC(2026, 11, 6);
  it.each([
    ['no certificate (plain HTTP)', undefined, null],
    ['60 days left', now + 60 * DAY, { text: 'expires on 2027-02-04, in 60 days', warn: false }],
    ['14 days left: flagged', now + 14 * DAY, { text: 'expires on 2026-12-20, in 14 days', warn: true }],
    ['hours left', now + 3_600_000, { text: 'expires on 2026-12-06, in less than a day', warn: true }],
    ['expired', now - DAY, { text: 'expired on 2026-12-05', warn: true }],
  ])('%s', (_label, at, expected) => {
    const v = at === undefined ? {} : { tls: { certificateExpiresAt: at } };
    expect(describeCertificate(v, now)).toEqual(expected);
  });
});
