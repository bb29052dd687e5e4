'use client';
import { useEffect, useState } from 'react';

/** The current time, ticking every `everyMs`, so relative ages stay honest between refetches. */
export function useNow(everyMs = 1_000): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), everyMs);
    return () => clearInterval(timer);
  }, [everyMs]);
  return now;
}
