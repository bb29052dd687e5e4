'use client';
import { formatAge, formatSince } from '@/lib/ui/fleet';
import { useNow } from './use-now';

export function Age({ at }: { at: number | null }) {
  const now = useNow();
  return (
    <time
      dateTime={at === null ? undefined : new Date(at).toISOString()}
      title={at === null ? undefined : new Date(at).toISOString()}
      suppressHydrationWarning
    >
      {formatAge(at, now)}
    </time>
  );
}

/** How long a condition has held, e.g. "for 4 min", with the start time on hover. */
export function Since({ at }: { at: number }) {
  const now = useNow();
  const iso = new Date(at).toISOString();
  return (
    <time
      className="muted"
      dateTime={iso}
      title={`since ${iso}`}
      suppressHydrationWarning
      data-testid="since"
    >
      {formatSince(at, now)}
    </time>
  );
}
