import type { LoginResponse } from './dto/login.dto';
import type { SessionLoginResponse } from './dto/session.dto';
import type { SessionCookieSecure } from '../common/options';
import { csrfTokenOf, secureCookieFor, sessionCookieLine } from './session-cookie';

/** The part of a response a login's answer writes to (the session cookie). */
export interface HeaderResponse {
  setHeader(name: string, value: string): unknown;
}

/**
 * A login's answer, whatever proved the user (password, LDAP): sets the session cookie on
 * `response` and returns the session with the cookie's CSRF token.
 */
export function answerWithSessionCookie(
  session: LoginResponse,
  now: number,
  secure: SessionCookieSecure,
  request: Parameters<typeof secureCookieFor>[1],
  response: HeaderResponse,
): SessionLoginResponse {
  response.setHeader('Set-Cookie', sessionCookieLine(session.token, (session.expiresAt - now) / 1000, secureCookieFor(secure, request)));
  return { ...session, csrfToken: csrfTokenOf(session.token) };
}
