// Next.js start-up hook: the web server runs the worker roles (poll, deliver, maintain) in its Node runtime
// unless switched off (ERAWATCH_POLLER=off, ERAWATCH_WEBHOOKS=off, ERAWATCH_ROLES). Imported dynamically so no
// other runtime sees it.
export async function register(): Promise<void> {
  // eslint-disable-next-line no-restricted-properties -- Next.js inlines NEXT_RUNTIME at build time: not a setting
  if (process.env.NEXT_RUNTIME !== 'nodejs') return;
  // Refuses a non-loopback bind without an admin secret or an unwritable store, then starts the roles.
  const { startServerSide } = await import('@/lib/api/startup');
  await startServerSide();
}
