import { createHmac, timingSafeEqual } from 'node:crypto';
import type { SessionCookieSecure } from '../common/options';

/**
 * The web console's session rides in this cookie, not in script-readable storage: HttpOnly (no
 * script reads it, an injected one included), SameSite=Strict (no other site's page or link
 * makes the browser send it), Path=/ (the API and socket.io), Max-Age of the session.
 *
 * Strict rather than Lax: the SPA's HTML is public and every authenticated request is a fetch or
 * WebSocket from the console's own page, so a link from elsewhere (a chat message, an alarm
 * e-mail) still lands logged in — the page's own requests are same-site. Lax would add only
 * cross-site top-level GETs of the API, which nothing needs.
 *
 * No `__Host-` prefix: it requires Secure, and the console also runs on plain http on loopback.
 * Cookies are not told apart by port, so two consoles on one host name share the browser's
 * cookie (logging in to one logs out of the other in that browser).
 */
export const SESSION_COOKIE = 'baton_session';

/** The header a cookie-authenticated write must carry (the CSRF token of its session). */
export const CSRF_HEADER = 'X-CSRF-Token';

type Headers = Record<string, string | string[] | undefined>;

/** Set by the auth guard on a request authenticated by the session cookie: the CSRF token of its session (GET /api/auth/me gives it back). */
export interface CookieSessionRequest {
  csrfToken?: string;
}

function single(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

/** The session token in a request's `Cookie` header, if any (the first one when repeated). */
export function sessionCookieOf(headers: Headers): string | undefined {
  for (const pair of (single(headers['cookie']) ?? '').split(';')) {
    const eq = pair.indexOf('=');
    if (eq > 0 && pair.slice(0, eq).trim() === SESSION_COOKIE) {
      const value = pair.slice(eq + 1).trim();
      return value === '' ? undefined : value;
    }
  }
  return undefined;
}

/**
 * The credential AuthService should read: the `Authorization` / `X-API-Key` headers when there
 * are any (a cross-site page cannot set them, so they need no CSRF token), else the session
 * cookie as a bearer token (`cookieToken` set: writes need the CSRF token).
 */
export function requestCredential(headers: Headers): { headers: Headers; cookieToken: string | null } {
  const explicit = { authorization: headers['authorization'], 'x-api-key': headers['x-api-key'] };
  if (explicit.authorization !== undefined || explicit['x-api-key'] !== undefined) return { headers: explicit, cookieToken: null };
  const cookieToken = sessionCookieOf(headers);
  // A cookie value with whitespace is no token of ours; the bearer parser refuses it (401).
  return cookieToken === undefined ? { headers: {}, cookieToken: null } : { headers: { authorization: `Bearer ${cookieToken}` }, cookieToken };
}

/**
 * The CSRF token of a session: an HMAC keyed by the session token, so it is bound to the session,
 * needs no storage (any console of a cluster checks it) and tells nothing about the token. A page
 * of another origin can make the browser send the cookie but can read neither it nor this.
 */
export function csrfTokenOf(sessionToken: string): string {
  return createHmac('sha256', sessionToken).update('baton-csrf/1').digest('base64url');
}

/** Why the CSRF token presented with a cookie-authenticated write is refused, or null when it is right. */
export function csrfRefusal(sessionToken: string, headers: Headers): string | null {
  const presented = single(headers[CSRF_HEADER.toLowerCase()]);
  if (presented === undefined || presented === '') return 'is missing: a write authenticated by the session cookie must echo the CSRF token of POST /api/auth/login or GET /api/auth/me';
  const expected = Buffer.from(csrfTokenOf(sessionToken));
  const given = Buffer.from(presented);
  return given.length === expected.length && timingSafeEqual(given, expected) ? null : 'does not match this session';
}

/** Whether a request came over https: a TLS socket, or a TLS proxy's `X-Forwarded-Proto`. */
export function cameOverHttps(request: { headers: Headers; socket?: { encrypted?: boolean } }): boolean {
  if (request.socket?.encrypted) return true;
  return (single(request.headers['x-forwarded-proto']) ?? '').split(',', 1)[0].trim().toLowerCase() === 'https';
}

function cookieLine(value: string, maxAgeSeconds: number, secure: boolean): string {
  return `${SESSION_COOKIE}=${value}; Path=/; Max-Age=${maxAgeSeconds}; HttpOnly; SameSite=Strict${secure ? '; Secure' : ''}`;
}

/** The Set-Cookie line of a new session (Max-Age rather than Expires: the browser's clock may differ from ours). */
export function sessionCookieLine(token: string, maxAgeSeconds: number, secure: boolean): string {
  return cookieLine(token, Math.max(0, Math.floor(maxAgeSeconds)), secure);
}

/** The Set-Cookie line that removes the session cookie. */
export function clearedSessionCookieLine(secure: boolean): string {
  return cookieLine('', 0, secure);
}

/** Whether the session cookie is Secure for this request under `mode`. */
export function secureCookieFor(mode: SessionCookieSecure, request: { headers: Headers; socket?: { encrypted?: boolean } }): boolean {
  return mode === 'always' || cameOverHttps(request);
}

/**
 * Whether a WebSocket handshake's `Origin` may use the session cookie: none (not a browser), the
 * console's own origin (same host as the request's `Host`), or one of `allowedOrigins`
 * (`BATON_CONSOLE_CORS_ORIGINS`). SameSite stops other sites; this stops other origins of the
 * same site (another port or sub-domain), which the CSRF token stops for REST writes.
 */
export function socketOriginAllowed(headers: Headers, allowedOrigins: readonly string[]): boolean {
  const origin = single(headers['origin']);
  if (origin === undefined) return true;
  if (allowedOrigins.includes(origin)) return true;
  try {
    return new URL(origin).host === single(headers['host']);
  } catch {
    return false;
  }
}
