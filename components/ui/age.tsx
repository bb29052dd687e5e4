'use client';
import { formatAge } from '@/lib/ui/fleet';
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
