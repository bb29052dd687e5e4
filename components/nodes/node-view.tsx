'use client';
import { useQuery } from '@tanstack/react-query';
import Link from 'next/link';
import { nodeLabel } from '@/lib/schemas/node-label';
import { AuthEvidencePanel } from '@/components/nodes/auth-evidence';
import { Age } from '@/components/ui/age';
import { Badge } from '@/components/ui/badge';
import { NodeActivity } from '@/components/nodes/node-activity';
import { LoadError, Loading } from '@/components/ui/query-state';
import { browserFetcher } from '@/lib/query/fetch-json';
import { balancerQuery, nodeHistoryQuery, nodeQuery, nodeRollupsQuery } from '@/lib/query/options';
import type { NodeDetail, NodeHistorySpan } from '@/lib/query/types';
import type { EvidenceStep, Verdict } from '@/lib/probe/types';
import { SERVED_ERA_LABELS } from '@/lib/rollout/labels';
import { formatDuration } from '@/lib/ui/balancer';
import {
  describeCertificate,
  describeOutcome,
  describeReason,
  LEGACY_CHECK_TEXT,
  STEP_TEXT,
} from '@/lib/ui/evidence';
import { isEra, presentCheck, presentEra, presentVerdict, type Presentation } from '@/lib/ui/presentation';

/** Under a named node's title, the URL (and address) it is probed at: the name never hides where it is. */
function NodeAddress({ n }: { n: NodeDetail }) {
  if (!n.name) return null;
  return (
    <p className="sub" style={{ marginTop: -6 }}>
      <span className="muted">URL </span>
      <a className="mono" href={n.url} target="_blank" rel="noopener noreferrer" data-testid="node-url">
        {n.url}
      </a>
      {n.origin === 'dns' && n.address ? (
        <>
          {' '}
          <span className="muted">at address</span> <span className="mono">{n.address}</span>
        </>
      ) : null}
      {n.origin === 'sample' && n.servedBy ? (
        <>
          {' '}
          <span className="muted">· served-by</span> <span className="mono">{n.servedBy}</span>
        </>
      ) : null}
    </p>
  );
}

function stamp(at: number): string {
  return new Date(at).toISOString().replace('T', ' ').slice(0, 19) + ' UTC';
}

export function NodeView({ id }: { id: string }) {
  const node = useQuery(nodeQuery(browserFetcher, id));
  const history = useQuery(nodeHistoryQuery(browserFetcher, id));
  const rollups = useQuery(nodeRollupsQuery(browserFetcher, id));
  const balancerId = node.data?.balancerId ?? '';
  const balancer = useQuery({ ...balancerQuery(browserFetcher, balancerId), enabled: balancerId !== '' });

  if (node.isPending) return <Loading what="the node" />;
  if (!node.data) return <LoadError error={node.error} what="the node" />;
  const n = node.data;
  const v = n.state?.verdict ?? null;
  return (
    <>
      <div className="crumbs">
        <Link href="/">Fleet</Link> /{' '}
        <Link href={`/balancers/${encodeURIComponent(n.balancerId)}`}>
          {balancer.data?.name ?? 'balancer'}
        </Link>{' '}
        / node
      </div>
      <div className="page-head">
        <h1 className="mono" style={{ fontSize: 16 }} data-testid="node-title">
          {nodeLabel(n)}
        </h1>
        <VerdictHead verdict={v} testId="node-verdict" />
      </div>
      <NodeAddress n={n} />
      {node.error ? <LoadError error={node.error} what="the latest state" /> : null}
      {v ? (
        <>
          <p className="sub" style={{ marginTop: -6 }}>
            {describeReason(v)}
            {n.state?.region ? (
              <>
                {' '}
                · probed from region{' '}
                <strong className="mono" data-testid="node-region">
                  {n.state.region}
                </strong>
              </>
            ) : null}
          </p>
          {n.regions && n.regions.length > 1 ? <RegionVerdicts states={n.regions} /> : null}
          <div className="grid-2">
            <VerdictPanel v={v} probes={n.state?.probes ?? 0} failures={n.state?.failures ?? 0} />
            <NodeActivity rollups={rollups.data} />
          </div>
          <Evidence v={v} />
        </>
      ) : (
        <p className="muted">This node has not been probed yet; its evidence appears after the next cycle.</p>
      )}
      <section className="panel" aria-labelledby="hist-h">
        <div className="panel-head">
          <h2 id="hist-h">Fingerprint history</h2>
          <span className="muted">a row per change, newest first</span>
        </div>
        {history.error && !history.data ? <LoadError error={history.error} what="history" /> : null}
        <History spans={history.data ?? []} />
      </section>
    </>
  );
}

export function VerdictPanel({ v, probes, failures }: { v: Verdict; probes: number; failures: number }) {
  // Judged at the probe's time: the page shows what the stored verdict says, the same on every render.
  const certificate = describeCertificate(v, v.probedAt);
  return (
    <section className="panel" aria-labelledby="verdict-h">
      <div className="panel-head">
        <h2 id="verdict-h">Latest verdict</h2>
        <span className="muted">
          <Age at={v.probedAt} />
        </span>
      </div>
      <div className="panel-body">
        <dl className="kv">
          <dt>Client verdict</dt>
          <dd>
            <Badge p={presentVerdict(v)} /> <code>{v.reason}</code>
          </dd>
          <dt>Negotiated</dt>
          <dd>{v.negotiatedVersion ?? '—'}</dd>
          <dt>Served revisions</dt>
          <dd className="mono">{v.supported.length > 0 ? v.supported.join(', ') : '—'}</dd>
          <dt>Served class</dt>
          <dd>{SERVED_ERA_LABELS[v.servedEras]}</dd>
          <dt>Server</dt>
          <dd>{v.serverInfo ? `${v.serverInfo.name} ${v.serverInfo.version}` : '—'}</dd>
          <dt>Cache hint</dt>
          <dd>
            {v.cache
              ? `ttlMs ${v.cache.ttlMs} (${formatDuration(v.cache.ttlMs)}), scope ${v.cache.cacheScope}`
              : '—'}
          </dd>
          <dt>initialize sent</dt>
          <dd>{v.initializeSent ? 'yes (one bounded legacy probe)' : 'no'}</dd>
          {v.anomaly ? (
            <>
              <dt>Anomaly</dt>
              <dd>
                <Badge p={{ label: 'Anomaly', icon: 'alert', tone: 'warn', hint: v.anomaly }} /> {v.anomaly}
              </dd>
            </>
          ) : null}
          <dt>Address</dt>
          <dd className="mono">{v.address ?? '—'}</dd>
          {certificate ? (
            <>
              <dt>TLS certificate</dt>
              <dd data-testid="node-certificate">
                {certificate.warn ? (
                  <Badge
                    p={{
                      label: 'Certificate expiring',
                      icon: 'alert',
                      tone: 'warn',
                      hint: 'expires within 14 days, or has expired',
                    }}
                  />
                ) : null}{' '}
                {certificate.text}
              </dd>
            </>
          ) : null}
          {v.servedBy ? (
            <>
              <dt>Served by</dt>
              <dd className="mono">{v.servedBy}</dd>
            </>
          ) : null}
          <dt>Duration</dt>
          <dd>{v.durationMs} ms</dd>
          <dt>Probes</dt>
          <dd data-testid="span-probes">
            {probes} probes, {failures} failures{' '}
            <span className="muted">since its fingerprint last changed</span>
          </dd>
        </dl>
      </div>
    </section>
  );
}

function outcomePresentation(step: EvidenceStep): Presentation {
  const text = describeOutcome(step);
  if (step.outcome === 'result') return { label: text, icon: 'check', tone: 'ok', hint: step.outcome };
  if (step.outcome === 'rpc_error') return { label: text, icon: 'info', tone: 'info', hint: step.outcome };
  return { label: text, icon: 'unavailable', tone: 'bad', hint: step.outcome };
}

export function Evidence({ v }: { v: Verdict }) {
  return (
    <section className="panel" aria-labelledby="evidence-h" data-testid="evidence">
      <div className="panel-head">
        <h2 id="evidence-h">Evidence, step by step</h2>
        <span className="muted">
          {v.evidence.length} step{v.evidence.length === 1 ? '' : 's'} · {v.durationMs} ms in all · probed{' '}
          {stamp(v.probedAt)}
        </span>
      </div>
      <div className="panel-body">
        <ol className="steps">
          {v.evidence.map((s, i) => (
            <li key={`${s.step}-${i}`} className="step" data-testid="evidence-step" data-step={s.step}>
              <div className="step-head">
                <span className="step-n">
                  {i + 1}. {STEP_TEXT[s.step]}
                </span>
                <Badge p={outcomePresentation(s)} testId="step-outcome" />
                <span className="muted">{s.elapsedMs} ms</span>
              </div>
              <dl className="kv">
                <dt>Request</dt>
                <dd className="mono">
                  {s.method} · revision {s.protocolVersion} · id {String(s.requestId)}
                </dd>
                <dt>HTTP status</dt>
                <dd className="mono">
                  {s.httpStatus ?? 'no response'}
                  {s.contentType ? ` · ${s.contentType}` : ''}
                </dd>
                <dt>Outcome</dt>
                <dd className="mono">{s.outcome}</dd>
                {s.rpcError ? (
                  <>
                    <dt>Error</dt>
                    <dd>
                      <code>{s.rpcError.code}</code> {s.rpcError.message}
                      {s.rpcError.data !== undefined ? (
                        <div className="mono muted" style={{ overflowWrap: 'anywhere' }}>
                          data: {JSON.stringify(s.rpcError.data)}
                        </div>
                      ) : null}
                    </dd>
                  </>
                ) : null}
                {s.detail ? (
                  <>
                    <dt>Detail</dt>
                    <dd>{s.detail}</dd>
                  </>
                ) : null}
                {s.sessionIssued !== undefined ? (
                  <>
                    <dt>Session</dt>
                    <dd>{s.sessionIssued ? 'Mcp-Session-Id issued, ended with DELETE' : 'none issued'}</dd>
                  </>
                ) : null}
              </dl>
              {s.checks && s.checks.length > 0 ? (
                <>
                  <p style={{ margin: '8px 0 2px', fontWeight: 600 }}>Positive legacy evidence</p>
                  <ul className="checks" data-testid="legacy-checks">
                    {s.checks.map((c) => (
                      <li key={c.name} data-testid="legacy-check" data-passed={c.passed}>
                        <Badge p={presentCheck(c.passed)} />
                        <span>{LEGACY_CHECK_TEXT[c.name]}</span>
                        {c.detail ? <span className="muted">— {c.detail}</span> : null}
                      </li>
                    ))}
                  </ul>
                </>
              ) : null}
            </li>
          ))}
        </ol>
        {v.auth ? <AuthEvidencePanel auth={v.auth} /> : null}
      </div>
    </section>
  );
}

type RegionState = NonNullable<NodeDetail['regions']>[number];

/** One row per region: what this node answered to each region's worker. */
function RegionVerdicts({ states }: { states: RegionState[] }) {
  const keys = new Set(states.map((s) => s.fingerprintKey));
  return (
    <section className="panel" aria-labelledby="regions-h">
      <div className="panel-head">
        <h2 id="regions-h">Verdict by region</h2>
        <span className="muted">
          {keys.size > 1 ? 'the regions see different answers' : 'every region sees the same answer'}
        </span>
      </div>
      <div className="table-wrap">
        <table className="data">
          <thead>
            <tr>
              <th>Region</th>
              <th>Client verdict</th>
              <th>Reason</th>
              <th>Served revisions</th>
              <th>Server</th>
              <th>Probed</th>
            </tr>
          </thead>
          <tbody>
            {states.map((s) => (
              <tr key={s.region} data-testid="region-verdict" data-region={s.region}>
                <td className="mono">{s.region}</td>
                <td>
                  <Badge p={presentVerdict(s.verdict)} testId="region-verdict-badge" />
                </td>
                <td>
                  <code>{s.verdict.reason}</code>
                </td>
                <td className="mono">{s.verdict.supported.join(', ') || '—'}</td>
                <td>
                  {s.verdict.serverInfo
                    ? `${s.verdict.serverInfo.name} ${s.verdict.serverInfo.version}`
                    : '—'}
                </td>
                <td className="muted">
                  <Age at={s.probedAt} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </section>
  );
}

/** The verdict badge and reason code beside a page title. */
export function VerdictHead({ verdict: v, testId }: { verdict: Verdict | null; testId: string }) {
  return v ? (
    <>
      <Badge
        p={presentVerdict(v)}
        text={v.negotiatedVersion ? `${presentEra(v.verdict).label} ${v.negotiatedVersion}` : undefined}
        testId={testId}
      />
      <code>{v.reason}</code>
    </>
  ) : (
    <Badge p={{ label: 'Not probed yet', icon: 'clock', tone: 'muted', hint: '' }} />
  );
}

type HistorySpan = Pick<
  NodeHistorySpan,
  | 'region'
  | 'fingerprintKey'
  | 'clientEra'
  | 'reason'
  | 'negotiatedVersion'
  | 'servedEras'
  | 'startedAt'
  | 'endedAt'
  | 'probes'
  | 'failures'
>;

/** Fingerprint changes of a node or a stdio target, newest first. */
export function History({ spans }: { spans: HistorySpan[] }) {
  if (spans.length === 0) return <p className="panel-body muted">No fingerprint recorded yet.</p>;
  const withRegion = spans.some((s) => s.region !== undefined);
  return (
    <div className="table-wrap">
      <table className="data stack">
        <thead>
          <tr>
            {withRegion ? <th>Region</th> : null}
            <th>From</th>
            <th>Until</th>
            <th>Client era</th>
            <th>Reason</th>
            <th>Negotiated</th>
            <th>Served class</th>
            <th className="num">Probes</th>
          </tr>
        </thead>
        <tbody>
          {spans.map((s) => (
            <tr key={`${s.region ?? ''}-${s.startedAt}-${s.fingerprintKey}`} data-testid="history-row">
              {withRegion ? (
                <td className="mono" data-label="Region">
                  {s.region ?? '—'}
                </td>
              ) : null}
              <td className="nowrap" data-label="From">
                {stamp(s.startedAt)}
              </td>
              <td className="nowrap" data-label="Until">
                {s.endedAt === null ? 'now' : stamp(s.endedAt)}
              </td>
              <td data-label="Client era">
                {isEra(s.clientEra) ? <Badge p={presentEra(s.clientEra)} /> : s.clientEra}
              </td>
              <td data-label="Reason">
                <code>{s.reason}</code>
              </td>
              <td data-label="Negotiated">{s.negotiatedVersion ?? '—'}</td>
              <td data-label="Served class">{s.servedEras}</td>
              <td className="num" data-label="Probes">
                {s.probes === null ? 'open' : `${s.probes} (${s.failures ?? 0} failed)`}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
