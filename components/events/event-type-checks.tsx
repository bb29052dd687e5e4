'use client';
// The event-type filter of a delivery target's add form (webhooks and alert sinks): none checked sends all.
import type { Dispatch, SetStateAction } from 'react';
import { EVENT_LABELS } from '@/lib/rollout/labels';
import type { EventType } from '@/lib/rollout/types';

export function EventTypeChecks({
  legend,
  options,
  selected,
  onChange,
  error,
}: {
  legend: string;
  options: readonly EventType[];
  selected: string[];
  onChange: Dispatch<SetStateAction<string[]>>;
  error?: string | null;
}) {
  return (
    <fieldset className="field" style={{ border: 0, padding: 0, margin: 0 }}>
      <legend style={{ fontWeight: 600 }}>{legend}</legend>
      <div style={{ display: 'flex', flexWrap: 'wrap', gap: '4px 14px' }}>
        {options.map((t) => (
          <label key={t} className="check-row">
            <input
              type="checkbox"
              checked={selected.includes(t)}
              onChange={(e) =>
                onChange((cur) => (e.target.checked ? [...cur, t] : cur.filter((x) => x !== t)))
              }
            />
            {EVENT_LABELS[t]}
          </label>
        ))}
      </div>
      {error ? <span className="field-error">{error}</span> : null}
    </fieldset>
  );
}
