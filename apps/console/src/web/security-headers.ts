import type { HttpRequest } from '../common/http';
import { API_PREFIX } from '../common/access';

/**
 * The Content-Security-Policy of every console answer. What the web console (a Vite build: one
 * module script and one stylesheet from /assets) and the Swagger UI at /api/docs need, nothing more:
 * - scripts only from this origin, no inline script, no eval;
 * - `connect-src 'self'`: REST and socket.io on this origin (CSP 3 `'self'` covers ws:/wss: of it);
 * - `style-src 'unsafe-inline'`: the Swagger UI page has inline `<style>` blocks and style
 *   attributes (styles cannot run code, scripts stay strict);
 * - `img-src data:`: Swagger UI's inline icons; `frame-ancestors 'none'`: the console is never framed.
 */
export const CONSOLE_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "font-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

/** The headers every answer carries, socket.io's too (its server answers /socket.io before Express: RealtimeGateway adds them). */
export const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'Content-Security-Policy': CONSOLE_CSP,
  'X-Frame-Options': 'DENY',
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
};

/**
 * Security headers on every console answer (SPA, assets, API, errors): the CSP above,
 * `X-Frame-Options: DENY` (frame-ancestors for older browsers), `X-Content-Type-Options: nosniff`,
 * `Referrer-Policy: no-referrer`, and `Cache-Control: no-store` on `/api` answers (they carry
 * tenant data and are never worth caching). Set before routing, so 404s and errors have them too.
 */
export function securityHeaders(req: HttpRequest, res: { setHeader(name: string, value: string): unknown }, next: () => void): void {
  for (const [name, value] of Object.entries(SECURITY_HEADERS)) res.setHeader(name, value);
  const path = req.url.split('?', 1)[0];
  if (path === `/${API_PREFIX}` || path.startsWith(`/${API_PREFIX}/`)) res.setHeader('Cache-Control', 'no-store');
  next();
}
