// What each role may do. Until every operation is declared in one route table, the role a route needs follows
// from the access level it declares today: read → viewer, write → operator, admin → admin, and `account` (one's
// own tokens) → any person. A token stands for the role of its scope: read → viewer, write → operator.
import { USER_ROLES, type UserRole } from '@/lib/schemas/session';
import type { TokenScope } from '@/lib/schemas/token';

export const ACCESS_ROLE = {
  read: 'viewer',
  write: 'operator',
  admin: 'admin',
  account: 'viewer',
} as const satisfies Record<'read' | 'write' | 'admin' | 'account', UserRole>;

export function accessRole(access: keyof typeof ACCESS_ROLE): UserRole {
  return ACCESS_ROLE[access];
}

export function roleAtLeast(role: UserRole, need: UserRole): boolean {
  return USER_ROLES.indexOf(role) >= USER_ROLES.indexOf(need);
}

export function tokenScopeRole(scope: TokenScope): UserRole {
  return scope === 'write' ? 'operator' : 'viewer';
}

/** The highest scope a person of `role` may mint. */
export function maxTokenScope(role: UserRole): TokenScope {
  return role === 'viewer' ? 'read' : 'write';
}

type RolePrincipal =
  | { kind: 'token'; scope: TokenScope }
  | { kind: 'admin' }
  | { kind: 'session'; role: UserRole }
  | { kind: 'local' }
  | { kind: 'anonymous' };

/** The role a caller acts with: the admin secret and local mode are admin; null when anonymous. */
export function principalRole(p: RolePrincipal): UserRole | null {
  switch (p.kind) {
    case 'token':
      return tokenScopeRole(p.scope);
    case 'session':
      return p.role;
    case 'admin':
    case 'local':
      return 'admin';
    case 'anonymous':
      return null;
  }
}
