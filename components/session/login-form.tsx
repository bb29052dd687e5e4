'use client';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { Icon } from '@/components/ui/icon';
import { browserFetcher, sendJson } from '@/lib/query/fetch-json';
import { ApiProblem } from '@/lib/query/problem';

/** Dashboard login with the admin secret; the API sets an HttpOnly session cookie. */
export function LoginForm({ next }: { next: string }) {
  const [secret, setSecret] = useState('');
  const client = useQueryClient();
  const login = useMutation({
    mutationFn: () => sendJson<unknown>(browserFetcher, 'POST', '/api/v1/session', { secret }),
    // A full load of the next page: the router's cache still holds what the pages answered while signed out
    // (their redirect to this page), and the server renders the nav for the new session.
    onSuccess: () => {
      client.clear();
      window.location.assign(next);
    },
  });
  const problem = login.error instanceof ApiProblem ? login.error : null;
  const message = problem ? (problem.fieldMessage('/secret') ?? problem.detail ?? problem.title) : null;
  const submit = (e: FormEvent) => {
    e.preventDefault();
    login.mutate();
  };
  return (
    <form
      className="form panel panel-body"
      onSubmit={submit}
      noValidate
      aria-label="Log in"
      style={{ maxWidth: 420 }}
    >
      <div className="field">
        <label htmlFor="login-secret">Admin secret</label>
        <input
          id="login-secret"
          type="password"
          autoComplete="current-password"
          value={secret}
          onChange={(e) => setSecret(e.target.value)}
          aria-invalid={message ? true : undefined}
          aria-describedby={message ? 'login-error' : 'login-help'}
        />
        {message ? (
          <span id="login-error" className="field-error" data-testid="error-secret">
            <Icon name="alert" /> {message}
          </span>
        ) : null}
        <span id="login-help" className="help">
          The value of ERAWATCH_ADMIN_SECRET on the server. The session lasts 12 hours.
        </span>
      </div>
      <div className="form-actions">
        <button type="submit" className="btn btn-primary" disabled={login.isPending}>
          Log in
        </button>
      </div>
    </form>
  );
}
