// Subject claims: whoever probes a balancer's or stdio target's nodes (a scheduled cycle or a probe-now, in any
// process) holds its claim for the duration, so one node is never probed twice at once.
import { writeTransaction, type Store } from '@/db/index';

/** Takes the claim when it is free, expired or already this holder's; false while someone else holds it. */
export function claimSubject(
  store: Store,
  subjectId: string,
  holder: string,
  ttlMs: number,
  now: number,
): boolean {
  return writeTransaction(store, () => {
    const current = store.sqlite
      .prepare('SELECT holder, expires_at AS expiresAt FROM subject_claims WHERE subject_id = ?')
      .get(subjectId) as { holder: string; expiresAt: number } | undefined;
    if (current && current.holder !== holder && current.expiresAt > now) return false;
    store.sqlite
      .prepare(
        `INSERT INTO subject_claims (subject_id, holder, expires_at) VALUES (?, ?, ?)
         ON CONFLICT(subject_id) DO UPDATE SET holder = excluded.holder, expires_at = excluded.expires_at`,
      )
      .run(subjectId, holder, now + ttlMs);
    return true;
  });
}

export function releaseSubject(store: Store, subjectId: string, holder: string): void {
  writeTransaction(store, () => {
    store.sqlite
      .prepare('DELETE FROM subject_claims WHERE subject_id = ? AND holder = ?')
      .run(subjectId, holder);
  });
}
