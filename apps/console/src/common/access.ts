import { applyDecorators, Controller, SetMetadata } from '@nestjs/common';
import { PATH_METADATA } from '@nestjs/common/constants';
import { ApiBearerAuth, ApiDefaultResponse, ApiOperation, ApiSecurity, ApiTags } from '@nestjs/swagger';
import { ErrorBodyView } from './error-body.view';

/**
 * Who may call a console route:
 * - `public`: anyone (login, health);
 * - `authenticated`: any principal (me, logout);
 * - `tenant`: tenant principals; safe methods (GET/HEAD) for TENANT_VIEWER and TENANT_ADMIN,
 *   every other method for TENANT_ADMIN only (so a viewer gets 403 on any write);
 * - `tenant-admin`: TENANT_ADMIN only, whatever the method;
 * - `operator`: OPERATOR only.
 */
export type Access = 'public' | 'authenticated' | 'tenant' | 'tenant-admin' | 'operator';

export const ACCESS_KEY = 'baton:console:access';
export const CONSOLE_ROUTE_KEY = 'baton:console:route';

/** Overrides a route's (or a controller's) access rule. */
export const RouteAccess = (access: Access) => SetMetadata(ACCESS_KEY, access);

/** Shortcut for `RouteAccess('public')`. */
export const Public = () => RouteAccess('public');

/** The URL prefix of every console route. */
export const API_PREFIX = 'api';

/**
 * A console controller: mounted under `/api/<path>`, guarded by the console's auth guard
 * (default access `tenant`), tagged in the OpenAPI document, its errors documented as ErrorBody.
 *
 * The prefix lives here rather than in `app.setGlobalPrefix`, and the guard acts only on
 * controllers marked by this decorator, so an embedded app can mount other controllers
 * (the engine's callback API) beside the console without inheriting either.
 */
export function ConsoleController(path: string, options: { tag: string; access?: Access }): ClassDecorator {
  const access = options.access ?? 'tenant';
  return applyDecorators(
    Controller(`${API_PREFIX}/${path}`),
    SetMetadata(CONSOLE_ROUTE_KEY, true),
    SetMetadata(ACCESS_KEY, access),
    ApiTags(options.tag),
    ApiBearerAuth('session'),
    ApiSecurity('apiKey'),
    ApiDefaultResponse({ type: ErrorBodyView, description: 'Any error (4xx, 5xx): an ErrorBody' }),
    documentPublicRoutes(access),
  );
}

/**
 * In the OpenAPI document, `security: []` on each route the guard lets through without credentials
 * (its access `public`, its own or its controller's, as the guard reads it): the controller's
 * session and API key requirements are for the others. A class decorator, so it runs after the
 * methods' own (`@Public()`, `@RouteAccess`, `@ApiOperation`) and sees them. The operation's own
 * `security` is the one the document keeps (it replaces the controller's, not merged with it).
 */
function documentPublicRoutes(controllerAccess: Access): ClassDecorator {
  return (target) => {
    const prototype = target.prototype as Record<string, unknown>;
    for (const name of Object.getOwnPropertyNames(prototype)) {
      const descriptor = Object.getOwnPropertyDescriptor(prototype, name);
      const handler: unknown = descriptor?.value;
      if (typeof handler !== 'function' || Reflect.getMetadata(PATH_METADATA, handler) === undefined) continue;
      const access = (Reflect.getMetadata(ACCESS_KEY, handler) as Access | undefined) ?? controllerAccess;
      // `summary: undefined` leaves the route's own summary: the decorator merges into its operation.
      if (access === 'public') ApiOperation({ summary: undefined, security: [] })(prototype, name, descriptor as PropertyDescriptor);
    }
  };
}
