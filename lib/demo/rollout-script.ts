// The scripted rollout of the demo's search balancer: one node at a time from legacy v1 and dual-era v2
// builds to the modern-only build, with one rollback, so the balancer goes era-split → drift → uniform.
// Time and the deploy itself are parameters, so a test can run the script without waiting.
import { SEARCH_RELEASES, type Release, type SearchRelease } from './fleet';

export interface RolloutStep {
  node: string;
  to: SearchRelease;
  /** Why this step, as printed on the console. */
  note: string;
}

/** The search nodes before the script runs (as the fleet starts them). */
export const SEARCH_INITIAL: Readonly<Record<string, SearchRelease>> = {
  'search-1': 'dual',
  'search-2': 'dual',
  'search-3': 'legacy',
  'search-4': 'legacy',
};

export const SEARCH_ROLLOUT: readonly RolloutStep[] = [
  { node: 'search-3', to: 'modern', note: 'first legacy node gets the modern-only build' },
  { node: 'search-4', to: 'modern', note: 'last legacy node upgraded: every client now selects 2026-07-28' },
  { node: 'search-4', to: 'legacy', note: 'rollback: search-4 goes back to the legacy build' },
  { node: 'search-1', to: 'modern', note: 'dual-era node moves to the modern-only build' },
  { node: 'search-4', to: 'modern', note: 'search-4 upgraded again after the fix' },
  { node: 'search-2', to: 'modern', note: 'last dual-era node upgraded: one build everywhere' },
];

/** What the demo expects the balancer to show, from what each node runs (a narration aid, not the analysis). */
export type ExpectedFlag = 'era-split' | 'drift' | 'uniform';

const CLIENT_ERA: Record<Release['kind'], 'modern' | 'legacy'> = {
  'v2-dual': 'modern',
  'v2-modern': 'modern',
  'v1-stateful': 'legacy',
  'v1-stateless': 'legacy',
  everything: 'legacy',
};

export function expectedFlag(nodes: Readonly<Record<string, SearchRelease>>): ExpectedFlag {
  const releases = Object.values(nodes).map((name) => SEARCH_RELEASES[name]);
  const eras = new Set(releases.map((r) => CLIENT_ERA[r.kind]));
  if (eras.size > 1) return 'era-split';
  const builds = new Set(releases.map((r) => `${r.kind}@${r.version}`));
  return builds.size > 1 ? 'drift' : 'uniform';
}

/** The node releases after each step, starting from `initial`; one entry per step. */
export function planRollout(
  initial: Readonly<Record<string, SearchRelease>>,
  steps: readonly RolloutStep[],
): Array<{
  step: RolloutStep;
  from: SearchRelease;
  nodes: Record<string, SearchRelease>;
  flag: ExpectedFlag;
}> {
  const nodes = { ...initial };
  return steps.map((step) => {
    const from = nodes[step.node];
    if (from === undefined) throw new RangeError(`rollout step names an unknown node '${step.node}'`);
    nodes[step.node] = step.to;
    return { step, from, nodes: { ...nodes }, flag: expectedFlag(nodes) };
  });
}

export interface RolloutDeps {
  /** Deploys `release` on the node (stop the process, start the other build on the same host:port). */
  replaceNode(node: string, release: Release): Promise<unknown>;
  /** Resolves after `ms`, or early when `signal` aborts. */
  wait(ms: number, signal: AbortSignal): Promise<void>;
  log(line: string): void;
  now(): number;
}

export interface RolloutRunOptions {
  /** Pause before each step, so the poller sees every state for a few cycles. */
  stepMs: number;
  signal: AbortSignal;
  initial?: Readonly<Record<string, SearchRelease>>;
  steps?: readonly RolloutStep[];
}

export interface RolloutReport {
  completed: number;
  total: number;
  outcome: 'finished' | 'aborted' | 'failed';
  error?: string;
}

export function describeRelease(name: SearchRelease): string {
  const r = SEARCH_RELEASES[name];
  const label = { legacy: 'legacy v1', dual: 'dual-era v2', modern: 'modern-only v2' }[name];
  return `${label} ${r.version} (${r.kind})`;
}

/** Runs the steps one by one, printing each; stops between steps when `signal` aborts. */
export async function runRolloutScript(
  deps: RolloutDeps,
  options: RolloutRunOptions,
): Promise<RolloutReport> {
  const initial = options.initial ?? SEARCH_INITIAL;
  const plan = planRollout(initial, options.steps ?? SEARCH_ROLLOUT);
  const started = deps.now();
  const stamp = () => {
    const s = Math.max(0, Math.round((deps.now() - started) / 1000));
    return `[rollout +${Math.floor(s / 60)}:${String(s % 60).padStart(2, '0')}]`;
  };
  deps.log(`${stamp()} search starts mid-rollout: expect ${expectedFlag(initial)}`);
  let completed = 0;
  for (const [i, { step, from, flag }] of plan.entries()) {
    await deps.wait(options.stepMs, options.signal);
    if (options.signal.aborted) return { completed, total: plan.length, outcome: 'aborted' };
    deps.log(
      `${stamp()} step ${i + 1}/${plan.length}: ${step.node} ${describeRelease(from)} -> ${describeRelease(step.to)}: ${step.note}`,
    );
    try {
      await deps.replaceNode(step.node, SEARCH_RELEASES[step.to]);
    } catch (err) {
      const error = err instanceof Error ? err.message : String(err);
      deps.log(`${stamp()} step ${i + 1} failed: ${error}; the rollout stops here`);
      return { completed, total: plan.length, outcome: 'failed', error };
    }
    completed++;
    deps.log(`${stamp()}   ${step.node} is up again; expect the balancer to show ${flag}`);
  }
  deps.log(
    `${stamp()} rollout finished: every search node runs ${describeRelease('modern')}; the gate for 2026-07-28 should open`,
  );
  return { completed, total: plan.length, outcome: 'finished' };
}

/** A real-time `wait` for RolloutDeps: a timer that an abort cuts short. */
export function waitFor(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
  });
}
