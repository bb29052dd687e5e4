'use client';
import { formatAge } from '@/lib/ui/fleet';
import { useNow } from './use-now';

/** "2026-12-06 08:19:17.123 UTC": the exact time, shown on hover. */
export function exactTime(at: number): string {
  return `${new Date(at).toISOString().replace('T', ' ').slice(0, 23)} UTC`;
}

/**
 * A moment as people read it: the UTC time (`stamp`) with how long ago beside it ("3 min ago"), and the exact
 * time, to the millisecond, on hover.
 */
export function When({ at, stamp }: { at: number; stamp: (at: number) => string }) {
  const now = useNow(10_000);
  return (
    <time
      dateTime={new Date(at).toISOString()}
      title={exactTime(at)}
      suppressHydrationWarning
      data-testid="when"
    >
      <span className="mono">{stamp(at)}</span>{' '}
      <span className="muted" data-testid="when-relative">
        {formatAge(at, now)}
      </span>
    </time>
  );
}
