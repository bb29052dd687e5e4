// URLs as people are shown them: query values and a userinfo password hidden, names kept; a change of a
// hidden value shown as [changed]; a URL sent back as shown keeps the stored values, for the same address only.
import { describe, expect, it } from 'vitest';
import { redactUrl, restoreRedactedUrl } from '@/lib/schemas/url-redaction';
import { fieldChanges } from '@/lib/schemas/audit';

const STORED = 'https://bot:pa55@hooks.example.test/in?apikey=S3CR3T&x=1&x=2&flag#top';

describe('URL redaction', () => {
  it('hides every query value and the password, keeps names, the path and the fragment', () => {
    expect(redactUrl(STORED)).toBe(
      'https://bot:[redacted]@hooks.example.test/in?apikey=[redacted]&x=[redacted]&x=[redacted]&flag#top',
    );
    expect(redactUrl('https://hooks.example.test/in')).toBe('https://hooks.example.test/in');
    expect(redactUrl('https://hooks.example.test/in?empty=')).toBe('https://hooks.example.test/in?empty=');
  });

  it('marks the values a change replaced, by name and place', () => {
    expect(
      redactUrl('https://h.example/in?apikey=NEW&x=1&x=3', 'https://h.example/in?apikey=OLD&x=1&x=2'),
    ).toBe('https://h.example/in?apikey=[changed]&x=[redacted]&x=[changed]');
    expect(fieldChanges({ url: 'https://h.example/?k=a' }, { url: 'https://h.example/?k=b' })).toEqual({
      url: { before: 'https://h.example/?k=[redacted]', after: 'https://h.example/?k=[changed]' },
    });
    expect(fieldChanges({ url: 'https://h.example/?k=a' }, { url: 'https://h.example/?k=a' })).toEqual({});
  });

  it('restores the stored values of a URL sent back as shown, never to another address', () => {
    expect(restoreRedactedUrl(redactUrl(STORED), STORED)).toBe(STORED);
    expect(restoreRedactedUrl('https://hooks.example.test/x?apikey=mine', STORED)).toBe(
      'https://hooks.example.test/x?apikey=mine',
    );
    expect(restoreRedactedUrl('https://bot:[redacted]@evil.example/in?apikey=[redacted]', STORED)).toBeNull();
    expect(restoreRedactedUrl('https://bot:pa55@hooks.example.test/in?other=[redacted]', STORED)).toBeNull();
  });
});
