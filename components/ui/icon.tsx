// Small inline SVG icons (no icon font: the dashboard runs offline). Each badge pairs one with a text label.
import type { ReactElement } from 'react';
import type { IconName } from '@/lib/ui/presentation';

const PATHS: Record<IconName, ReactElement> = {
  check: (
    <>
      <circle cx="8" cy="8" r="6.5" />
      <path d="M5 8.2l2 2 4-4.4" />
    </>
  ),
  split: <path d="M8 14V8M8 8L3.5 3.5M8 8l4.5-4.5M3 6.5V3h3.5M13 6.5V3H9.5" />,
  // Non-uniform: three bars of unequal length (the nodes do not all answer alike), whatever the kind.
  nonuniform: <path d="M2 4h12M2 8h7M2 12h10M12 7l2 2M14 7l-2 2" />,
  drift: <path d="M1.5 6c2-2 3.5-2 6.5 0s4.5 2 6.5 0M1.5 11c2-2 3.5-2 6.5 0s4.5 2 6.5 0" />,
  degraded: (
    <>
      <path d="M8 1.8L15 14H1z" />
      <path d="M8 6v4M8 11.8v.4" />
    </>
  ),
  flap: <path d="M1.5 9.5L4.5 4l3 8 3-8 3 5.5" />,
  rolling: <path d="M13.5 8a5.5 5.5 0 1 1-1.6-3.9M13.5 2v3h-3" />,
  unknown: (
    <>
      <circle cx="8" cy="8" r="6.5" />
      <path d="M6.2 6.2a1.9 1.9 0 1 1 2.6 1.8c-.6.3-.8.7-.8 1.3M8 11.5v.3" />
    </>
  ),
  modern: (
    <>
      <circle cx="8" cy="8" r="6.5" />
      <path d="M8 11V5M5.5 7.5L8 5l2.5 2.5" />
    </>
  ),
  legacy: (
    <>
      <path d="M4 1.5h8M4 14.5h8M5 1.5c0 3.5 6 3.5 6 6.5s-6 3-6 6.5M11 1.5c0 3.5-6 3.5-6 6.5s6 3 6 6.5" />
    </>
  ),
  unavailable: (
    <>
      <circle cx="8" cy="8" r="6.5" />
      <path d="M5.5 5.5l5 5M10.5 5.5l-5 5" />
    </>
  ),
  lock: (
    <>
      <rect x="3" y="7" width="10" height="7.5" rx="1" />
      <path d="M5 7V5a3 3 0 0 1 6 0v2" />
    </>
  ),
  unlock: (
    <>
      <rect x="3" y="7" width="10" height="7.5" rx="1" />
      <path d="M5 7V5a3 3 0 0 1 5.8-1" />
    </>
  ),
  clock: (
    <>
      <circle cx="8" cy="8" r="6.5" />
      <path d="M8 4.5V8l2.5 1.5" />
    </>
  ),
  pause: (
    <>
      <circle cx="8" cy="8" r="6.5" />
      <path d="M6.5 5.5v5M9.5 5.5v5" />
    </>
  ),
  alert: (
    <>
      <circle cx="8" cy="8" r="6.5" />
      <path d="M8 4.5v4.2M8 11v.3" />
    </>
  ),
  info: (
    <>
      <circle cx="8" cy="8" r="6.5" />
      <path d="M8 7.2v4M8 4.8v.3" />
    </>
  ),
};

export function Icon({ name, title }: { name: IconName; title?: string }) {
  return (
    <svg
      className="icon"
      viewBox="0 0 16 16"
      width="14"
      height="14"
      fill="none"
      stroke="currentColor"
      strokeWidth="1.6"
      strokeLinecap="round"
      strokeLinejoin="round"
      aria-hidden={title ? undefined : true}
      role={title ? 'img' : undefined}
    >
      {title ? <title>{title}</title> : null}
      {PATHS[name]}
    </svg>
  );
}
