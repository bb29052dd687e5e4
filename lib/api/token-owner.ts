// Who a token belongs to: the person who minted it, by a key that stays the same across their sessions.
import type { TokenOwner } from '@/db/queries/tokens';
import type { Principal } from './with-api';

export function tokenOwnerOf(principal: Principal): TokenOwner {
  switch (principal.kind) {
    case 'session':
      return principal.user
        ? { by: `user:${principal.user.sub}`, name: principal.user.email ?? principal.user.name }
        : { by: 'admin', name: 'admin secret' };
    case 'admin':
      return { by: 'admin', name: 'admin secret' };
    case 'token':
      return { by: `token:${principal.id}`, name: principal.name };
    default:
      return { by: 'local', name: 'local mode' };
  }
}
