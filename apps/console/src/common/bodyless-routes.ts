import type { CanActivate, ExecutionContext } from '@nestjs/common';
import { ROUTE_ARGS_METADATA } from '@nestjs/common/constants';
import { RouteParamtypes } from '@nestjs/common/enums/route-paramtypes.enum';
import { badRequest } from './api-error';

/**
 * A route that takes no body (POST /api/runs/{id}/rerun, …/cancel) refuses one with fields, naming
 * each as an unknown field, as a route with a body refuses a field its DTO does not declare (the
 * validation pipe): `{"params": {...}}` sent to a re-run was answered 201 with the old params, the
 * caller never told that its params went nowhere. A route "takes a body" when its handler has a
 * @Body() or a @Req() parameter (which may read it: an inbound webhook's raw bytes).
 *
 * A guard, after the console's auth guard (AuthModule lists it second: a caller not let in gets its
 * 401 before its body is looked at), not an interceptor: a global interceptor puts every request
 * of the app through an rxjs pipeline, which cost the console 0.19–0.36 ms a request
 * (`bench console-request --kinds=me,trigger`, three A/B rounds, 2026-12-07: GET /api/auth/me
 * 0.51–0.84 ms with it, 0.32–0.48 without).
 */
export class BodylessRoutes implements CanActivate {
  /** Per handler: whether it takes a body (metadata read once). */
  private readonly takes = new WeakMap<object, boolean>();

  canActivate(context: ExecutionContext): boolean {
    if (context.getType() !== 'http') return true;
    const body = context.switchToHttp().getRequest<{ body?: unknown }>().body;
    const fields = body !== null && typeof body === 'object' ? Object.keys(body) : [];
    if (fields.length > 0 && !this.takesBody(context)) throw badRequest(fields.map((field) => ({ field, reason: 'unknown field (this route takes no body)' })));
    return true;
  }

  private takesBody(context: ExecutionContext): boolean {
    const handler = context.getHandler();
    let takes = this.takes.get(handler);
    if (takes === undefined) {
      const args = (Reflect.getMetadata(ROUTE_ARGS_METADATA, context.getClass(), handler.name) ?? {}) as Record<string, unknown>;
      takes = Object.keys(args).some((key) => key.startsWith(`${RouteParamtypes.BODY}:`) || key.startsWith(`${RouteParamtypes.REQUEST}:`));
      this.takes.set(handler, takes);
    }
    return takes;
  }
}
