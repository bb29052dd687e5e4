import Link from 'next/link';

/**
 * What an address with nothing behind it shows (answered with HTTP 404): a heading saying what is missing, why
 * that may be, and a way back.
 */
export function NotFoundPage({
  what = 'Not found',
  why = 'There is nothing at this address.',
  back = { href: '/', label: 'Back to the fleet' },
}: {
  what?: string;
  why?: string;
  back?: { href: string; label: string };
}) {
  return (
    <>
      <title>{`${what} · Erawatch`}</title>
      <div className="panel empty" data-testid="not-found">
        <h1>{what}</h1>
        <p>{why}</p>
        <p>
          <Link href={back.href}>{back.label}</Link>
        </p>
      </div>
    </>
  );
}
