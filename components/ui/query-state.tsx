import Link from 'next/link';
import { LoginLink } from '@/components/session/role';
import { ApiProblem } from '@/lib/query/problem';
import { Icon } from './icon';

/** The one way a screen says its data could not be loaded: what failed, and that it will retry. */
export function LoadError({ error, what }: { error: unknown; what: string }) {
  const message =
    error instanceof ApiProblem ? error.message : error instanceof Error ? error.message : String(error);
  if (error instanceof ApiProblem && error.status === 404) {
    return (
      <div className="panel empty" role="alert" data-testid="not-found">
        <h2>Not found</h2>
        <p>{message}. It may have been deleted.</p>
        <p>
          <Link href="/">Back to the fleet</Link>
        </p>
      </div>
    );
  }
  if (error instanceof ApiProblem && error.status === 401) {
    return (
      <div className="notice tone-warn" role="alert" data-testid="login-needed">
        <Icon name="lock" />
        <span>
          Log in to see {what}: {message}. <LoginLink />
        </span>
      </div>
    );
  }
  return (
    <div className="notice tone-bad" role="alert">
      <Icon name="alert" />
      <span>
        Could not load {what}: {message}. Retrying on the next refresh.
      </span>
    </div>
  );
}

export function Loading({ what }: { what: string }) {
  return (
    <p className="muted" role="status">
      Loading {what}…
    </p>
  );
}
