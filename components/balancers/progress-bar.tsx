'use client';
// Progress toward one served set: a bar with its trend on the balancer page, a compact bar with a trend arrow
// on the fleet list. The measure comes from the read (lib/rollout/progress.ts); the words from lib/ui/progress.ts.
import { useNow } from '@/components/ui/use-now';
import type { BalancerProgressView } from '@/lib/schemas/progress';
import { progressText } from '@/lib/ui/progress';

function Bar({ p, height }: { p: BalancerProgressView; height: number }) {
  const tone = p.complete
    ? 'var(--ok)'
    : p.stalled
      ? 'var(--warn)'
      : p.basis === 'window'
        ? 'var(--info)'
        : 'var(--muted)';
  return (
    <span
      role="progressbar"
      aria-label={`Nodes on the ${p.basis === 'window' ? 'rollout target' : 'largest group'}: ${p.onTarget} of ${p.available}`}
      aria-valuemin={0}
      aria-valuemax={p.available}
      aria-valuenow={p.onTarget}
      style={{
        display: 'inline-block',
        width: '100%',
        height,
        background: 'var(--muted-bg)',
        border: '1px solid var(--line)',
        borderRadius: 'var(--radius)',
        overflow: 'hidden',
        verticalAlign: 'middle',
      }}
    >
      <span
        style={{ display: 'block', height: '100%', width: `${Math.round(p.share * 100)}%`, background: tone }}
      />
    </span>
  );
}

/** The balancer page's progress panel; nothing before the first cycle. */
export function BalancerProgressPanel({
  progress: p,
}: {
  progress: BalancerProgressView | null | undefined;
}) {
  const now = useNow(5_000);
  if (!p) return null;
  const t = progressText(p, now);
  return (
    <section className="panel" aria-labelledby="progress-h" data-testid="progress">
      <div className="panel-head">
        <h2 id="progress-h">
          Progress {p.basis === 'window' ? 'toward the target' : '(no declared target)'}
        </h2>
      </div>
      <div className="panel-body">
        <p style={{ marginTop: 0 }} data-testid="progress-headline">
          {t.headline} ({t.percent}%)
        </p>
        <Bar p={p} height={12} />
        <p className="muted" data-testid="progress-trend">
          <span aria-hidden="true">{t.arrow}</span> {t.change}
          {t.revision ? ` · ${t.revision}` : ''}
        </p>
        {t.outlook ? (
          <p data-testid="progress-outlook" style={{ color: p.stalled ? 'var(--warn)' : undefined }}>
            {t.outlook}
          </p>
        ) : null}
        {p.offerWindow ? (
          <p className="muted" data-testid="progress-offer">
            Every node serving the same revision is not the same served set. Open a rollout window (below) to
            declare the target and see progress toward it.
          </p>
        ) : null}
      </div>
    </section>
  );
}

/** The fleet list's compact bar with a trend arrow; nothing before the first cycle. */
export function FleetProgressCell({ progress: p }: { progress: BalancerProgressView | null | undefined }) {
  const now = useNow(30_000);
  if (!p) return null;
  const t = progressText(p, now);
  const title = [t.headline, t.change, t.outlook].filter(Boolean).join(' · ');
  return (
    <span
      title={title}
      data-testid="fleet-progress"
      style={{ display: 'inline-flex', alignItems: 'center', gap: 4, minWidth: 90 }}
    >
      <span style={{ flex: 1, minWidth: 50 }}>
        <Bar p={p} height={6} />
      </span>
      <span className="mono">
        {p.onTarget}/{p.available}
      </span>
      <span aria-hidden="true">{t.arrow}</span>
      <span className="visually-hidden">trend {p.trend}</span>
      {p.stalled ? <span className="muted">stalled</span> : null}
    </span>
  );
}
