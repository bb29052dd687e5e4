'use client';
import { useRole } from '@/components/session/role';
import { catalogDriftOf } from '@/lib/rollout/gate';
import { useQuery } from '@tanstack/react-query';
import Link from 'next/link';
import { useMemo } from 'react';
import { Timeline } from '@/components/events/timeline';
import { Age, Since } from '@/components/ui/age';
import { Badge } from '@/components/ui/badge';
import { Icon } from '@/components/ui/icon';
import { LoadError, Loading } from '@/components/ui/query-state';
import { useNow } from '@/components/ui/use-now';
import { browserFetcher } from '@/lib/query/fetch-json';
import {
  balancerEventsQuery,
  balancerQuery,
  gateQuery,
  GROUP_NAMES_MAX,
  groupMembersQuery,
  nodeLabelsQuery,
} from '@/lib/query/options';
import { nodeLabel } from '@/lib/schemas/node-label';
import type { GateAnswer } from '@/lib/schemas/rollout';
import type { BalancerDetail, EventItem, BalancerAnalysisView } from '@/lib/query/types';
import { SERVED_ERA_LABELS, WINDOW_STATUS_LABELS } from '@/lib/rollout/labels';
import type { PartitionGroupView as PartitionGroup } from '@/lib/schemas/balancer-analysis';
import {
  FINGERPRINT_FIELDS,
  describeCatalogDiff,
  describeContradiction,
  describeDrift,
  describeTools,
  differingFields,
  fingerprintValue,
  formatDuration,
  groupLetter,
  type FingerprintField,
} from '@/lib/ui/balancer';
import { presentGate, presentStatus, type Presentation } from '@/lib/ui/presentation';
import { isAuthGatedReason } from '@/lib/probe/types';
import { describeRegionSplit } from '@/lib/rollout/regions';
import { BalancerActions, WindowControls } from './balancer-actions';
import { matrixHref } from '@/lib/ui/node-filter';
import { plural } from '@/lib/rollout/text';
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

export function BalancerView({ id }: { id: string }) {
  const balancer = useQuery(balancerQuery(browserFetcher, id));
  const events = useQuery(balancerEventsQuery(browserFetcher, id));
  const names = useNodeNames(balancer.data?.analysis ?? null, events.data ?? []);

  if (balancer.isPending) return <Loading what="the balancer" />;
  if (!balancer.data) return <LoadError error={balancer.error} what="the balancer" />;
  const b = balancer.data;
  const a = b.analysis;
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
        <GatePanel balancerId={b.id} analysis={a} />
        <WindowPanel balancer={b} />
      </div>
      {a && (a.partition.length > 0 || a.degradedNodes.length > 0) ? (
        <FingerprintGroups balancerId={b.id} analysis={a} names={names} />
      ) : null}
      <BalancerHistoryPanel id={b.id} analyzedAt={a?.analyzedAt ?? null} />
      <section className="panel" aria-labelledby="timeline-h">
        <div className="panel-head">
          <h2 id="timeline-h">Timeline</h2>
          <Link href={`/events?balancerId=${encodeURIComponent(b.id)}`}>all events</Link>
        </div>
        {events.error && !events.data ? <LoadError error={events.error} what="events" /> : null}
        <Timeline events={events.data ?? []} nodeNames={names} />
      </section>
      {/* Last on the page: the rows scroll with it, and 1,000 of them would push anything below far away. */}
      <section className="panel" aria-labelledby="nodes-h" id="nodes">
        <div className="panel-head">
          <h2 id="nodes-h">Nodes × revisions</h2>
          <span className="muted">
            {a ? `${a.counts.availableNodes} of ${a.counts.nodes} nodes available` : ''}
            {a && a.counts.samples > 0
              ? ` · ${a.counts.availableSamples} of ${a.counts.samples} samples via the public URL`
              : ''}
          </span>
        </div>
        <NodeMatrix balancerId={b.id} analysis={a} />
      </section>
    </>
  );
}

/**
 * Node ids in the timeline and the unavailable list, as the nodes' labels (events stored before nodes had
 * names carry ids in their text). The gate's reasons name nodes themselves.
 */
function useNodeNames(a: BalancerAnalysisView | null, events: EventItem[]): Map<string, string> {
  const ids = [
    ...events.flatMap((e) => (e.nodeId ? [e.nodeId] : [])),
    ...(a?.degradedNodes ?? []).map((d) => d.nodeId),
  ].slice(0, 500);
  const labels = useQuery(nodeLabelsQuery(browserFetcher, ids));
  return useMemo(() => new Map(Object.entries(labels.data ?? {})), [labels.data]);
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
  balancerId,
  analysis: a,
}: {
  balancerId: string;
  analysis: BalancerAnalysisView | null;
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
              <GateReasons balancerId={balancerId} gate={g} />
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

function FingerprintGroups({
  balancerId,
  analysis: a,
  names,
}: {
  balancerId: string;
  analysis: BalancerAnalysisView;
  names: Map<string, string>;
}) {
  const diffs = differingFields(a.partition);
  const capped = a.degradedNodeCount > a.degradedNodes.length;
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
            href={matrixHref(balancerId, { group: g.key })}
            balancerId={balancerId}
            analyzedAt={a.analyzedAt}
          />
        ))}
        <UnavailableGroup
          nodes={a.degradedNodes.filter((d) => !isAuthGatedReason(d.reason))}
          names={names}
          href={matrixHref(balancerId, { availability: 'unavailable' })}
          testId="group-unavailable"
          p={{ label: 'Unavailable', icon: 'unavailable', tone: 'bad', hint: 'not part of the partition' }}
          note="reported beside the partition, never as divergence"
          capped={capped}
        />
        {capped ? (
          <p className="muted" data-testid="degraded-more">
            {a.degradedNodes.length} of {a.degradedNodeCount} unavailable nodes listed
          </p>
        ) : null}
        <UnavailableGroup
          nodes={a.degradedNodes.filter((d) => isAuthGatedReason(d.reason))}
          names={names}
          href={matrixHref(balancerId, { availability: 'auth-gated' })}
          testId="group-auth-gated"
          p={{ label: 'Auth-gated', icon: 'lock', tone: 'warn', hint: 'refused with 401/403: not down' }}
          note="refused at the door: not down, and their era cannot be judged without a working credential"
          capped={capped}
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

type GateSnapshot = BalancerAnalysisView['gates'][number];

/**
 * Each reason (three lines at most, whole on hover) with a link to the matrix showing the nodes it names:
 * the gate's own answer gives each reason's node count and filter (until it answers, the reasons stand alone).
 */
function GateReasons(props: { balancerId: string; gate: GateSnapshot }) {
  const answer = useQuery(
    gateQuery(browserFetcher, props.balancerId, props.gate.revision, props.gate.reasons),
  );
  const details: GateDetail[] =
    answer.data?.details ?? props.gate.reasons.map((text) => ({ text, nodes: null }));
  return (
    <ul className="reasons">
      {details.map((d) => (
        <li key={d.text} data-testid="gate-reason" title={d.text}>
          <span className="clamp">{d.text}</span>
          {d.nodes && d.nodes.count > 0 ? (
            <Link
              className="reason-nodes"
              href={matrixHref(props.balancerId, d.nodes.filter)}
              data-testid="gate-reason-nodes"
            >
              show {plural(d.nodes.count, 'node', 'nodes')}
            </Link>
          ) : null}
        </li>
      ))}
    </ul>
  );
}

type GateDetail = GateAnswer['details'][number];

function UnavailableGroup(props: {
  nodes: BalancerAnalysisView['degradedNodes'];
  names: Map<string, string>;
  href: string;
  testId: string;
  p: Presentation;
  note: string;
  /** Only the first of them are listed: the link does not count them. */
  capped: boolean;
}) {
  if (props.nodes.length === 0) return null;
  return (
    <div className="group" data-testid={props.testId}>
      <div className="group-head">
        <Badge p={props.p} />
        <span className="muted">{props.note}</span>
        <Link href={props.href}>
          {props.capped ? 'show them all' : `show ${plural(props.nodes.length, 'node', 'nodes')}`} in the
          matrix
        </Link>
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
  href: string;
  balancerId: string;
  analyzedAt: number;
}) {
  const { group: g, letter, baseLetter, diffs } = props;
  const count = groupNodeCount(g);
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
      {count > 0 && count <= GROUP_NAMES_MAX ? (
        <GroupMembers balancerId={props.balancerId} groupKey={g.key} analyzedAt={props.analyzedAt} />
      ) : null}
      {count > 0 ? (
        <div className="group-nodes">
          <Link href={props.href} data-testid="group-nodes-link">
            Show {count === 1 ? 'its node' : `its ${count} nodes`} in the matrix
          </Link>
        </div>
      ) : null}
    </div>
  );
}

/** A small group's nodes by name, each a link to its page. */
function GroupMembers(props: { balancerId: string; groupKey: string; analyzedAt: number }) {
  const members = useQuery(
    groupMembersQuery(browserFetcher, props.balancerId, props.groupKey, props.analyzedAt),
  );
  if (!members.data || members.data.length === 0) return null;
  return (
    <p className="group-members" data-testid="group-members">
      {members.data.map((row, i) => (
        <span key={row.id}>
          {i > 0 ? ', ' : null}
          <Link href={`/nodes/${encodeURIComponent(row.id)}`} title={row.url}>
            {nodeLabel(row)}
          </Link>
        </span>
      ))}
    </p>
  );
}

/** How many nodes present the group's fingerprint. */
function groupNodeCount(g: PartitionGroup): number {
  return g.nodeCount;
}

function groupCounts(g: PartitionGroup): string {
  const parts: string[] = [];
  const count = groupNodeCount(g);
  if (count > 0) parts.push(plural(count, 'node', 'nodes'));
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
