// What each role may do. Each operation in the route table (lib/api/routes.ts) names the role it needs;
// `account` (one's own tokens) needs any person. A token stands for the role of its scope: read → viewer,
// write → operator.
import { USER_ROLES, type UserRole } from '@/lib/schemas/session';
import type { TokenScope } from '@/lib/schemas/token';

export const ACCESS_ROLE = {
  viewer: 'viewer',
  operator: 'operator',
  admin: 'admin',
  account: 'viewer',
} as const satisfies Record<'viewer' | 'operator' | 'admin' | 'account', UserRole>;

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
