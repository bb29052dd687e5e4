// Opening a rollout window: its deadline must lie ahead of the moment it opens.
import { describe, expect, it } from 'vitest';
import { ValidationError } from '@/lib/errors';
import { checkWindowDeadline } from '@/lib/rollout/window';

describe('checkWindowDeadline', () => {
  it('lets a deadline after now through', () => {
    expect(() => checkWindowDeadline(1_001, 1_000)).not.toThrow();
  });

  it.each([999, 1_000])('refuses %i at 1000 on the deadline field', (deadline) => {
    let err: unknown = null;
    try {
      checkWindowDeadline(deadline, 1_000);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ValidationError);
    expect((err as ValidationError).issues).toEqual([{ path: 'deadline', message: 'must be in the future' }]);
  });
});
