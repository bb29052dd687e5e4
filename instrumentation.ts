// Next.js start-up hook: the poller runs inside the web server's Node runtime unless ERAWATCH_POLLER=off
// (e.g. when `npm run poller` runs it as its own process). Imported dynamically so no other runtime sees it.
export async function register(): Promise<void> {
  if (process.env.NEXT_RUNTIME !== 'nodejs') return;
  // Refuses a non-loopback bind without an admin secret, applies the config file, starts webhook delivery.
  const { startServerSide } = await import('@/lib/api/startup');
  startServerSide();
  if (process.env.ERAWATCH_POLLER === 'off') return;
  const { startPoller } = await import('@/lib/poller');
  const { createDefaultProbe } = await import('@/lib/poller/probe');
  const { instrumentProbe } = await import('@/lib/metrics/probe');
  startPoller({ probe: instrumentProbe(createDefaultProbe(process.env)) });
}
