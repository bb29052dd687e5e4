'use client';
import { useQuery } from '@tanstack/react-query';
import Link from 'next/link';
import { Evidence, History, VerdictHead, VerdictPanel } from '@/components/nodes/node-view';
import { LoadError, Loading } from '@/components/ui/query-state';
import { browserFetcher } from '@/lib/query/fetch-json';
import { stdioTargetQuery } from '@/lib/query/stdio';
import { describeReason } from '@/lib/ui/evidence';

export function StdioTargetView({ id }: { id: string }) {
  const target = useQuery(stdioTargetQuery(browserFetcher, id));
  if (target.isPending) return <Loading what="the stdio server" />;
  if (!target.data) return <LoadError error={target.error} what="the stdio server" />;
  const t = target.data;
  const v = t.verdict;
  return (
    <>
      <div className="crumbs">
        <Link href="/stdio">stdio servers</Link> / {t.name}
      </div>
      <div className="page-head">
        <h1>{t.name}</h1>
        <VerdictHead verdict={v} testId="stdio-target-verdict" />
      </div>
      {target.error ? <LoadError error={target.error} what="the latest state" /> : null}
      <section className="panel" aria-labelledby="launch-h">
        <div className="panel-head">
          <h2 id="launch-h">Launch</h2>
          <span className="muted">from the config file; change it there</span>
        </div>
        <div className="panel-body">
          <dl className="kv">
            <dt>Command line</dt>
            <dd className="mono" style={{ overflowWrap: 'anywhere' }}>
              {t.commandLine}
            </dd>
            <dt>Directory</dt>
            <dd className="mono">{t.cwd}</dd>
            <dt>Environment</dt>
            <dd className="mono">{t.envNames.length > 0 ? t.envNames.join(', ') : '—'}</dd>
            <dt>Allowlist</dt>
            <dd>
              {t.allowLegacy
                ? 'allowLegacy: one bounded initialize when discovery is ambiguous'
                : 'not allowlisted: an ambiguous answer is unavailable'}
            </dd>
            <dt>Timing</dt>
            <dd>
              every {t.intervalMs / 1000} s · discovery {t.timeoutMs} ms · initialize {t.legacyProbeTimeoutMs}{' '}
              ms
            </dd>
            <dt>Regions</dt>
            <dd data-testid="stdio-regions">
              {t.regions ? t.regions.join(', ') : 'every region that has a worker'}
            </dd>
          </dl>
        </div>
      </section>
      {v ? (
        <>
          <p className="sub">{describeReason(v)}</p>
          <VerdictPanel v={v} probes={t.state?.probes ?? 0} failures={t.state?.failures ?? 0} />
          <Evidence v={v} />
        </>
      ) : (
        <p className="muted">Not probed yet; the evidence appears after the next probe.</p>
      )}
      <section className="panel" aria-labelledby="stdio-hist-h">
        <div className="panel-head">
          <h2 id="stdio-hist-h">Fingerprint history</h2>
          <span className="muted">a row per change, newest first</span>
        </div>
        <History spans={t.history} />
      </section>
    </>
  );
}
