import { createParamDecorator, ExecutionContext } from '@nestjs/common';
import type { Role } from '@baton/domain';
import { forbidden, unauthorized } from './api-error';

/** Who is calling: a logged-in user (session) or a tenant API key. */
export interface Principal {
  kind: 'session' | 'apiKey';
  /** Username, or `api-key:<name>` for an API key. */
  username: string;
  role: Role;
  /** Null for operators only. */
  tenantId: string | null;
  /** The logged-in user; null for an API key. */
  userId: number | null;
  /**
   * The user it acts for: a session's user, an API key's owner (null: a key made before owners
   * were recorded). A key is held to what holds its owner (nobody demotes, disables or deletes
   * themselves), so the self-checks compare this, never `userId`.
   */
  actsForUserId: number | null;
  sessionId: number | null;
  apiKeyId: number | null;
  /** The single sign-on method of the user of a session (`oidc`, `ldap`); null for a password user or an API key. */
  ssoProvider: string | null;
}

export interface AuthenticatedRequest {
  principal?: Principal;
}

function principalOf(ctx: ExecutionContext): Principal {
  const principal = ctx.switchToHttp().getRequest<AuthenticatedRequest>().principal;
  if (!principal) throw unauthorized();
  return principal;
}

/** The authenticated principal. */
export const CurrentPrincipal = createParamDecorator((_data: unknown, ctx: ExecutionContext) => principalOf(ctx));

/**
 * The caller's tenant. The tenant always comes from the principal, never from the URL or body;
 * a principal without a tenant (operator) cannot reach tenant routes.
 */
export const TenantId = createParamDecorator((_data: unknown, ctx: ExecutionContext): string => {
  const principal = principalOf(ctx);
  if (!principal.tenantId) throw forbidden('This route is for tenant users');
  return principal.tenantId;
});
