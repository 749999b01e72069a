import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import type { INestApplication } from '@nestjs/common';
import type { NestExpressApplication } from '@nestjs/platform-express';

/** The little of Express's request/response this file uses (the repo has no @types/express). */
interface Request {
  method: string;
  path: string;
}
interface Response {
  setHeader(name: string, value: string): void;
  type(type: string): Response;
  send(body: string): void;
  sendFile(path: string): void;
}
type NextFunction = () => void;

/**
 * The first segments of the web console's own pages (apps/console/web/src/app/Routes.tsx and App.tsx;
 * console-pages.spec.ts holds the two lists together): a GET of `/`, `/<page>` or `/<page>/…` is
 * answered 200 with index.html, so a bookmark or a reload of any page loads the app. Any other path a
 * browser loads gets the app too, as a 404 that it shows as its not-found page (ConsoleExceptionFilter).
 */
export const CONSOLE_PAGES = ['login', 'home', 'operator', 'account', 'audit', 'users', 'tasks', 'dependencies', 'runs', 'events', 'executors', 'alarms', 'stats', 'calendars', 'retention', 'webhooks'] as const;

const CONSOLE_WEB_ROUTES = new RegExp(`^/(?:$|(?:${CONSOLE_PAGES.join('|')})(?:/|$))`);

/**
 * Where the web console's production build is: `BATON_CONSOLE_WEB_DIR`, else `dist/console-web`
 * under the repository root (found from this file, whether it runs from `dist/` or from source).
 */
export function consoleWebDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.BATON_CONSOLE_WEB_DIR) return resolve(env.BATON_CONSOLE_WEB_DIR);
  let dir = __dirname;
  for (;;) {
    if (existsSync(join(dir, 'package.json')) && existsSync(join(dir, 'apps'))) return join(dir, 'dist', 'console-web');
    const up = dirname(dir);
    if (up === dir) return resolve('dist', 'console-web');
    dir = up;
  }
}

/**
 * Serves the web console (a single-page app, same origin as the API) when its build exists:
 * `/assets/*` as immutable static files, and index.html for the SPA's own routes (`/`,
 * `/tasks/…`, `/runs/…`, …). Nothing else is touched, so `/api`, `/socket.io` and an embedding
 * app's routes (the engine's callbacks, `/health`, `/metrics`) keep working. Returns the
 * directory served and its index.html (ConsoleExceptionFilter answers a browser's unknown page
 * with it, a 404 the app shows as its not-found page), or null when there is no build (`npm run build` makes it).
 */
export function serveConsoleWeb(app: INestApplication, dir = consoleWebDir()): { dir: string; indexHtml: () => string } | null {
  const indexFile = join(dir, 'index.html');
  if (!existsSync(indexFile)) return null;
  const express = app as NestExpressApplication;
  // Misses (and refused paths such as `..`) fall through to Nest's 404 NOT_FOUND: with
  // fallthrough off, serve-static's own 404/403 error reached the exception filter as a 500.
  express.useStaticAssets(join(dir, 'assets'), { prefix: '/assets/', index: false, immutable: true, maxAge: '365d', fallthrough: true });
  let index: string | null = null;
  const indexHtml = () => (index ??= readFileSync(indexFile, 'utf8'));
  express.use((req: Request, res: Response, next: NextFunction) => {
    if ((req.method !== 'GET' && req.method !== 'HEAD') || !CONSOLE_WEB_ROUTES.test(req.path)) return next();
    res.setHeader('cache-control', 'no-cache');
    res.type('html').send(indexHtml());
  });
  for (const file of ['favicon.svg']) {
    const path = join(dir, file);
    if (existsSync(path)) express.use(`/${file}`, (_req: Request, res: Response) => res.sendFile(path));
  }
  return { dir, indexHtml };
}
