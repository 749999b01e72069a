import { applyDecorators, Controller, SetMetadata } from '@nestjs/common';
import { ApiBearerAuth, ApiDefaultResponse, ApiSecurity, ApiTags } from '@nestjs/swagger';
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
  return applyDecorators(
    Controller(`${API_PREFIX}/${path}`),
    SetMetadata(CONSOLE_ROUTE_KEY, true),
    SetMetadata(ACCESS_KEY, options.access ?? 'tenant'),
    ApiTags(options.tag),
    ApiBearerAuth('session'),
    ApiSecurity('apiKey'),
    ApiDefaultResponse({ type: ErrorBodyView, description: 'Any error (4xx, 5xx): an ErrorBody' }),
  );
}
