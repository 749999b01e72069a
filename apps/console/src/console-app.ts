import type { INestApplication } from '@nestjs/common';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { DocumentBuilder, SwaggerModule } from '@nestjs/swagger';
import { CONSOLE_FEATURE_MODULES } from './console.module';
import { API_PREFIX } from './common/access';
import { MAX_EVENT_PAYLOAD_BYTES } from '@baton/domain';
import { bodyDepthGuard, bodyParserErrorHandler, ConsoleExceptionFilter, unparsedBodyGuard } from './common/exception.filter';
import { consoleValidationPipe } from './common/validation';
import { auditScopes } from './audit';
import { answerClientErrors } from './common/client-errors';
import { CLOCK, type Clock } from './common/clock';
import { HOOKS_PATH } from './inbound-webhooks/inbound-webhook';
import { isTasksAsCodeFile, TASKS_AS_CODE_JSON_LIMIT } from './config-as-code/tasks-as-code-body';
import { securityHeaders } from './web/security-headers';
import { serveConsoleWeb } from './web/serve-web';

/** Largest JSON body the console accepts but a tasks-as-code file's (TASKS_AS_CODE_JSON_LIMIT, 4 MB); larger is a 413. (Task params are capped at 64 000 bytes.) */
export const CONSOLE_JSON_LIMIT = '1mb';

export interface ConfigureConsoleOptions {
  /** Serve the OpenAPI UI at /api/docs and the document at /api/docs-json. Default true. */
  swagger?: boolean;
  /**
   * Serve the web console (the SPA built into `dist/console-web` by `npm run build`) at `/`
   * when its build exists; a directory to serve another build. Default true.
   */
  web?: boolean | string;
}

/**
 * Applies the console's application-wide pieces to a Nest app that imports ConsoleModule.
 * Call it before `app.init()` / `app.listen()`; create the app with `{ bodyParser: false }` so
 * the console's JSON parser (1 MB limit, errors in the console's shape) is the one in use.
 *
 * - an inbound webhook's delivery (POST /api/hooks/…) kept as its raw bytes (its signature is
 *   over them), whatever its content type, up to MAX_EVENT_PAYLOAD_BYTES (413 beyond);
 * - JSON body parser limited to 1 MB (413 beyond; a tasks-as-code file's POST to 4 MB), malformed JSON or JSON nested deeper than
 *   MAX_BODY_DEPTH (512) levels → 400 naming field `body`, before any validation (a named field nested deeper than
 *   MAX_JSON_DEPTH, 32 — params, an event's payload — is refused by its own rule, naming it); a body of another
 *   content type to `/api/…` → 415 naming `content-type`;
 * - each request's audit scope (audit/audit-scopes.ts): who, from where, which action, and a check
 *   that an @Audited route that succeeded wrote exactly one record;
 * - global ValidationPipe (whitelist, forbidNonWhitelisted, transform; errors name the field), and a
 *   route that takes no body refuses one with fields (BodylessRoutes, a guard AuthModule lists after the auth guard);
 * - global exception filter: every error is an ErrorBody `{ statusCode, code, error, message, errors? }`;
 * - Swagger UI at `/api/docs`, JSON at `/api/docs-json`;
 * - the web console at `/` (its SPA routes and `/assets/`), when its build exists;
 * - security headers on every answer (CSP, frame-ancestors none, nosniff, no-referrer, no-store on
 *   `/api`; see web/security-headers.ts), no `X-Powered-By` and no `ETag`.
 *
 * The `/api` prefix is part of each console controller's path (not a global prefix), so other
 * controllers of an embedding app keep their own paths.
 */
export function configureConsoleApp(app: INestApplication, options: ConfigureConsoleOptions = {}): INestApplication {
  const express = app as NestExpressApplication;
  express.disable('x-powered-by');
  // No ETag: Express hashed every JSON answer for it (a tenth of the event loop's work under a
  // flood of searches), and `/api` answers are `no-store`, so no client ever sent it back.
  express.set('etag', false);
  express.use(securityHeaders);
  // First: the JSON parser leaves a body another parser has read alone.
  express.useBodyParser('raw', { type: isHookDelivery, limit: MAX_EVENT_PAYLOAD_BYTES });
  express.useBodyParser('json', { type: isTasksAsCodeFile, limit: TASKS_AS_CODE_JSON_LIMIT });
  express.useBodyParser('json', { limit: CONSOLE_JSON_LIMIT });
  express.use(bodyParserErrorHandler);
  express.use(bodyDepthGuard);
  express.use(unparsedBodyGuard);
  // Each request's audit scope, for every route after it (the console's and an embedding app's).
  express.use(auditScopes(app.get<unknown, Clock>(CLOCK)));
  app.useGlobalPipes(consoleValidationPipe());
  answerClientErrors(app.getHttpServer());
  const web = options.web !== false ? serveConsoleWeb(app, typeof options.web === 'string' ? options.web : undefined) : null;
  app.useGlobalFilters(new ConsoleExceptionFilter(web?.indexHtml ?? null));
  if (options.swagger !== false) {
    const config = new DocumentBuilder()
      .setTitle('Baton console API')
      .setDescription(
        'Tenant and operator REST API of Baton. Authenticate with `Authorization: Bearer <session token>` ' +
          '(POST /api/auth/login) or `X-API-Key: <key>`; the web console uses the session cookie `baton_session` the login sets ' +
          '(HttpOnly, SameSite=Strict), and a write authenticated by that cookie must carry `X-CSRF-Token: <csrfToken>` (403 otherwise). Every error is an ErrorBody: `{ statusCode, code, error, message, ' +
          'errors?: [{ field, reason }] }`, `code` stable and machine-readable (VALIDATION_FAILED, UNAUTHORIZED, FORBIDDEN, ' +
          'NOT_FOUND, CONFLICT, PAYLOAD_TOO_LARGE, INTERNAL, …), the same shape as the engine\'s.',
      )
      .setVersion('1')
      .addBearerAuth({ type: 'http', scheme: 'bearer', description: 'Session token from POST /api/auth/login' }, 'session')
      .addApiKey({ type: 'apiKey', in: 'header', name: 'X-API-Key' }, 'apiKey')
      .build();
    const document = SwaggerModule.createDocument(app, config, { include: CONSOLE_FEATURE_MODULES });
    SwaggerModule.setup(`${API_PREFIX}/docs`, app, document, { jsonDocumentUrl: `${API_PREFIX}/docs-json` });
  }
  return app;
}

/** A request to the inbound webhooks' public route, whose body the route reads as bytes. */
function isHookDelivery(request: { method?: string; url?: string }): boolean {
  return request.method === 'POST' && (request.url ?? '').startsWith(HOOKS_PATH);
}
