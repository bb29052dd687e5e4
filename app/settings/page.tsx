import { HydrationBoundary, dehydrate } from '@tanstack/react-query';
import type { Metadata } from 'next';
import { SessionsView } from '@/components/settings/sessions-view';
import { TokensView } from '@/components/settings/tokens-view';
import { makeQueryClient } from '@/lib/query/make-query-client';
import { queryKeys } from '@/lib/query/options';
import { prefetchRead } from '@/lib/api/page-read';
import { processSettings } from '@/lib/settings';

export const metadata: Metadata = { title: 'Settings' };

export default async function SettingsPage() {
  const client = makeQueryClient();
  // A viewer's or operator's sessions read is refused (as the API answers 403) and left out: the section
  // says why instead.
  await Promise.all([
    prefetchRead(client, queryKeys.tokens, 'listTokens', {}, (r) => r.items),
    prefetchRead(client, queryKeys.sessions, 'listSessions', {}, (r) => r.items),
  ]);
  return (
    <>
      <div className="page-head">
        <h1>Settings</h1>
      </div>
      <HydrationBoundary state={dehydrate(client)}>
        <TokensView />
        <SessionsView />
      </HydrationBoundary>
      <section className="panel" aria-labelledby="about-h">
        <div className="panel-head">
          <h2 id="about-h">Dashboard</h2>
        </div>
        <div className="panel-body">
          <dl className="kv">
            <dt>Live refresh</dt>
            <dd>
              every {processSettings().uiRefreshMs} ms (set <code>ERAWATCH_UI_REFRESH_MS</code>, 500 to 60000)
            </dd>
            <dt>Balancers as code</dt>
            <dd>
              <code>npx erawatch config export</code> writes the current registrations as YAML
            </dd>
          </dl>
        </div>
      </section>
    </>
  );
}
