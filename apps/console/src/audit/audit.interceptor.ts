import { CallHandler, ExecutionContext, Inject, Injectable, Logger, NestInterceptor } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { Observable, tap } from 'rxjs';
import { CLOCK, type Clock } from '../common/clock';
import type { AuthenticatedRequest } from '../common/principal';
import { actorOf } from './audit-actor';
import { AUDIT_ACTION_KEY } from './audit-context';
import { runInAuditScope, type AuditScope } from './audit-scope';

interface AddressedRequest extends AuthenticatedRequest {
  ip?: string;
  method: string;
  url: string;
}

/**
 * Gives each console request its audit scope (who, from where, which action) for the services'
 * auditChange calls, and checks on success that an @Audited route wrote exactly one record.
 * Runs after the auth guard, so the principal is known.
 */
@Injectable()
export class AuditInterceptor implements NestInterceptor {
  private readonly logger = new Logger('Audit');

  constructor(
    private readonly reflector: Reflector,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    if (context.getType() !== 'http') return next.handle();
    const request = context.switchToHttp().getRequest<AddressedRequest>();
    const action = this.reflector.get<string | undefined>(AUDIT_ACTION_KEY, context.getHandler()) ?? null;
    const address = request.ip ?? null;
    const scope: AuditScope = { actor: request.principal ? actorOf(request.principal, address) : null, action, clock: this.clock, recorded: 0 };
    return new Observable((subscriber) =>
      // next.handle() binds the handler to the async context it is called in: call it inside the scope.
      runInAuditScope(scope, () =>
        next
          .handle()
          .pipe(
            tap(() => {
              const expected = scope.unchanged ? 0 : 1;
              if (action !== null && scope.recorded !== expected) this.logger.error(`${request.method} ${request.url} (${action}) wrote ${scope.recorded} audit records, not ${expected}`);
              if (action === null && scope.recorded > 0) this.logger.error(`${request.method} ${request.url} wrote ${scope.recorded} audit records but is not @Audited`);
            }),
          )
          .subscribe(subscriber),
      ),
    );
  }
}
