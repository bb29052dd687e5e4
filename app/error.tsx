'use client';
import { useEffect } from 'react';

/** A screen that failed to render says so and offers a retry; the other screens keep working. */
export default function ScreenError({
  error,
  reset,
}: {
  error: Error & { digest?: string };
  reset: () => void;
}) {
  useEffect(() => {
    console.error('erawatch dashboard:', error);
  }, [error]);
  return (
    <div className="notice tone-bad" role="alert" style={{ display: 'block' }}>
      <p style={{ margin: '0 0 8px' }}>
        <strong>This screen could not be shown.</strong>{' '}
        {error.digest ? `(reference ${error.digest})` : error.message}
      </p>
      <button type="button" className="btn" onClick={reset}>
        Try again
      </button>
    </div>
  );
}
