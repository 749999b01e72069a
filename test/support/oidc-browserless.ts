/**
 * Walks an OpenID Connect sign-in the way a browser would, without one: the console's start
 * redirect, the provider's login form (a cookie jar for its cookies), and the redirect back to
 * the console's callback. The API tests of single sign-on use it; test/browser does it in Chromium.
 */
import type { ConsoleTestApp } from '../console/console-test-kit';

export interface SignInResult {
  /** Where the console's callback sent the browser (`/` on success, `/login?sso_error=…` otherwise). */
  location: string;
  /** `baton_session=<token>` when the sign-in opened a session. */
  sessionCookie: string | null;
}

export class CookieJar {
  private readonly cookies = new Map<string, string>();

  take(setCookies: readonly string[]): void {
    for (const line of setCookies) {
      const [pair] = line.split(';', 1);
      const eq = pair.indexOf('=');
      const name = pair.slice(0, eq).trim();
      if (/max-age=0/i.test(line) || pair.slice(eq + 1) === '') this.cookies.delete(name);
      else this.cookies.set(name, pair.slice(eq + 1));
    }
  }

  header(): string {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  }
}

/** The console's start: the provider URL and the pending-sign-in cookie (`baton_oidc=…`). */
export async function startSignIn(t: ConsoleTestApp): Promise<{ providerUrl: string; pendingCookie: string }> {
  const res = await t.http().get('/api/auth/oidc/start');
  if (res.status !== 302) throw new Error(`start: ${res.status}`);
  const cookie = ([] as string[]).concat(res.headers['set-cookie'] ?? []).find((c) => c.startsWith('baton_oidc='));
  return { providerUrl: res.headers['location'] as string, pendingCookie: cookie ? cookie.split(';', 1)[0] : '' };
}

/**
 * Follows the provider from `providerUrl` (logging in as `login` when it shows its form) until it
 * redirects to `redirectUrl`; answers that URL (with code and state).
 */
export async function throughProvider(providerUrl: string, redirectUrl: string, jar: CookieJar, login: string, password: string): Promise<string> {
  let url = providerUrl;
  let method = 'GET';
  let body: string | undefined;
  for (let hop = 0; hop < 20; hop++) {
    if (url.startsWith(redirectUrl)) return url;
    const res = await fetch(url, { method, body, redirect: 'manual', headers: { cookie: jar.header(), ...(body ? { 'content-type': 'application/x-www-form-urlencoded' } : {}) } });
    jar.take(res.headers.getSetCookie());
    const location = res.headers.get('location');
    if (location) {
      [url, method, body] = [new URL(location, url).href, 'GET', undefined];
      continue;
    }
    const page = await res.text();
    if (res.status === 200 && page.includes('name="login"') && method === 'GET') {
      [method, body] = ['POST', new URLSearchParams({ login, password }).toString()];
      continue;
    }
    throw new Error(`provider answered ${res.status} at ${url}: ${page.slice(0, 300)}`);
  }
  throw new Error('too many redirects at the provider');
}

/** The console's callback with the provider's answer (`callbackUrl`) and the pending cookie. */
export async function finishSignIn(t: ConsoleTestApp, callbackUrl: string, pendingCookie: string): Promise<SignInResult> {
  const url = new URL(callbackUrl);
  const res = await t.http().get(url.pathname + url.search).set('Cookie', pendingCookie);
  if (res.status !== 302) throw new Error(`callback: ${res.status} ${JSON.stringify(res.body)}`);
  const session = ([] as string[]).concat(res.headers['set-cookie'] ?? []).find((c) => c.startsWith('baton_session='));
  return { location: res.headers['location'] as string, sessionCookie: session ? session.split(';', 1)[0] : null };
}

/** A whole sign-in of `login`: start, provider, callback. */
export async function signIn(t: ConsoleTestApp, redirectUrl: string, jar: CookieJar, login: string, password: string): Promise<SignInResult> {
  const { providerUrl, pendingCookie } = await startSignIn(t);
  const callbackUrl = await throughProvider(providerUrl, redirectUrl, jar, login, password);
  return finishSignIn(t, callbackUrl, pendingCookie);
}
