import Link from 'next/link';

export default function NotFound() {
  return (
    <div className="panel empty">
      <h2>Not found</h2>
      <p>There is nothing at this address. The balancer or node may have been deleted.</p>
      <p>
        <Link href="/">Back to the fleet</Link>
      </p>
    </div>
  );
}
