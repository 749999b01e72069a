import type { CanActivate } from '@nestjs/common';
import { currentAuditScope } from './audit-scope';

/**
 * Names an @Audited route's action in its request's audit scope (auditScopes). A route guard, so
 * it runs after the console's global auth guard and costs nothing on the routes without it.
 */
export class AuditActionGuard implements CanActivate {
  constructor(private readonly action: string) {}

  canActivate(): boolean {
    const scope = currentAuditScope();
    if (scope) scope.action = this.action;
    return true;
  }
}
