// Which alerts a balancer's latest analysis raises, and how they look to Alertmanager. Pure: the analysis,
// node labels and the dashboard's base URL are parameters, so every rule is a unit test.
import { createHash } from 'node:crypto';
import type { Fingerprint, PartitionGroup } from '@/lib/rollout/types';
import { describeRegionSplit } from '@/lib/rollout/regions';
import { boundedText, listIds, plural } from '@/lib/rollout/text';
import { ALERT_NAMES, type AlertName, type PostableAlert } from '@/lib/schemas/alert-sink';
import type { StoredAnalysisView } from '@/lib/schemas/balancer-analysis';

export type { StoredAnalysisView };
export type { AlertSubject, DesiredAlert, KnownAlert } from '@/lib/schemas/alert-sink';
import type { AlertSubject, DesiredAlert, KnownAlert } from '@/lib/schemas/alert-sink';

const AUTH_REASONS = new Set(['auth_required', 'auth_failed']);

/** Alertmanager identifies an alert by its label set; this is a stable hash of it. */
export function labelFingerprint(labels: Record<string, string>): string {
  const sorted = Object.keys(labels)
    .sort()
    .map((k) => [k, labels[k]]);
  return createHash('sha256').update(JSON.stringify(sorted)).digest('hex').slice(0, 16);
}

export function dashboardUrl(baseUrl: string, balancerId: string): string {
  return `${baseUrl.replace(/\/+$/, '')}/balancers/${encodeURIComponent(balancerId)}`;
}

function describeFingerprint(fp: Fingerprint): string {
  const version = fp.negotiatedVersion ? ` ${fp.negotiatedVersion}` : '';
  const server = fp.serverName ? `, ${fp.serverName}${fp.serverVersion ? ` ${fp.serverVersion}` : ''}` : '';
  return `${fp.era}${version} (${fp.servedEras}${server})`;
}

function describeGroup(g: PartitionGroup, labels: Record<string, string>): string {
  const who: string[] = [];
  if (g.nodeIds.length > 0) {
    const names = g.nodeIds.map((id) => labels[id] ?? id);
    who.push(`${plural(g.nodeIds.length, 'node', 'nodes')} (${listIds(names, 5)})`);
  }
  if (g.sampleCount > 0) who.push(plural(g.sampleCount, 'sample', 'samples'));
  const tools = g.toolNames ? `, ${plural(g.toolNames.length, 'tool', 'tools')}` : '';
  const diff = g.catalogDiff;
  const vs = diff
    ? [
        diff.adds.length > 0 ? `adds ${listIds(diff.adds, 5)}` : '',
        diff.lacks.length > 0 ? `lacks ${listIds(diff.lacks, 5)}` : '',
        diff.changed.length > 0 ? `changes ${listIds(diff.changed, 5)}` : '',
      ].filter(Boolean)
    : [];
  const catalog = vs.length > 0 ? ` [${vs.join(', ')}]` : '';
  return `${describeFingerprint(g.fingerprint)}${tools}${catalog} on ${who.join(' and ') || 'nothing'}`;
}

/** The partition in words: each fingerprint group, then the unavailable nodes with their reasons. */
export function describePartition(analysis: StoredAnalysisView, labels: Record<string, string>): string {
  const parts = analysis.partition.map((g) => describeGroup(g, labels));
  if (analysis.degradedNodes.length > 0) {
    const down = analysis.degradedNodes.map((d) => `${labels[d.nodeId] ?? d.url} (${d.reason})`);
    parts.push(`unavailable: ${listIds(down, 5)}`);
  }
  if (analysis.unavailableSamples.length > 0) {
    parts.push(`${plural(analysis.unavailableSamples.length, 'sample', 'samples')} unavailable`);
  }
  return parts.length > 0 ? parts.join('; ') : 'nothing probed yet';
}

function summaryOf(name: AlertName, subject: AlertSubject): string {
  const { analysis: a, balancerName: b } = subject;
  switch (name) {
    case 'ErawatchNonUniform':
      return a.severity === 'era-split'
        ? `Balancer ${b} is non-uniform (era-split): its nodes lead clients to different MCP eras`
        : `Balancer ${b} is non-uniform (drift): ${a.reasons && a.reasons.length > 0 ? a.reasons.join(', ') : 'its nodes differ in served revisions, versions or server identity'}`;
    case 'ErawatchBalancerUnavailable':
      return `Balancer ${b} is unavailable: no node or sample answered this cycle`;
    case 'ErawatchAuthGated': {
      const gated = a.degradedNodes.filter((d) => AUTH_REASONS.has(d.reason)).length;
      return `Balancer ${b} is auth-gated: ${plural(gated, 'node', 'nodes')} refused the probe without a usable credential, so Erawatch cannot judge ${gated === 1 ? 'it' : 'them'}`;
    }
    case 'ErawatchRolloutStuck':
      return `Balancer ${b}: the rollout to ${a.window?.targetLabel ?? 'its target'} passed its deadline (${a.window?.label ?? 'not on target'})`;
    case 'ErawatchRegionSplit':
      return `Balancer ${b} answers differently from different regions: ${describeRegionSplit(a.regionPartition ?? [], a.partition)}`;
  }
}

/** The longest `node` label value sent: a name is at most 80 characters, a URL label may be longer. */
export const NODE_LABEL_MAX = 200;

/** A label value as Alertmanager takes it: valid UTF-8, control characters escaped, at most NODE_LABEL_MAX. */
export function labelValue(value: string): string {
  return boundedText(value, NODE_LABEL_MAX);
}

/** The nodes an alert is about, by id: the odd ones out, the down ones or the refused ones. */
function concernedNodes(name: AlertName, a: StoredAnalysisView): string[] {
  switch (name) {
    case 'ErawatchNonUniform': {
      // The nodes outside the one largest group; with no single largest group every node is in question.
      const sizes = a.partition.map((g) => g.nodeIds.length).sort((x, y) => y - x);
      if (sizes.length < 2 || sizes[0] === sizes[1]) return [];
      const largest = Math.max(...sizes);
      return a.partition.filter((g) => g.nodeIds.length < largest).flatMap((g) => g.nodeIds);
    }
    case 'ErawatchBalancerUnavailable':
      return a.degradedNodes.map((d) => d.nodeId);
    case 'ErawatchAuthGated':
      return a.degradedNodes.filter((d) => AUTH_REASONS.has(d.reason)).map((d) => d.nodeId);
    default:
      return [];
  }
}

/**
 * What an alert says about its nodes: one node is its `node` label (an alert per node that is in question,
 * as Alertmanager groups and silences by label); several are named in the `nodes` annotation.
 */
function nodeParts(
  name: AlertName,
  subject: AlertSubject,
): { labels: Record<string, string>; annotations: Record<string, string> } {
  const ids = [...new Set(concernedNodes(name, subject.analysis))];
  const names = ids.map((id) => subject.nodeLabels[id] ?? id);
  if (names.length === 1) return { labels: { node: labelValue(names[0] ?? '') }, annotations: {} };
  if (names.length > 1) return { labels: {}, annotations: { nodes: listIds(names.map(labelValue), 10) } };
  return { labels: {}, annotations: {} };
}

function firingNames(
  a: StoredAnalysisView,
): Array<{ name: AlertName; severity: string; extra: Record<string, string> }> {
  const out: Array<{ name: AlertName; severity: string; extra: Record<string, string> }> = [];
  // Inside an open rollout window non-uniform is expected: held, as webhook alerts are.
  if (a.status === 'non-uniform' && !a.holdAlerts && a.severity && a.severity !== 'region-split') {
    out.push({
      name: 'ErawatchNonUniform',
      severity: a.severity === 'era-split' ? 'critical' : 'warning',
      extra: { split: a.severity },
    });
  }
  const authGated = a.degradedNodes.some((d) => AUTH_REASONS.has(d.reason));
  const nothingAnswered =
    a.counts.nodes + a.counts.samples > 0 && a.counts.availableNodes === 0 && a.counts.availableSamples === 0;
  const downForOtherReasons =
    a.degradedNodes.some((d) => !AUTH_REASONS.has(d.reason)) ||
    a.unavailableSamples.some((s) => !AUTH_REASONS.has(s.reason));
  if (nothingAnswered && (downForOtherReasons || !authGated)) {
    out.push({ name: 'ErawatchBalancerUnavailable', severity: 'critical', extra: {} });
  }
  if (authGated) out.push({ name: 'ErawatchAuthGated', severity: 'warning', extra: {} });
  if (a.window?.stuck) out.push({ name: 'ErawatchRolloutStuck', severity: 'critical', extra: {} });
  if (a.regionSplit === true && !a.holdAlerts) {
    // Regions led to different eras fail clients that move between them; other differences are drift.
    const eras = new Set(
      a.partition.filter((g) => (g.regions ?? []).length > 0).map((g) => g.fingerprint.era),
    );
    out.push({
      name: 'ErawatchRegionSplit',
      severity: eras.size > 1 ? 'critical' : 'warning',
      extra: { regions: (a.regionPartition ?? []).map((g) => g.regions.join(',')).join(' / ') },
    });
  }
  return out;
}

/** The alerts one balancer raises now. */
export function alertsFor(subject: AlertSubject, baseUrl: string): DesiredAlert[] {
  const url = dashboardUrl(baseUrl, subject.balancerId);
  const partition = describePartition(subject.analysis, subject.nodeLabels);
  return firingNames(subject.analysis).map(({ name, severity, extra }) => {
    const nodes = nodeParts(name, subject);
    const labels = {
      alertname: name,
      balancer: subject.balancerName,
      severity,
      ...extra,
      ...nodes.labels,
    };
    return {
      balancerId: subject.balancerId,
      alertname: name,
      fingerprint: labelFingerprint(labels),
      labels,
      annotations: { summary: summaryOf(name, subject), partition, dashboard: url, ...nodes.annotations },
      generatorUrl: url,
    };
  });
}

/** Whether a sink's filters let this alert through: event types by the alert's event, then balancers. */
export function sinkWants(
  sink: { eventTypes: readonly string[]; balancerIds: readonly string[] },
  alert: Pick<DesiredAlert, 'alertname' | 'balancerId'>,
): boolean {
  if (sink.eventTypes.length > 0 && !sink.eventTypes.includes(ALERT_NAMES[alert.alertname])) return false;
  if (sink.balancerIds.length > 0 && !sink.balancerIds.includes(alert.balancerId)) return false;
  return true;
}

/**
 * The body of one push. A firing alert's endsAt lies four resend intervals ahead (as Prometheus does), so an
 * Erawatch that stops sending lets Alertmanager resolve it; a resolved alert carries the time it cleared.
 */
export function postableAlerts(
  alerts: readonly KnownAlert[],
  now: number,
  resendIntervalMs: number,
): PostableAlert[] {
  return alerts.map((a) => ({
    labels: a.labels,
    annotations: a.annotations,
    startsAt: new Date(a.startsAt).toISOString(),
    endsAt: new Date(a.endsAt ?? now + 4 * resendIntervalMs).toISOString(),
    generatorURL: a.generatorUrl,
  }));
}
