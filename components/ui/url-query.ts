'use client';
// Screens keep their filters, sort and range in the page's query string, so a link or a reload shows the same.
// They change it in place: history.replaceState, which Next's router follows (useSearchParams sees the new
// query) without a server round trip or a history entry per keystroke. The path and the #fragment stay.

/** Rewrites the page's query string with `next` (the current one with the screen's keys changed). */
export function replaceUrlQuery(next: (current: URLSearchParams) => URLSearchParams): void {
  const qs = next(new URLSearchParams(window.location.search)).toString();
  window.history.replaceState(
    null,
    '',
    `${window.location.pathname}${qs ? `?${qs}` : ''}${window.location.hash}`,
  );
}
