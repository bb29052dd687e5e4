'use client';
import { useQuery } from '@tanstack/react-query';
import Link from 'next/link';
import { Age } from '@/components/ui/age';
import { Badge } from '@/components/ui/badge';
import { LoadError, Loading } from '@/components/ui/query-state';
import { browserFetcher } from '@/lib/query/fetch-json';
import { stdioTargetsQuery } from '@/lib/query/stdio';
import { describeReason } from '@/lib/ui/evidence';
import { presentEra } from '@/lib/ui/presentation';

const NOT_PROBED = { label: 'Not probed yet', icon: 'clock', tone: 'muted', hint: '' } as const;

/** Read-only: stdio targets come from the config file, so there is nothing here to create or edit. */
export function StdioList() {
  const targets = useQuery(stdioTargetsQuery(browserFetcher));
  if (targets.isPending) return <Loading what="stdio servers" />;
  if (!targets.data) return <LoadError error={targets.error} what="stdio servers" />;
  if (targets.data.length === 0) {
    return (
      <div className="panel empty" data-testid="stdio-empty">
        <p>No stdio servers are configured.</p>
        <p className="muted">
          Declare them in the <code>stdio:</code> list of <code>erawatch.config.yaml</code>; they are applied
          at start-up or by <code>npx erawatch config apply</code>.
        </p>
      </div>
    );
  }
  return (
    <section className="panel" aria-labelledby="stdio-h">
      <div className="panel-head">
        <h2 id="stdio-h">Configured servers</h2>
        <span className="muted">declared in the config file; read-only here</span>
      </div>
      {targets.error ? <LoadError error={targets.error} what="the latest state" /> : null}
      <div className="table-wrap">
        <table className="data" aria-label="stdio servers">
          <thead>
            <tr>
              <th>Name</th>
              <th>Command line</th>
              <th>Verdict</th>
              <th>Reason</th>
              <th className="nowrap">Last probe</th>
            </tr>
          </thead>
          <tbody>
            {targets.data.map((t) => {
              const era = t.state ? presentEra(t.state.clientEra) : NOT_PROBED;
              const version = t.state?.negotiatedVersion;
              return (
                <tr key={t.id} data-testid="stdio-row" data-name={t.name}>
                  <td>
                    <Link href={`/stdio/${encodeURIComponent(t.id)}`}>{t.name}</Link>
                    {t.allowLegacy ? <span className="muted"> · allowLegacy</span> : null}
                  </td>
                  <td className="mono" style={{ overflowWrap: 'anywhere' }} title={`in ${t.cwd}`}>
                    {t.commandLine}
                  </td>
                  <td className="nowrap">
                    <Badge
                      p={era}
                      text={version ? `${era.label} ${version}` : undefined}
                      testId="stdio-verdict"
                    />
                  </td>
                  <td>
                    {t.state ? (
                      <>
                        <code>{t.state.reason}</code>
                        <div className="muted">
                          {describeReason({ verdict: t.state.clientEra, reason: t.state.reason })}
                        </div>
                      </>
                    ) : (
                      '—'
                    )}
                  </td>
                  <td className="nowrap">{t.state ? <Age at={t.state.probedAt} /> : '—'}</td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
    </section>
  );
}
