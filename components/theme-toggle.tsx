'use client';
// Light or dark: the dashboard follows the system's prefers-color-scheme until someone presses this button;
// their choice is remembered in localStorage and applied before the first paint by THEME_SCRIPT (app/layout).
import { useSyncExternalStore } from 'react';

export const THEME_KEY = 'erawatch-theme';
export type Theme = 'light' | 'dark';

/** Runs in <head> before the body paints: applies a remembered choice, so there is no flash of the other theme. */
export const THEME_SCRIPT = `try{var t=localStorage.getItem('${THEME_KEY}');if(t==='light'||t==='dark')document.documentElement.dataset.theme=t}catch(e){}`;

const listeners = new Set<() => void>();
const media = () => window.matchMedia('(prefers-color-scheme: dark)');

function effectiveTheme(): Theme {
  const chosen = document.documentElement.dataset.theme;
  if (chosen === 'light' || chosen === 'dark') return chosen;
  return media().matches ? 'dark' : 'light';
}

function subscribe(onChange: () => void): () => void {
  listeners.add(onChange);
  const m = media();
  m.addEventListener('change', onChange);
  return () => {
    listeners.delete(onChange);
    m.removeEventListener('change', onChange);
  };
}

export function ThemeToggle() {
  // On the server (and in the first client render) the theme is unknown: the button is rendered unpressed
  // and corrected after hydration; its size does not change, so nothing moves.
  const theme = useSyncExternalStore<Theme | null>(subscribe, effectiveTheme, () => null);
  const dark = theme === 'dark';
  const toggle = () => {
    const next: Theme = dark ? 'light' : 'dark';
    document.documentElement.dataset.theme = next;
    try {
      localStorage.setItem(THEME_KEY, next);
    } catch {
      // Storage refused (private mode): the choice holds for this page only.
    }
    listeners.forEach((l) => l());
  };
  return (
    <button
      type="button"
      className="btn btn-small topbar-btn theme-toggle"
      aria-pressed={theme === null ? undefined : dark}
      onClick={toggle}
      title={dark ? 'Switch to the light theme' : 'Switch to the dark theme'}
      data-testid="theme-toggle"
    >
      <svg viewBox="0 0 16 16" width="14" height="14" aria-hidden="true" className="icon">
        <path
          d="M13.5 9.6A5.8 5.8 0 0 1 6.4 2.5a5.8 5.8 0 1 0 7.1 7.1z"
          fill="none"
          stroke="currentColor"
          strokeWidth="1.6"
          strokeLinejoin="round"
        />
      </svg>
      <span className="topbar-label">Dark theme</span>
    </button>
  );
}
