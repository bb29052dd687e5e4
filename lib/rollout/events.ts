// Events are transitions between two persisted snapshots, so each is emitted once: diffing a snapshot
// against itself yields nothing. On the first cycle (no previous snapshot) only what needs action now
// is emitted: divergence, unavailable and flapping nodes, stuck windows; never recoveries or gates.
import type { BalancerSnapshot, EventDraft, EventType, NodeSnapshot } from './types';
import { isAuthGatedReason } from '@/lib/probe/types';
import { severityChange } from './severity';
import { RolloutInputError } from './validate';

export function diffSnapshots(
  prev: BalancerSnapshot | null,
  next: BalancerSnapshot,
  at: number,
): EventDraft[] {
  const issues: string[] = [];
  if (typeof next !== 'object' || next === null) issues.push('next must be a snapshot');
  else if (prev !== null && prev.balancerId !== next.balancerId) {
    issues.push(`snapshots belong to different balancers: "${prev.balancerId}" and "${next.balancerId}"`);
  }
  if (typeof at !== 'number' || !Number.isFinite(at)) issues.push('at must be a finite epoch-ms number');
  if (issues.length > 0) throw new RolloutInputError(issues);

  const events: EventDraft[] = [];
  const emit = (type: EventType, nodeId: string | null, data: Record<string, unknown>) =>
    events.push({ type, balancerId: next.balancerId, nodeId, at, data });

  const was = prev?.settledState ?? null;
  if (next.settledState === 'non-uniform' && was !== 'non-uniform') {
    emit('balancer.diverged', null, {
      severity: next.severity,
      from: was,
      rolling: next.rolling,
      windowId: next.window?.id ?? null,
    });
  } else if (next.settledState === 'uniform' && was === 'non-uniform') {
    emit('balancer.converged', null, { fromSeverity: prev?.severity ?? null });
  }

  const wasSplit = prev?.regionSplit ?? false;
  if (next.regionSplit === true && !wasSplit) {
    emit('balancer.region_split', null, { regions: next.regionPartition ?? [] });
  } else if (next.regionSplit === false && wasSplit) {
    emit('balancer.region_converged', null, {
      regions: next.regionPartition ?? [],
      from: prev?.regionPartition ?? [],
    });
  }

  // Every other move of the level: era-split ⇄ drift (a rollback too), flapping and degraded starting and
  // ending. Moves into and out of divergence or a region split already have their own event.
  const change = events.length === 0 ? severityChange(prev, next) : null;
  if (change !== null)
    emit('balancer.severity_changed', null, { ...change, windowId: next.window?.id ?? null });

  events.push(...nodeEvents(prev, next, at));

  const wasFlapping = new Set(prev?.flapping ?? []);
  for (const nodeId of next.flapping) {
    if (!wasFlapping.has(nodeId)) emit('node.flapping', nodeId, {});
  }

  if (prev !== null) {
    const gatesBefore = new Map(prev.gates.map((g) => [g.revision, g.ready]));
    for (const gate of next.gates) {
      const wasReady = gatesBefore.get(gate.revision);
      if (wasReady === false && gate.ready) emit('gate.opened', null, { revision: gate.revision });
      if (wasReady === true && !gate.ready) {
        emit('gate.closed', null, { revision: gate.revision, reasons: gate.reasons });
      }
    }
  }

  const stuckBefore = new Set(prev?.stuckWindows ?? []);
  for (const windowId of next.stuckWindows) {
    if (stuckBefore.has(windowId)) continue;
    const current = next.window?.id === windowId ? next.window : null;
    emit('rollout.stuck', null, {
      windowId,
      progress: current?.label ?? null,
      deadline: current?.deadline ?? null,
    });
  }

  return events;
}

/** A node's transitions: unavailable or refused at the door, recovered, era changed, catalog changed. */
function nodeEvents(prev: BalancerSnapshot | null, next: BalancerSnapshot, at: number): EventDraft[] {
  const events: EventDraft[] = [];
  // Across regions the same node appears once per region, each with its own verdict.
  const slot = (n: NodeSnapshot) => (n.region === undefined ? n.nodeId : `${n.region} ${n.nodeId}`);
  const before = new Map<string, NodeSnapshot>((prev?.nodes ?? []).map((n) => [slot(n), n]));
  for (const node of next.nodes) {
    const old = before.get(slot(node));
    const emit = (type: EventType, nodeId: string, data: Record<string, unknown>) =>
      events.push({
        type,
        balancerId: next.balancerId,
        nodeId,
        at,
        data: node.region === undefined ? data : { ...data, region: node.region },
      });
    if (!node.available) {
      // Refused at the door is not down: its own event, and a move between the two is an event too.
      const gated = isAuthGatedReason(node.reason ?? '');
      const was = !old
        ? null
        : old.available
          ? 'available'
          : isAuthGatedReason(old.reason ?? '')
            ? 'auth-gated'
            : 'unavailable';
      const now = gated ? 'auth-gated' : 'unavailable';
      if (was !== now)
        emit(gated ? 'node.auth_gated' : 'node.unavailable', node.nodeId, {
          reason: node.reason,
          ...(was === null || was === 'available' ? {} : { from: was }),
        });
      continue;
    }
    if (old && !old.available) {
      emit('node.recovered', node.nodeId, {
        era: node.era,
        servedEras: node.servedEras,
        downReason: old.reason,
      });
    }
    // `old` holds the last known era even across an outage, so an upgrade during a restart counts.
    if (old && old.era !== null && (old.era !== node.era || old.servedEras !== node.servedEras)) {
      emit('node.era_changed', node.nodeId, {
        from: { era: old.era, servedEras: old.servedEras },
        to: { era: node.era, servedEras: node.servedEras },
      });
    }
    // A catalog change is a change of the last full listing: carried and failed listings keep the digest.
    const listedBefore = old?.catalog?.digest ? old.catalog : null;
    const after = node.catalog?.digest ? node.catalog : null;
    if (listedBefore && after && listedBefore.digest !== after.digest) {
      const was = new Map(listedBefore.names.map((n, i) => [n, listedBefore.toolDigests[i]]));
      const now = new Set(after.names);
      emit('node.catalog_changed', node.nodeId, {
        added: after.names.filter((n) => !was.has(n)),
        removed: listedBefore.names.filter((n) => !now.has(n)),
        changed: after.names.filter((n, i) => was.has(n) && was.get(n) !== after.toolDigests[i]),
        from: listedBefore.digest,
        to: after.digest,
      });
    }
  }

  return events;
}
