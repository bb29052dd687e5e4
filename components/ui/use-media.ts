'use client';
import { useSyncExternalStore } from 'react';

/** Whether a media query matches; false on the server and in the first client render (then corrected). */
export function useMediaQuery(query: string): boolean {
  return useSyncExternalStore(
    (onChange) => {
      const m = window.matchMedia(query);
      m.addEventListener('change', onChange);
      return () => m.removeEventListener('change', onChange);
    },
    () => window.matchMedia(query).matches,
    () => false,
  );
}

/** The width below which wide lists become cards (the same as `--narrow` in app/globals.css). */
export const NARROW_QUERY = '(max-width: 700px)';
