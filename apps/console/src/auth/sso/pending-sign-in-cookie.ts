import type { PendingSignIn } from './oidc.service';

/**
 * The state, nonce and PKCE verifier of an OpenID Connect sign-in ride in this cookie between the
 * start and the callback, so any console of a cluster can finish it. It binds the sign-in to the
 * browser that started it: a callback URL replayed in another browser (or forged with another
 * state) finds no cookie, or a state that does not match. HttpOnly; SameSite=Lax because the
 * callback is a top-level navigation coming from the provider's site; only the callback's path.
 */
export const PENDING_COOKIE = 'baton_oidc';
const PATH = '/api/auth/oidc';
const MAX_AGE_S = 600;

export function pendingCookieLine(pending: PendingSignIn, secure: boolean): string {
  const value = Buffer.from(JSON.stringify(pending)).toString('base64url');
  return `${PENDING_COOKIE}=${value}; Path=${PATH}; Max-Age=${MAX_AGE_S}; HttpOnly; SameSite=Lax${secure ? '; Secure' : ''}`;
}

export function clearedPendingCookieLine(secure: boolean): string {
  return `${PENDING_COOKIE}=; Path=${PATH}; Max-Age=0; HttpOnly; SameSite=Lax${secure ? '; Secure' : ''}`;
}

/** The pending sign-in of a request's cookies, or null when there is none (or it is not ours). */
export function pendingSignInOf(cookieHeader: string | undefined): PendingSignIn | null {
  for (const pair of (cookieHeader ?? '').split(';')) {
    const eq = pair.indexOf('=');
    if (eq < 0 || pair.slice(0, eq).trim() !== PENDING_COOKIE) continue;
    try {
      const parsed: unknown = JSON.parse(Buffer.from(pair.slice(eq + 1).trim(), 'base64url').toString('utf8'));
      if (isPending(parsed)) return parsed;
    } catch {
      return null;
    }
  }
  return null;
}

function isPending(value: unknown): value is PendingSignIn {
  const v = value as Partial<PendingSignIn> | null;
  return typeof v?.state === 'string' && typeof v.nonce === 'string' && typeof v.verifier === 'string';
}
