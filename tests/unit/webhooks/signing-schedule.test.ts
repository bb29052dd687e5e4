import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { RETRY_DELAYS_MS, retryDelayMs } from '@/lib/deliver/schedule';
import { generateWebhookSecret, signPayload, signedHeaders, signingSecrets } from '@/lib/deliver/signing';

describe('signPayload', () => {
  it('matches the standardwebhooks reference signer', () => {
    const secret = generateWebhookSecret();
    const at = new Date(1_800_000_000_000);
    const body = JSON.stringify({ id: 'evt_1', type: 'gate.opened', data: { n: 1 } });
    expect(signPayload(secret, 'msg_abc', 1_800_000_000, body)).toBe(
      new Webhook(secret).sign('msg_abc', at, body),
    );
  });

  it('carries one signature per secret, space-separated', () => {
    const headers = signedHeaders([generateWebhookSecret(), generateWebhookSecret()], 'msg_x', 1, '{}');
    expect(headers['webhook-signature']?.split(' ').every((s) => s.startsWith('v1,'))).toBe(true);
    expect(headers['webhook-signature']?.split(' ')).toHaveLength(2);
    expect(headers['webhook-timestamp']).toBe('1');
  });
});

describe('signingSecrets', () => {
  it('signs with the previous secret too while the overlap lasts', () => {
    const endpoint = { secret: 'new', previousSecret: 'old', previousSecretUntil: 2_000 };
    expect(signingSecrets(endpoint, 1_999)).toEqual(['new', 'old']);
    expect(signingSecrets(endpoint, 2_000)).toEqual(['new']);
    expect(signingSecrets({ secret: 'only', previousSecret: null, previousSecretUntil: null }, 0)).toEqual([
      'only',
    ]);
  });
});

describe('retryDelayMs', () => {
  it.each([
    [1, 0, 4_000],
    [1, 0.5, 5_000],
    [2, 0.5, 300_000],
    [7, 0, 28_800_000],
    [7, 0.999999, 43_199_986],
  ])('after %i failures with random %f waits %i ms', (failures, random, expected) => {
    expect(retryDelayMs(failures, random)).toBe(expected);
  });

  it('gives up after the last scheduled retry', () => {
    expect(retryDelayMs(RETRY_DELAYS_MS.length + 1, 0.5)).toBeNull();
  });

  it('spans more than a day in all', () => {
    expect(RETRY_DELAYS_MS.reduce((a, b) => a + b, 0)).toBeGreaterThan(86_400_000);
  });
});
