/** The console REST API, same origin (`/api`), authenticated by the session cookie of the login. */

import type { Role } from '@baton/domain/types';
import type { ErrorBody } from '@baton/protocol/error-body';
import { apiErrorText } from './api-error-text';
import type { PreferencesOwner } from './preferences';

export type { ErrorCode, FieldError } from '@baton/protocol/error-body';

/** Every error the API answers: the ErrorBody of @baton/protocol, and the keys some routes add. */
export type ApiErrorBody = ErrorBody & { cycle?: string[]; dependencyIds?: number[] };

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly body: ApiErrorBody,
  ) {
    super(apiErrorText(body) || `HTTP ${status}`);
  }

  /** Field → reason, for showing errors beside the fields. */
  fieldErrors(): Record<string, string> {
    const out: Record<string, string> = {};
    for (const e of this.body.errors ?? []) out[e.field] = out[e.field] ? `${out[e.field]}; ${e.reason}` : e.reason;
    return out;
  }
}

/** Whether a load failed because the API has no such object for this tenant (404: missing, or another tenant's). */
export function isNotFound(error: unknown): boolean {
  return error instanceof ApiError && error.status === 404;
}

/**
 * The logged-in user. The session itself is the HttpOnly cookie the login set: no script of the
 * page (an injected one included) can read it, and the SPA never stores a token.
 */
export interface Session {
  /** `sso`: the single sign-on method of the user (`oidc`, `ldap`), null or absent for a password user. */
  user: { username: string; role: Role; tenantId: string | null; sso?: string | null };
  /** Whose preferences (language, theme, time zone) apply, and where they are kept. */
  owner: PreferencesOwner;
}

/** What POST /auth/login and GET /auth/me give the SPA: the user, and the CSRF token of the session. */
export interface SessionAnswer {
  csrfToken: string | null;
}

/**
 * The CSRF token of the session, in memory only (a reload asks GET /auth/me again): the API refuses a
 * cookie-authenticated write without it, so another page that makes the browser send the cookie
 * cannot write.
 */
let csrfToken: string | null = null;
export function setCsrfToken(token: string | null): void {
  csrfToken = token;
}

const SAFE_METHODS = new Set(['GET', 'HEAD']);

let unauthorizedHandler: () => void = () => undefined;
export function onUnauthorized(handler: () => void): void {
  unauthorizedHandler = handler;
}

/**
 * The API requests of the page, on `<html>`: `data-api-pending` those in flight, `data-api-sent`
 * those ever sent. A page has settled (every load it asked for answered, and none asked for since)
 * when pending is 0 and sent has not moved across a frame: what a browser test waits for before it
 * reads or photographs a page, instead of guessing how long its second loads take.
 */
let pending = 0;
let sent = 0;
function count(change: 0 | 1 | -1): void {
  pending += change;
  if (change === 1) sent += 1;
  document.documentElement.dataset.apiPending = String(pending);
  document.documentElement.dataset.apiSent = String(sent);
}
// From the start: a console page always has both, before its first request.
if (typeof document !== 'undefined') count(0);

export async function api<T>(method: string, path: string, body?: unknown): Promise<T> {
  count(1);
  try {
    return await request<T>(method, path, body);
  } finally {
    count(-1);
  }
}

async function request<T>(method: string, path: string, body?: unknown): Promise<T> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (body !== undefined) headers['content-type'] = 'application/json';
  if (csrfToken && !SAFE_METHODS.has(method)) headers['x-csrf-token'] = csrfToken;
  const res = await fetch(`/api${path}`, { method, headers, credentials: 'same-origin', body: body === undefined ? undefined : JSON.stringify(body) });
  if (res.status === 204) return undefined as T;
  const text = await res.text();
  const data = text ? (JSON.parse(text) as unknown) : undefined;
  if (!res.ok) {
    if (res.status === 401 && !path.startsWith('/auth/login')) unauthorizedHandler();
    // The API always sends an ErrorBody; no body means something in between answered (a proxy, the dev server).
    const errorBody = (data ?? { statusCode: res.status, code: 'UNAVAILABLE', error: res.statusText, message: res.statusText || `HTTP ${res.status}` }) as ApiErrorBody;
    throw new ApiError(res.status, errorBody);
  }
  return data as T;
}

export const get = <T>(path: string) => api<T>('GET', path);
export const post = <T>(path: string, body?: unknown) => api<T>('POST', path, body ?? {});
export const put = <T>(path: string, body: unknown) => api<T>('PUT', path, body);
export const patch = <T>(path: string, body: unknown) => api<T>('PATCH', path, body);
export const del = <T>(path: string) => api<T>('DELETE', path);

/** `?a=1&b=x` from the defined values. */
export function qs(params: Record<string, string | number | boolean | undefined | null | readonly string[]>): string {
  const p = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) {
    if (v === undefined || v === null || v === '' || (Array.isArray(v) && v.length === 0)) continue;
    p.set(k, Array.isArray(v) ? v.join(',') : String(v));
  }
  const s = p.toString();
  return s ? `?${s}` : '';
}
