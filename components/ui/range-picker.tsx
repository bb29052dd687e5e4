'use client';
import { useSearchParams } from 'next/navigation';
import { replaceUrlQuery } from './url-query';
import { RANGE_PARAM, TIME_RANGES, readRange, withRange, type TimeRange } from '@/lib/ui/time-range';

/** The range the URL names (`?range=`), the default otherwise. */
export function useTimeRange(): TimeRange {
  return readRange(useSearchParams().get(RANGE_PARAM));
}

/** 15 min … 30 d as a segmented control; the choice is kept in the URL, so a link or a reload keeps it. */
export function RangePicker({ label = 'Time range' }: { label?: string }) {
  const current = useTimeRange();
  return (
    <span className="segmented" role="group" aria-label={label} data-testid="range-picker">
      {TIME_RANGES.map((r) => (
        <button
          key={r.key}
          type="button"
          aria-pressed={r.key === current.key}
          title={`the last ${r.long}`}
          onClick={() =>
            replaceUrlQuery((params) => new URLSearchParams(withRange(params.toString(), r.key)))
          }
        >
          {r.label}
        </button>
      ))}
    </span>
  );
}
