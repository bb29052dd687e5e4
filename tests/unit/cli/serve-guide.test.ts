// What `erawatch serve` tells a newcomer before the server starts: where to look, where the data is, whether a
// login is needed and why, and a first registration that works with that login.
import { describe, expect, it } from 'vitest';
import { startGuide } from '@/lib/cli/commands/serve';
import { parseSettings } from '@/lib/settings';

describe('erawatch serve start guide', () => {
  it('loopback without a secret: local mode, no login, a same-origin registration', () => {
    const text = startGuide({ host: '127.0.0.1', port: 3000 }, parseSettings({}), {
      ERAWATCH_DB: '/home/me/data/erawatch.db',
    });
    expect(text).toContain('dashboard:  http://127.0.0.1:3000\n');
    expect(text).toContain('data:       SQLite file /home/me/data/erawatch.db');
    expect(text).toContain(
      'login:      none: it listens on loopback (127.0.0.1) and no ERAWATCH_ADMIN_SECRET',
    );
    expect(text).toContain(
      "curl -X POST http://127.0.0.1:3000/api/v1/balancers -H 'content-type: application/json' -H 'origin: http://127.0.0.1:3000'",
    );
  });

  it('every interface with a secret: the login and why, a registration with the secret, no password shown', () => {
    const settings = parseSettings({
      ERAWATCH_ADMIN_SECRET: 'a-long-enough-admin-secret',
      ERAWATCH_DB: 'postgres://erawatch:hunter2-password@db.internal:5432/erawatch',
    });
    const text = startGuide({ host: '0.0.0.0', port: 8080 }, settings, {});
    expect(text).toContain('dashboard:  http://127.0.0.1:8080 (listening on every interface, 0.0.0.0)');
    expect(text).toContain(
      'login:      the admin secret (ERAWATCH_ADMIN_SECRET): it listens beyond loopback (0.0.0.0)',
    );
    expect(text).toContain('-H "authorization: Bearer $ERAWATCH_ADMIN_SECRET"');
    expect(text).not.toContain("-H 'origin:");
    expect(text).toContain('data:       PostgreSQL at postgres://erawatch:***@db.internal:5432/erawatch');
    expect(text).not.toContain('hunter2');
    expect(text).not.toContain('a-long-enough-admin-secret');
  });

  it('loopback with a secret: a login, because the secret is set', () => {
    const settings = parseSettings({ ERAWATCH_ADMIN_SECRET: 'a-long-enough-admin-secret' });
    const text = startGuide({ host: '127.0.0.1', port: 3000 }, settings, {});
    expect(text).toContain('login:      the admin secret (ERAWATCH_ADMIN_SECRET is set)');
  });
});
