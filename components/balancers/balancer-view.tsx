'use client';
import { useRole } from '@/components/session/role';
import { catalogDriftOf } from '@/lib/rollout/gate';
import { useQuery } from '@tanstack/react-query';
import Link from 'next/link';
import { useState } from 'react';
import { Timeline } from '@/components/events/timeline';
import { Age, Since } from '@/components/ui/age';
import { Badge } from '@/components/ui/badge';
import { Icon } from '@/components/ui/icon';
import { LoadError, Loading } from '@/components/ui/query-state';
import { useNow } from '@/components/ui/use-now';
import { browserFetcher } from '@/lib/query/fetch-json';
import { balancerEventsQuery, balancerNodesQuery, balancerQuery } from '@/lib/query/options';
import type { BalancerDetail, EventItem, NodeSummary, BalancerAnalysisView } from '@/lib/query/types';
import { SERVED_ERA_LABELS, WINDOW_STATUS_LABELS } from '@/lib/rollout/labels';
import type { PartitionGroup } from '@/lib/rollout/types';
import {
  FINGERPRINT_FIELDS,
  describeCatalogDiff,
  describeContradiction,
  describeDrift,
  describeTools,
  differingFields,
  fingerprintValue,
  formatDuration,
  rowRegions,
  splitRowsByRegion,
  type FingerprintField,
} from '@/lib/ui/balancer';
import { withNodeNames } from '@/lib/ui/events';
import { presentGate, presentStatus, type Presentation } from '@/lib/ui/presentation';
import { isAuthGatedReason } from '@/lib/probe/types';
import { describeRegionSplit } from '@/lib/rollout/regions';
import { BalancerActions, WindowControls } from './balancer-actions';
import { nodeLabel } from '@/lib/schemas/node-label';
import { NodeMatrix } from './node-matrix';
import { BalancerHistoryPanel } from './balancer-history';
import { BalancerProgressPanel } from './progress-bar';

const FIELD_LABELS: Record<FingerprintField, string> = {
  era: 'Client era',
  negotiatedVersion: 'Negotiated',
  supported: 'Served revisions',
  servedEras: 'Served class',
  serverName: 'Server name',
  serverVersion: 'Server version',
};

/** "A", "B", … for fingerprint groups, largest first (the analysis' order). */
export function groupLetter(index: number): string {
  return index < 26 ? String.fromCharCode(65 + index) : `G${index + 1}`;
}

export function BalancerView({ id }: { id: string }) {
  const balancer = useQuery(balancerQuery(browserFetcher, id));
  const nodes = useQuery(balancerNodesQuery(browserFetcher, id));
  const events = useQuery(balancerEventsQuery(browserFetcher, id));

  if (balancer.isPending) return <Loading what="the balancer" />;
  if (!balancer.data) return <LoadError error={balancer.error} what="the balancer" />;
  const b = balancer.data;
  const a = b.analysis;
  const nodeList = nodes.data ?? [];
  return (
    <>
      {/* The page's head: crumbs, name and state, the actions, and one line of facts. A rollout's progress
          bar and trend go in a `.balancer-progress` element as the head's last child (it spans the head's
          width below the facts line, see app/globals.css). */}
      <header className="balancer-head">
        <div className="crumbs">
          <Link href="/">Fleet</Link> / balancer
        </div>
        <div className="page-head">
          <h1>{b.name}</h1>
          <StatusBadges analysis={a} />
          <span className="spacer" />
          <BalancerActions balancer={b} />
        </div>
        <p className="sub balancer-facts">
          <span className="mono">{b.publicUrl}</span> · every {formatDuration(b.intervalMs)} ·{' '}
          {a ? (
            <>
              analysed <Age at={a.analyzedAt} />
            </>
          ) : (
            'not probed yet'
          )}
        </p>
      </header>
      {balancer.error ? <LoadError error={balancer.error} what="the latest state" /> : null}
      {a ? <Headline analysis={a} events={events.data ?? []} /> : <NotProbedYet />}
      <BalancerProgressPanel progress={b.progress} />
      <div className="grid-3">
        <HazardPanel analysis={a} />
        <GatePanel analysis={a} names={new Map(nodeList.map((n) => [n.id, nodeLabel(n)]))} />
        <WindowPanel balancer={b} />
      </div>
      {a && (a.partition.length > 0 || a.degradedNodes.length > 0) ? (
        <FingerprintGroups analysis={a} nodes={nodeList} />
      ) : null}
      <BalancerHistoryPanel id={b.id} />
      <section className="panel" aria-labelledby="nodes-h">
        <div className="panel-head">
          <h2 id="nodes-h">Nodes × revisions</h2>
          <span className="muted">
            {a
              ? `${a.counts.availableNodes} of ${a.counts.nodes} nodes available`
              : `${nodeList.length} nodes`}
            {a && a.counts.samples > 0
              ? ` · ${a.counts.availableSamples} of ${a.counts.samples} samples via the public URL`
              : ''}
          </span>
        </div>
        {nodes.error && !nodes.data ? <LoadError error={nodes.error} what="the nodes" /> : null}
        {nodes.isPending ? <Loading what="nodes" /> : <Matrix nodes={nodeList} analysis={a} />}
      </section>
      <section className="panel" aria-labelledby="timeline-h">
        <div className="panel-head">
          <h2 id="timeline-h">Timeline</h2>
          <Link href={`/events?balancerId=${encodeURIComponent(b.id)}`}>all events</Link>
        </div>
        {events.error && !events.data ? <LoadError error={events.error} what="events" /> : null}
        <Timeline events={events.data ?? []} nodeNames={new Map(nodeList.map((n) => [n.id, nodeLabel(n)]))} />
      </section>
    </>
  );
}

/** The node matrix, whole or split into one table per region (the control shows once several regions probe). */
function Matrix({ nodes, analysis: a }: { nodes: NodeSummary[]; analysis: BalancerAnalysisView | null }) {
  const [byRegion, setByRegion] = useState(false);
  const regions = rowRegions(nodes);
  if (regions.length < 2) return <NodeMatrix nodes={nodes} analysis={a} />;
  const verdictOf = new Map((a?.regions ?? []).map((r) => [r.region, r]));
  return (
    <>
      <div className="panel-body" style={{ paddingBottom: 0 }}>
        <span className="segmented" role="group" aria-label="Split the matrix">
          <button type="button" aria-pressed={!byRegion} onClick={() => setByRegion(false)}>
            All regions
          </button>
          <button
            type="button"
            aria-pressed={byRegion}
            onClick={() => setByRegion(true)}
            data-testid="split-by-region"
          >
            By region ({regions.length})
          </button>
        </span>
      </div>
      {byRegion ? (
        splitRowsByRegion(nodes).map((section) => {
          const v = section.region ? verdictOf.get(section.region) : undefined;
          return (
            <div
              key={section.region ?? '~unprobed'}
              className="region-section"
              data-testid="region-section"
              data-region={section.region ?? ''}
            >
              <h3 className="region-head">
                <span className="mono">{section.region ?? 'not probed yet'}</span>
                {v ? <Badge p={presentStatus(v.displayStatus)} testId="region-status" /> : null}
                <span className="muted">
                  {v
                    ? `${v.counts.availableNodes} of ${v.counts.nodes} nodes available${
                        v.counts.samples > 0
                          ? ` · ${v.counts.availableSamples} of ${v.counts.samples} samples`
                          : ''
                      }`
                    : `${section.rows.length} rows`}
                </span>
              </h3>
              <NodeMatrix
                nodes={section.rows}
                analysis={a}
                label={`Nodes by revision, ${section.region ?? 'not probed yet'}`}
              />
            </div>
          );
        })
      ) : (
        <NodeMatrix nodes={nodes} analysis={a} />
      )}
    </>
  );
}

function StatusBadges({ analysis: a }: { analysis: BalancerAnalysisView | null }) {
  if (!a) return <Badge p={presentStatus('pending')} testId="balancer-status" />;
  return (
    <span className="badges">
      <Badge p={presentStatus(a.displayStatus)} testId="balancer-status" />
      {a.status === 'non-uniform' && a.displayStatus !== a.severity ? (
        <Badge
          p={presentStatus(a.severity ?? 'drift')}
          text={`Non-uniform: ${presentStatus(a.severity ?? 'drift').label}`}
          testId="balancer-nonuniform"
        />
      ) : null}
      {a.regionSplit && a.displayStatus !== 'region-split' ? (
        <Badge p={presentStatus('region-split')} testId="balancer-region-split" />
      ) : null}
      {a.degraded && a.displayStatus !== 'degraded' ? <Badge p={presentStatus('degraded')} /> : null}
      {a.flapping.length > 0 && a.displayStatus !== 'flapping' ? (
        <Badge p={presentStatus('flapping')} />
      ) : null}
    </span>
  );
}

function Headline({ analysis: a, events }: { analysis: BalancerAnalysisView; events: EventItem[] }) {
  if (a.status !== 'non-uniform') return null;
  if (a.severity === 'region-split') return <RegionSplitNotice analysis={a} events={events} />;
  const n = a.partition.length;
  // Events come newest first: the divergence began at the latest `balancer.diverged`.
  const began = events.find((e) => e.type === 'balancer.diverged')?.at ?? null;
  return (
    <div
      className={`notice tone-${a.rolling ? 'info' : 'bad'}`}
      role="status"
      data-testid="nonuniform-notice"
    >
      <Icon name="split" />
      <span>
        <strong>Non-uniform ({a.severity})</strong>
        {began !== null ? (
          <>
            {' '}
            <Since at={began} />
          </>
        ) : null}
        <strong>:</strong> clients of this balancer can get <span data-testid="answer-count">{n}</span>{' '}
        different answers
        {a.reasons && a.reasons.length > 0 ? ` (${a.reasons.join(', ')})` : ''}.{' '}
        {a.severity === 'era-split'
          ? 'Clients that cached one node’s era meet another node’s contradiction and fail.'
          : describeDrift(a.reasons)}
        {a.rolling ? ' Inside the open rollout window this is expected and alerts are held.' : ''}
        {a.unplacedSamples ? (
          <span className="muted" data-testid="unplaced-samples">
            {' '}
            {a.unplacedSamples === 1 ? '1 sample' : `${a.unplacedSamples} samples`} through the public URL
            answered with facts from several requests that may have reached different nodes; no node presents
            that answer, so it is not counted.
          </span>
        ) : null}
      </span>
    </div>
  );
}

function RegionSplitNotice({ analysis: a, events }: { analysis: BalancerAnalysisView; events: EventItem[] }) {
  const began = events.find((e) => e.type === 'balancer.region_split')?.at ?? null;
  return (
    <div
      className={`notice tone-${a.rolling ? 'info' : 'warn'}`}
      role="status"
      data-testid="region-split-notice"
    >
      <Icon name="split" />
      <span>
        <strong>Region split</strong>
        {began !== null ? (
          <>
            {' '}
            <Since at={began} />
          </>
        ) : null}
        <strong>:</strong>{' '}
        <span data-testid="region-split-partition">
          {describeRegionSplit(a.regionPartition ?? [], a.partition)}
        </span>
        . Each region is uniform, but the public URL gives each region a different answer: a client that moves
        between regions meets a contradiction, and the gate stays closed until they agree.
      </span>
    </div>
  );
}

function NotProbedYet() {
  const { can } = useRole();
  return (
    <div className="notice tone-info" role="status">
      <Icon name="clock" />
      <span>
        Waiting for the first probe cycle.
        {can('operator') ? (
          <>
            {' '}
            Use <strong>Probe now</strong> to run one immediately.
          </>
        ) : null}
      </span>
    </div>
  );
}

function HazardPanel({ analysis: a }: { analysis: BalancerAnalysisView | null }) {
  const h = a?.cacheHazard;
  return (
    <section className="panel" aria-labelledby="hazard-h">
      <div className="panel-head">
        <h2 id="hazard-h">Cache hazard</h2>
      </div>
      <div className="panel-body">
        {h ? (
          <dl className="kv">
            <dt>Largest ttlMs</dt>
            <dd data-testid="max-ttl">
              {h.maxTtlMs === null
                ? 'none advertised'
                : h.maxTtlMs >= 1_000
                  ? `${h.maxTtlMs} ms (${formatDuration(h.maxTtlMs)})`
                  : `${h.maxTtlMs} ms`}
            </dd>
            {h.catalogTtlMs !== undefined && h.catalogTtlMs !== null ? (
              <>
                <dt>Catalog ttlMs</dt>
                <dd data-testid="catalog-ttl">
                  {h.catalogTtlMs >= 1_000
                    ? `${h.catalogTtlMs} ms (${formatDuration(h.catalogTtlMs)})`
                    : `${h.catalogTtlMs} ms`}{' '}
                  <span className="muted">catalogs differ: a cached tools/list may name missing tools</span>
                </dd>
              </>
            ) : null}
            <dt>Public URL samples</dt>
            <dd data-testid="contradiction">{describeContradiction(h)}</dd>
            <dt>What it means</dt>
            <dd className="muted">
              A client caches the era per server; for up to the largest ttlMs it may keep an answer that
              another node contradicts.
            </dd>
          </dl>
        ) : (
          <p className="muted">No cycle yet.</p>
        )}
      </div>
    </section>
  );
}

function GatePanel({
  analysis: a,
  names,
}: {
  analysis: BalancerAnalysisView | null;
  names: Map<string, string>;
}) {
  const gates = a?.gates ?? [];
  const drift = a ? catalogDriftOf(a.partition) : null;
  return (
    <section className="panel" aria-labelledby="gate-h">
      <div className="panel-head">
        <h2 id="gate-h">Gate</h2>
      </div>
      <div className="panel-body">
        {gates.length === 0 ? <p className="muted">No gate evaluated yet.</p> : null}
        {gates.map((g) => (
          <div key={g.revision} data-testid="gate">
            <p style={{ margin: '0 0 6px' }}>
              Ready to advertise <strong>{g.revision}</strong>:{' '}
              <Badge
                p={
                  !g.ready && g.reasons.length > 0 && g.reasons.every((r) => r.startsWith('cannot judge'))
                    ? CANNOT_JUDGE
                    : presentGate(g.ready)
                }
              />
            </p>
            {g.reasons.length > 0 ? (
              <ul className="reasons">
                {g.reasons.map((r) => {
                  const text = withNodeNames(r, names);
                  return (
                    <li key={r} title={text}>
                      <span className="clamp">{text}</span>
                    </li>
                  );
                })}
              </ul>
            ) : (
              <p className="muted" style={{ margin: 0 }}>
                Every node is available and presents the same served set
                {drift ? ', but their tool catalogs differ.' : '.'}
              </p>
            )}
          </div>
        ))}
        {drift && gates.length > 0 ? (
          <p className="gate-note" data-testid="gate-catalog-drift">
            <Badge p={{ label: 'Catalogs differ', icon: 'drift', tone: 'warn', hint: drift.detail }} />{' '}
            {drift.tools.length > 0 ? (
              <>
                Tools that differ: <strong>{drift.tools.join(', ')}</strong>.
              </>
            ) : (
              'Same tool names, other descriptions or schemas.'
            )}{' '}
            The gate judges the served revisions only: a client that cached one node’s tools/list may call a
            tool another node lacks.
          </p>
        ) : null}
      </div>
    </section>
  );
}

function WindowPanel({ balancer: b }: { balancer: BalancerDetail }) {
  const w = b.analysis?.window ?? null;
  const now = useNow(5_000);
  return (
    <section className="panel" aria-labelledby="window-h">
      <div className="panel-head">
        <h2 id="window-h">Rollout window</h2>
      </div>
      <div className="panel-body">
        {w ? (
          <dl className="kv" data-testid="window">
            <dt>Status</dt>
            <dd>
              <Badge
                p={{
                  label: WINDOW_STATUS_LABELS[w.status],
                  icon: w.stuck ? 'alert' : w.status === 'complete' ? 'check' : 'rolling',
                  tone: w.stuck ? 'bad' : w.status === 'complete' ? 'ok' : 'info',
                  hint: w.status,
                }}
              />
            </dd>
            <dt>Progress</dt>
            <dd data-testid="window-progress">{w.label}</dd>
            <dt>Target</dt>
            <dd>{w.targetLabel}</dd>
            <dt>Deadline</dt>
            <dd suppressHydrationWarning>
              {new Date(w.deadline).toISOString().replace('T', ' ').slice(0, 16)} UTC (
              {w.deadline > now
                ? `in ${formatDuration(w.deadline - now)}`
                : `${formatDuration(now - w.deadline)} ago`}
              )
            </dd>
          </dl>
        ) : (
          <p className="muted" style={{ marginTop: 0 }}>
            No open window. Open one before a rollout: non-uniform is then shown as progress and alerts are
            held until the deadline.
          </p>
        )}
        <WindowControls balancer={b} />
      </div>
    </section>
  );
}

function FingerprintGroups({ analysis: a, nodes }: { analysis: BalancerAnalysisView; nodes: NodeSummary[] }) {
  const diffs = differingFields(a.partition);
  const names = new Map(nodes.map((n) => [n.id, nodeLabel(n)]));
  // Catalog differences are against the largest group whose catalog was listed (samples carry none).
  const baseLetter = groupLetter(
    Math.max(
      0,
      a.partition.findIndex((g) => g.toolNames),
    ),
  );
  return (
    <section className="panel" aria-labelledby="groups-h" data-testid="partition">
      <div className="panel-head">
        <h2 id="groups-h">Nodes grouped by fingerprint</h2>
        <span className="muted">
          {a.partition.length === 0
            ? 'no node gave an answer'
            : a.partition.length === 1
              ? 'one fingerprint'
              : `${a.partition.length} fingerprints; differences highlighted`}
        </span>
      </div>
      <div className="panel-body">
        {a.partition.map((g, i) => (
          <GroupCard
            key={g.key}
            group={g}
            letter={groupLetter(i)}
            baseLetter={baseLetter}
            diffs={diffs}
            names={names}
          />
        ))}
        <UnavailableGroup
          nodes={a.degradedNodes.filter((d) => !isAuthGatedReason(d.reason))}
          names={names}
          testId="group-unavailable"
          p={{ label: 'Unavailable', icon: 'unavailable', tone: 'bad', hint: 'not part of the partition' }}
          note="reported beside the partition, never as divergence"
        />
        <UnavailableGroup
          nodes={a.degradedNodes.filter((d) => isAuthGatedReason(d.reason))}
          names={names}
          testId="group-auth-gated"
          p={{ label: 'Auth-gated', icon: 'lock', tone: 'warn', hint: 'refused with 401/403: not down' }}
          note="refused at the door: not down, and their era cannot be judged without a working credential"
        />
      </div>
    </section>
  );
}

const CANNOT_JUDGE: Presentation = {
  label: 'Cannot judge',
  icon: 'lock',
  tone: 'warn',
  hint: 'Only auth-gated nodes stand in the way: their era is unknown.',
};

function UnavailableGroup(props: {
  nodes: BalancerAnalysisView['degradedNodes'];
  names: Map<string, string>;
  testId: string;
  p: Presentation;
  note: string;
}) {
  if (props.nodes.length === 0) return null;
  return (
    <div className="group" data-testid={props.testId}>
      <div className="group-head">
        <Badge p={props.p} />
        <span className="muted">{props.note}</span>
      </div>
      <div className="group-nodes">
        {props.nodes.map((d) => (
          <div key={d.nodeId}>
            <Link href={`/nodes/${encodeURIComponent(d.nodeId)}`}>{props.names.get(d.nodeId) ?? d.url}</Link>:{' '}
            <code>{d.reason}</code>
            {d.anomaly ? <span className="muted"> · anomaly: {d.anomaly}</span> : null}
          </div>
        ))}
      </div>
    </div>
  );
}

function GroupCard(props: {
  group: PartitionGroup;
  letter: string;
  baseLetter: string;
  diffs: Set<FingerprintField>;
  names: Map<string, string>;
}) {
  const { group: g, letter, baseLetter, diffs, names } = props;
  const shown = g.nodeIds.slice(0, 30);
  return (
    <div className="group" data-testid="partition-group">
      <div className="group-head">
        <strong>Group {letter}</strong>
        <span className="muted">{groupCounts(g)}</span>
      </div>
      <dl className="kv" style={{ marginBottom: 6 }}>
        {FINGERPRINT_FIELDS.map((f) => (
          <FieldRow key={f} field={f} value={fieldText(g, f)} differs={diffs.has(f)} />
        ))}
        <dt>Tools</dt>
        <dd data-testid="group-tools">{describeTools(g)}</dd>
        {describeCatalogDiff(g) ? (
          <>
            <dt>Against group {baseLetter}</dt>
            <dd data-testid="catalog-diff">
              <span className="diff">{describeCatalogDiff(g)}</span>
            </dd>
          </>
        ) : null}
      </dl>
      <div className="group-nodes">
        {shown.map((id, i) => (
          <span key={id}>
            {i > 0 ? ', ' : ''}
            <Link href={`/nodes/${encodeURIComponent(id)}`}>{names.get(id) ?? id}</Link>
          </span>
        ))}
        {g.nodeIds.length > shown.length ? ` and ${g.nodeIds.length - shown.length} more` : ''}
      </div>
    </div>
  );
}

function groupCounts(g: PartitionGroup): string {
  const parts: string[] = [];
  if (g.nodeIds.length > 0) parts.push(`${g.nodeIds.length} node${g.nodeIds.length === 1 ? '' : 's'}`);
  if (g.sampleCount > 0) {
    parts.push(`${g.sampleCount} sample${g.sampleCount === 1 ? '' : 's'} via the public URL`);
  }
  return parts.join(' · ');
}

function fieldText(g: PartitionGroup, f: FingerprintField): string {
  if (f === 'servedEras') return SERVED_ERA_LABELS[g.fingerprint.servedEras];
  return fingerprintValue(g.fingerprint, f);
}

function FieldRow({ field, value, differs }: { field: FingerprintField; value: string; differs: boolean }) {
  return (
    <>
      <dt>{FIELD_LABELS[field]}</dt>
      <dd>
        <span className={differs ? 'diff' : undefined}>{value}</span>
        {differs ? <span className="visually-hidden"> (differs between groups)</span> : null}
      </dd>
    </>
  );
}
