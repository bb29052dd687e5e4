import { formatMix, type EraMix } from '@/lib/ui/fleet';

/** A stacked bar (patterned per era, so it does not rely on colour) with the counts as text beside it. */
export function EraMixBar({ mix }: { mix: EraMix }) {
  const total = mix.modern + mix.legacy + mix.unavailable;
  const text = formatMix(mix);
  return (
    <span className="nowrap" style={{ display: 'inline-flex', gap: 8, alignItems: 'center', minWidth: 0 }}>
      <span className="mix" style={{ width: 70 }} aria-hidden="true">
        {total > 0 ? (
          <>
            <span className="mix-modern" style={{ width: `${(mix.modern / total) * 100}%` }} />
            <span className="mix-legacy" style={{ width: `${(mix.legacy / total) * 100}%` }} />
            <span className="mix-unavailable" style={{ width: `${(mix.unavailable / total) * 100}%` }} />
          </>
        ) : null}
      </span>
      <span className="mix-text">{text}</span>
    </span>
  );
}
