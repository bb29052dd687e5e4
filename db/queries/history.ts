// A balancer's history, step by step, from what the poller already keeps: which nodes were probed in a step
// (and how many probes failed) from the minute ring or the hourly rollups, what each presented from its
// fingerprint spans, and which rollout window was open. Nothing here is written per probe.
import { and, eq, gte, isNull, lt, or, sql } from 'drizzle-orm';
import { NotFoundError, ValidationError, type FieldIssue } from '@/lib/errors';
import { isAuthGatedReason } from '@/lib/probe/types';
import { keyedFingerprintOf } from '@/lib/rollout/fingerprint';
import type { RolloutTarget } from '@/lib/rollout/types';
import {
  MAX_HISTORY_STEPS,
  type BalancerHistory,
  type HistoryBand,
  type HistoryStepEntry,
} from '@/lib/schemas/history';
import { selectRows, type Store } from '../index';
import {
  HOUR_MS,
  hourOf,
  MINUTE_MS,
  MINUTE_SLOTS,
  minuteOf,
  minuteRingStart,
  splitRollupKey,
} from '../rollup-key';
import { lastProbedHours, readRingHours, readRollups, type RollupRow } from './nodes';
import { listRegionIds } from './regions';

/** The longest range one answer covers. */
export const MAX_HISTORY_RANGE_MS = 400 * 86_400_000;

export interface HistoryAsk {
  from?: number;
  to?: number;
  stepMs?: number;
}

export interface HistoryPlan {
  /** The first step's start. */
  from: number;
  to: number;
  stepMs: number;
  steps: number;
  source: 'minutes' | 'hours';
}

/** The oldest minute start the ring still holds at `now`. */
export function minuteRingReach(now: number): number {
  return (minuteOf(now) - MINUTE_SLOTS + 1) * MINUTE_MS;
}

/** The step used when none is asked: about 120 steps, whole minutes within the ring's reach, else whole hours. */
export function defaultStep(from: number, to: number, now: number): number {
  const span = to - from;
  if (from >= minuteRingReach(now)) return Math.max(1, Math.ceil(span / (120 * MINUTE_MS))) * MINUTE_MS;
  return Math.max(1, Math.ceil(span / (120 * HOUR_MS))) * HOUR_MS;
}

function iso(at: number): string {
  return new Date(at).toISOString();
}

/** Checks a range and step and aligns them; a ValidationError naming each bad parameter otherwise. */
export function planHistory(ask: HistoryAsk, now: number): HistoryPlan {
  const issues: FieldIssue[] = [];
  const to = Math.min(ask.to ?? now, now);
  const from = ask.from ?? to - HOUR_MS;
  if (ask.from !== undefined && ask.from >= to) {
    issues.push({
      path: 'from',
      message: ask.to !== undefined && ask.to <= now ? 'must be before to' : 'must be before now',
    });
  } else if (ask.to !== undefined && ask.from === undefined && ask.to <= 0) {
    issues.push({ path: 'to', message: 'must be after 1970-01-01' });
  } else if (to - from > MAX_HISTORY_RANGE_MS) {
    issues.push({ path: 'from', message: 'the range from … to may span at most 400 days' });
  }
  if (issues.length > 0) throw new ValidationError(issues);
  const stepMs = ask.stepMs ?? defaultStep(from, to, now);
  if (!Number.isInteger(stepMs) || stepMs < MINUTE_MS || stepMs % MINUTE_MS !== 0) {
    throw new ValidationError([{ path: 'step', message: 'must be a whole number of minutes, at least 1m' }]);
  }
  const hourly = stepMs % HOUR_MS === 0;
  const reach = minuteRingReach(now);
  if (!hourly && from < reach) {
    throw new ValidationError([
      {
        path: 'step',
        message:
          `a step shorter than a whole number of hours reaches back six hours at most (the minute rollups ` +
          `keep six hours, from ${iso(reach)}): use a step such as 1h, or a from at or after that time`,
      },
    ]);
  }
  const start = Math.floor(from / stepMs) * stepMs;
  const steps = Math.ceil((to - start) / stepMs);
  if (steps > MAX_HISTORY_STEPS) {
    const least = Math.ceil((to - start) / MAX_HISTORY_STEPS / MINUTE_MS) * MINUTE_MS;
    throw new ValidationError([
      {
        path: 'step',
        message: `gives ${steps} steps over this range, at most ${MAX_HISTORY_STEPS}: use a step of at least ${Math.ceil(least / MINUTE_MS)}m`,
      },
    ]);
  }
  return { from: start, to, stepMs, steps: Math.max(1, steps), source: hourly ? 'hours' : 'minutes' };
}

interface Counts {
  probes: number;
  failures: number;
}

/** Probes and failures per node seq and step index, every region summed. */
type StepCounts = Map<number, Map<number, Counts>>;

function add(out: StepCounts, seq: number, step: number, probes: number, failures: number): void {
  const bySeq = out.get(seq) ?? new Map<number, Counts>();
  out.set(seq, bySeq);
  const c = bySeq.get(step) ?? { probes: 0, failures: 0 };
  c.probes += probes;
  c.failures += failures;
  bySeq.set(step, c);
}

const RING_CHUNK = 200;

/** Sorted seqs as runs of consecutive numbers: [first, last] each. */
export function seqRuns(seqs: readonly number[]): Array<[number, number]> {
  const sorted = [...new Set(seqs)].sort((a, b) => a - b);
  const runs: Array<[number, number]> = [];
  for (const seq of sorted) {
    const run = runs.at(-1);
    if (run && run[1] === seq - 1) run[1] = seq;
    else runs.push([seq, seq]);
  }
  return runs;
}

async function minuteCounts(
  store: Store,
  regionIds: number[],
  seqs: number[],
  plan: HistoryPlan,
): Promise<StepCounts> {
  const out: StepCounts = new Map();
  const { nodeMinuteRollups: m } = store.t;
  const firstMinute = minuteOf(plan.from);
  const endMinute = minuteOf(plan.from) + (plan.steps * plan.stepMs) / MINUTE_MS;
  const slots = sql.raw(String(MINUTE_SLOTS));
  const per = sql.raw(String(plan.stepMs / MINUTE_MS));
  const runs = seqRuns(seqs);
  for (const region of regionIds)
    for (let i = 0; i < runs.length; i += RING_CHUNK) {
      // A run of consecutive seqs is one key range (a balancer's nodes are mostly numbered together).
      const ranges = runs.slice(i, i + RING_CHUNK).map(([first, last]) => {
        const start = minuteRingStart(first, region);
        return and(gte(m.key, start), lt(m.key, minuteRingStart(last, region) + MINUTE_SLOTS));
      });
      const rows = await store.read(() =>
        selectRows<{
          ring: number | string;
          step: number | string;
          probes: number | string;
          failures: number | string;
        }>(
          store,
          sql`SELECT key / ${slots} AS ring, (minute - ${sql.raw(String(firstMinute))}) / ${per} AS step, sum(probes) AS probes,
              sum(failures) AS failures
            FROM node_minute_rollups
            WHERE (${or(...ranges)}) AND minute >= ${firstMinute} AND minute < ${endMinute}
            GROUP BY 1, 2`,
        ),
      );
      for (const r of rows) {
        const ring = Number(r.ring);
        const seq = ring - Math.floor(ring / 2 ** 24) * 2 ** 24;
        add(out, seq, Number(r.step), Number(r.probes), Number(r.failures));
      }
    }
  return out;
}

async function hourCounts(
  store: Store,
  regions: Array<{ id: number; name: string }>,
  numbered: Array<{ id: string; seq: number | null }>,
  plan: HistoryPlan,
  now: number,
): Promise<StepCounts> {
  const seqs = numbered.flatMap((n) => (n.seq === null ? [] : [n.seq]));
  const regionIds = regions.map((r) => r.id);
  const firstHour = hourOf(plan.from);
  const lastHour = Math.min(hourOf(plan.to - 1), hourOf(now));
  // As getRollups: an hour is its row, or the ring's sum while the ring holds it (or the node's last probed
  // hour, not folded yet); where both hold it, whichever counted more probes is the whole hour.
  const ringFrom = hourOf(now) - (MINUTE_SLOTS / 60 - 1);
  const lastProbed = await lastProbedHours(store, numbered, regions);
  const best = new Map<number, RollupRow>();
  for (const r of await readRollups(store, regionIds, seqs, firstHour, lastHour)) best.set(r.key, r);
  for (const r of await readRingHours(store, regionIds, seqs, firstHour, lastHour)) {
    const { hour, seq, regionId } = splitRollupKey(r.key);
    if (hour < ringFrom && lastProbed.get(`${regionId}:${seq}`) !== hour) continue;
    if (r.probes > (best.get(r.key)?.probes ?? -1)) best.set(r.key, r);
  }
  const out: StepCounts = new Map();
  for (const [, r] of best) {
    const { hour, seq } = splitRollupKey(r.key);
    const step = Math.floor((hour * HOUR_MS - plan.from) / plan.stepMs);
    if (step >= 0 && step < plan.steps) add(out, seq, step, r.probes, r.failures);
  }
  return out;
}

interface Span {
  nodeId: string;
  fingerprintKey: string;
  clientEra: string;
  reason: string;
  negotiatedVersion: string | null;
  servedEras: string;
  startedAt: number;
}

/** The span in effect just before `at`: the latest started before it, of any region (spans sorted by start). */
function spanAt(spans: Span[], at: number): Span | null {
  let lo = 0;
  let hi = spans.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if ((spans[mid] as Span).startedAt < at) lo = mid + 1;
    else hi = mid;
  }
  return lo === 0 ? null : (spans[lo - 1] as Span);
}

function targetRevisionOf(target: RolloutTarget, supportedOf: Map<string, string[]>): string | null {
  if (target.supportedIncludes !== undefined) return target.supportedIncludes;
  if (target.negotiatedVersion !== undefined) return target.negotiatedVersion;
  if (target.fingerprintKey !== undefined) return supportedOf.get(target.fingerprintKey)?.[0] ?? null;
  return null;
}

/** One balancer's history over a planned range (planHistory), oldest step first; NotFound if no balancer. */
export async function readBalancerHistory(
  store: Store,
  balancerId: string,
  plan: HistoryPlan,
  now: number = Date.now(),
): Promise<BalancerHistory> {
  const { balancers, nodes, subjectHistory: h, subjectStates, rolloutWindows: w } = store.t;
  const [exists] = await store.read((db) =>
    db.select({ id: balancers.id }).from(balancers).where(eq(balancers.id, balancerId)),
  );
  if (!exists) throw new NotFoundError('balancer', balancerId);
  const end = plan.from + plan.steps * plan.stepMs;
  const numbered = await store.read((db) =>
    db.select({ id: nodes.id, seq: nodes.seq }).from(nodes).where(eq(nodes.balancerId, balancerId)),
  );
  const regions = await listRegionIds(store);
  const seqs = numbered.flatMap((n) => (n.seq === null ? [] : [n.seq]));
  const counts =
    plan.source === 'minutes'
      ? await minuteCounts(
          store,
          regions.map((r) => r.id),
          seqs,
          plan,
        )
      : await hourCounts(store, regions, numbered, plan, now);

  const spanRows = await store.read((db) =>
    db
      .select({
        nodeId: nodes.id,
        fingerprintKey: h.fingerprintKey,
        clientEra: h.clientEra,
        reason: h.reason,
        negotiatedVersion: h.negotiatedVersion,
        servedEras: h.servedEras,
        startedAt: h.startedAt,
      })
      .from(h)
      .innerJoin(nodes, eq(nodes.id, h.nodeId))
      .where(
        and(
          eq(nodes.balancerId, balancerId),
          lt(h.startedAt, end),
          or(isNull(h.endedAt), gte(h.endedAt, plan.from)),
        ),
      ),
  );
  const spansOf = new Map<string, Span[]>();
  for (const s of spanRows) {
    const list = spansOf.get(s.nodeId) ?? [];
    list.push(s);
    spansOf.set(s.nodeId, list);
  }
  for (const [, list] of spansOf) list.sort((a, b) => a.startedAt - b.startedAt);

  // The revisions each fingerprint served, where a node still presents it (a span keeps only its key).
  const supportedOf = new Map<string, string[]>();
  const states = await store.read((db) =>
    db
      .select({ verdict: subjectStates.verdict })
      .from(subjectStates)
      .innerJoin(nodes, eq(nodes.id, subjectStates.nodeId))
      .where(eq(nodes.balancerId, balancerId)),
  );
  for (const { verdict } of states) {
    const keyed = keyedFingerprintOf(verdict);
    if (keyed) supportedOf.set(keyed.key, keyed.fingerprint.supported);
  }
  const servesOf = (s: Span): string[] =>
    supportedOf.get(s.fingerprintKey) ?? (s.negotiatedVersion ? [s.negotiatedVersion] : []);

  const windows = await store.read((db) =>
    db
      .select({ target: w.target, openedAt: w.openedAt, closedAt: w.closedAt })
      .from(w)
      .where(
        and(
          eq(w.balancerId, balancerId),
          lt(w.openedAt, end),
          or(isNull(w.closedAt), gte(w.closedAt, plan.from)),
        ),
      ),
  );

  const seqOf = new Map(numbered.flatMap((n) => (n.seq === null ? [] : [[n.id, n.seq] as const])));
  const steps: HistoryStepEntry[] = [];
  for (let i = 0; i < plan.steps; i++) {
    const at = plan.from + i * plan.stepMs;
    const until = Math.min(at + plan.stepMs, now + 1);
    const eras = { modern: 0, dualEra: 0, legacy: 0 };
    let probed = 0;
    let unavailable = 0;
    let authGated = 0;
    let probes = 0;
    let failures = 0;
    const present: Span[] = [];
    for (const [nodeId, seq] of seqOf) {
      const c = counts.get(seq)?.get(i);
      if (!c || c.probes === 0) continue;
      probes += c.probes;
      failures += c.failures;
      const span = spanAt(spansOf.get(nodeId) ?? [], until);
      if (!span) continue;
      probed++;
      if (span.clientEra === 'unavailable') {
        if (isAuthGatedReason(span.reason)) authGated++;
        else unavailable++;
        continue;
      }
      present.push(span);
      if (span.servedEras === 'dual-era') eras.dualEra++;
      else if (span.clientEra === 'legacy') eras.legacy++;
      else eras.modern++;
    }
    const keys = new Set(present.map((s) => s.fingerprintKey));
    const eraSet = new Set(present.map((s) => s.clientEra));
    const state = keys.size === 0 ? 'unknown' : keys.size === 1 ? 'uniform' : 'non-uniform';
    const severity = keys.size > 1 ? (eraSet.size > 1 ? 'era-split' : 'drift') : null;
    const open = windows.find((x) => x.openedAt < until && (x.closedAt === null || x.closedAt >= until));
    let targetRevision = open ? targetRevisionOf(open.target, supportedOf) : null;
    if (targetRevision === null) {
      for (const s of present)
        for (const r of servesOf(s)) if (targetRevision === null || r > targetRevision) targetRevision = r;
    }
    const servingTarget =
      targetRevision === null ? 0 : present.filter((s) => servesOf(s).includes(targetRevision)).length;
    const band: HistoryBand =
      severity ??
      (probed === 0
        ? 'no-data'
        : unavailable > 0 || (keys.size === 0 && authGated < probed)
          ? 'degraded'
          : keys.size === 1
            ? 'uniform'
            : 'degraded');
    steps.push({
      at,
      state: probed === 0 ? 'unknown' : state,
      severity,
      band,
      nodes: probed,
      available: present.length,
      unavailable,
      authGated,
      eras,
      fingerprints: keys.size,
      windowOpen: open !== undefined,
      targetRevision,
      servingTarget,
      probes,
      failures,
    });
  }
  return { balancerId, from: plan.from, to: plan.to, stepMs: plan.stepMs, source: plan.source, steps };
}
