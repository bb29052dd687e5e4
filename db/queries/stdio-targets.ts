// Stdio targets: written only from the config file (applied idempotently, matched by name) and by the
// poller's probes; read by the API and the dashboard without env values.
import { and, asc, eq, isNull } from 'drizzle-orm';
import type { Db, Store } from '../index';
import { newId } from '../ids';
import type { StdioTargetRow } from '../schema';
import {
  readSubjectHistory,
  stateJoin,
  subjectStateOf,
  ticksJoin,
  withTicks,
  type SubjectStateView,
} from './subjects';
import { NotFoundError } from '@/lib/errors';
import type { StdioPeerSpec } from '@/lib/probe/era-cache';
import { canonicalJson } from '@/lib/probe/catalog';
import { describeCommand } from '@/lib/probe/stdio-transport';
import type { Verdict } from '@/lib/probe/types';
import type { z } from 'zod';
import type {
  StdioEnvTemplates,
  StdioTargetDetailView,
  StdioTargetSettings,
  StdioTargetView,
} from '@/lib/schemas/stdio-target';

export type StdioTarget = StdioTargetRow;

/** The API's detail shape; the schema documents the verdict loosely, the type is the probe's Verdict. */
export type StdioTargetDetail = Omit<z.output<typeof StdioTargetDetailView>, 'verdict'> & {
  verdict: Verdict | null;
};

/** What launches the target: exactly the configured command, arguments, environment and directory. */
export function stdioSpecOf(t: StdioTarget): StdioPeerSpec {
  return { command: t.command, args: t.args, env: t.env, cwd: t.cwd };
}

function storedFields(s: StdioTargetSettings, templates: StdioEnvTemplates) {
  return {
    name: s.name,
    command: s.command,
    args: s.args,
    env: s.env,
    envTemplates: templates,
    cwd: s.cwd ?? process.cwd(),
    allowLegacy: s.allowLegacy,
    auditLegacy: s.auditLegacy,
    legacyVersions: s.legacyVersions,
    intervalMs: s.intervalMs,
    timeoutMs: s.timeoutMs,
    legacyProbeTimeoutMs: s.legacyProbeTimeoutMs,
    regions: s.regions ?? [],
  };
}

/**
 * Creates or updates the target of this name; unchanged settings write nothing. Any change of what is
 * launched drops the stored state, since it described another program.
 */
export function upsertStdioTarget(
  store: Store,
  settings: StdioTargetSettings,
  templates: StdioEnvTemplates,
  now: number,
): Promise<'created' | 'updated' | 'unchanged'> {
  return store.write((tx) => upsertIn(store, tx, settings, templates, now));
}

async function upsertIn(
  store: Store,
  tx: Db,
  settings: StdioTargetSettings,
  templates: StdioEnvTemplates,
  now: number,
): Promise<'created' | 'updated' | 'unchanged'> {
  const { subjectHistory, subjectStates, stdioTargets } = store.t;
  const wanted = storedFields(settings, templates);
  const [current] = await tx.select().from(stdioTargets).where(eq(stdioTargets.name, settings.name));
  if (!current) {
    await tx.insert(stdioTargets).values({ id: newId('sto'), ...wanted, createdAt: now, updatedAt: now });
    return 'created';
  }
  const { id, createdAt: _c, updatedAt: _u, ...stored } = current;
  // Keys sorted: PostgreSQL's jsonb gives objects back in its own key order.
  if (canonicalJson(stored) === canonicalJson(wanted)) return 'unchanged';
  await tx
    .update(stdioTargets)
    .set({ ...wanted, updatedAt: now })
    .where(eq(stdioTargets.id, id));
  const launchChanged =
    canonicalJson(stdioSpecOf(current)) !== canonicalJson(stdioSpecOf({ ...current, ...wanted }));
  if (launchChanged) {
    // Every region's state described the old program.
    await tx.delete(subjectStates).where(eq(subjectStates.targetId, id));
    await tx
      .update(subjectHistory)
      .set({ endedAt: now })
      .where(and(eq(subjectHistory.targetId, id), isNull(subjectHistory.endedAt)));
  }
  return 'updated';
}

/** Every stdio target with its settings (env values included): for the poller and export, never the API. */
export async function listStdioTargetRows(store: Store): Promise<StdioTarget[]> {
  const { stdioTargets } = store.t;
  return await store.read((db) => db.select().from(stdioTargets).orderBy(asc(stdioTargets.name)));
}

export async function getStdioTargetRow(store: Store, id: string): Promise<StdioTarget> {
  const { stdioTargets } = store.t;
  const [row] = await store.read((db) => db.select().from(stdioTargets).where(eq(stdioTargets.id, id)));
  if (!row) throw new NotFoundError('stdio target', id);
  return row;
}

function toView(t: StdioTarget, row: SubjectStateView | null): StdioTargetView {
  const s = subjectStateOf(row);
  return {
    id: t.id,
    name: t.name,
    commandLine: describeCommand(stdioSpecOf(t)),
    command: t.command,
    args: t.args,
    envNames: Object.keys(t.env).sort(),
    cwd: t.cwd,
    allowLegacy: t.allowLegacy,
    auditLegacy: t.auditLegacy,
    legacyVersions: t.legacyVersions,
    intervalMs: t.intervalMs,
    timeoutMs: t.timeoutMs,
    legacyProbeTimeoutMs: t.legacyProbeTimeoutMs,
    regions: t.regions.length > 0 ? t.regions : null,
    createdAt: t.createdAt,
    updatedAt: t.updatedAt,
    state: s
      ? {
          clientEra: s.verdict.verdict,
          reason: s.reason,
          negotiatedVersion: s.verdict.negotiatedVersion,
          probedAt: s.probedAt,
          durationMs: s.durationMs,
          fingerprintSince: s.fingerprintSince,
          probes: s.probes,
          failures: s.failures,
          consecutiveFailures: s.consecutiveFailures,
        }
      : null,
  };
}

/** All stdio targets with their latest verdict summary in `region` (the reader's), by name. */
export async function listStdioTargets(store: Store, region: string): Promise<StdioTargetView[]> {
  const { subjectStates, subjectTicks, stdioTargets } = store.t;
  return (
    await store.read((db) =>
      db
        .select({ t: stdioTargets, s: subjectStates, k: subjectTicks })
        .from(stdioTargets)
        .leftJoin(subjectStates, stateJoin(store, stdioTargets.id, region))
        .leftJoin(subjectTicks, ticksJoin(store))
        .orderBy(asc(stdioTargets.name)),
    )
  ).map(({ t, s, k }) => toView(t, withTicks(s, k)));
}

/** One stdio target: its latest verdict in `region` with the evidence, and its fingerprint spans, newest first. */
export async function getStdioTarget(
  store: Store,
  id: string,
  region: string,
  historyLimit = 100,
): Promise<StdioTargetDetail> {
  const { subjectStates, subjectTicks, stdioTargets } = store.t;
  const [row] = await store.read((db) =>
    db
      .select({ t: stdioTargets, s: subjectStates, k: subjectTicks })
      .from(stdioTargets)
      .leftJoin(subjectStates, stateJoin(store, stdioTargets.id, region))
      .leftJoin(subjectTicks, ticksJoin(store))
      .where(eq(stdioTargets.id, id)),
  );
  if (!row) throw new NotFoundError('stdio target', id);
  // The spans of the reader's region only: the region is the request's, not part of each entry.
  const history = (await readSubjectHistory(store, id, historyLimit, region)).map(
    ({ id: _id, region: _r, ...h }) => h,
  );
  return { ...toView(row.t, withTicks(row.s, row.k)), verdict: row.s?.verdict ?? null, history };
}
