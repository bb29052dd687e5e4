// The built dashboard behind single sign-on: a real OpenID Connect provider (oidc-provider on loopback), the
// admin secret as break-glass, the poller off and one balancer to act on; and a sign-in through the provider's
// own login and consent pages, as a person makes it.
import { expect, type Page } from '@playwright/test';
import { OIDC_GROUP_SETTINGS, startOidcProvider, type OidcFixture } from '../../support/oidc-provider';
import { freePort, startApp, type RunningApp } from './app';

export interface SsoApp {
  app: RunningApp;
  provider: OidcFixture;
  /** The balancer registered before the test, through the API with the admin secret. */
  balancerId: string;
  stop(): Promise<void>;
}

export async function startSsoApp(secret: string, balancer: Record<string, unknown>): Promise<SsoApp> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const provider = await startOidcProvider({
    redirectUris: [`${url}/auth/callback`],
    postLogoutRedirectUris: [`${url}/login`],
  });
  let app: RunningApp | undefined;
  try {
    app = await startApp(
      {
        ERAWATCH_POLLER: 'off',
        ERAWATCH_ADMIN_SECRET: secret,
        ERAWATCH_PUBLIC_URL: url,
        ERAWATCH_OIDC_ISSUER: provider.issuer,
        ERAWATCH_OIDC_CLIENT_ID: provider.clientId,
        ERAWATCH_OIDC_CLIENT_SECRET: provider.clientSecret,
        ...OIDC_GROUP_SETTINGS,
      },
      { port },
    );
    const res = await fetch(`${app.url}/api/v1/balancers`, {
      method: 'POST',
      headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json' },
      body: JSON.stringify(balancer),
    });
    expect(res.status, await res.clone().text()).toBe(201);
    const balancerId = ((await res.json()) as { id: string }).id;
    const running = app;
    return {
      app: running,
      provider,
      balancerId,
      async stop() {
        await running.stop();
        await provider.close();
      },
    };
  } catch (err) {
    await app?.stop();
    await provider.close();
    throw err;
  }
}

/** Signs in through the provider's pages as `sub` and lands on `next`. */
export async function signInWithSso(sso: SsoApp, page: Page, sub: string, next = '/'): Promise<void> {
  const { app, provider } = sso;
  await page.goto(`${app.url}/login?next=${encodeURIComponent(next)}`);
  await page.getByRole('link', { name: 'Sign in with single sign-on' }).click();
  await expect(page).toHaveURL(new RegExp(`^${provider.issuer}`));
  await page.locator('input[name="login"]').fill(sub);
  await page.locator('input[name="password"]').fill('any password');
  await page.getByRole('button', { name: 'Sign-in' }).click();
  await page.getByRole('button', { name: 'Continue' }).click();
  await expect(page).toHaveURL(`${app.url}${next}`);
}
