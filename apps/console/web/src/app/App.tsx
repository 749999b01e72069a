import { Fragment, useEffect, useState, type ReactNode } from 'react';
import { ApiError, get, onUnauthorized, post, type Session, type SessionAnswer } from '../shared/api';
import { ToastProvider } from '../shared/components';
import { ended, started, withServerPreferences } from '../shared/session';
import { LoginPage } from '../features/auth/LoginPage';
import { LiveProvider } from '../shared/live';
import { navigate, useLocation } from '../shared/router';
import { PreferencesProvider, usePreferences, type PreferencesOwner } from '../shared/preferences';
import { Shell } from './Shell';

/** Pauses before asking GET /auth/me again when the console could not say whether the session is good. */
const ME_RETRY_MS = [1_000, 2_000, 4_000];

/** Before login: the browser's language and theme, or what was last chosen on this login page. */
const LOGIN_OWNER: PreferencesOwner = { key: 'login' };

/**
 * Renders the page afresh when the language or the display time zone changes: every text and
 * formatted time is computed at render, so nothing shows the old language or zone.
 */
function Localized({ children }: { children: ReactNode }) {
  const { prefs } = usePreferences();
  return <Fragment key={`${prefs.language}|${prefs.timeZone}`}>{children}</Fragment>;
}

export function App() {
  // undefined until GET /auth/me says whether the browser's session cookie is (still) good.
  const [session, setSession] = useState<Session | null | undefined>(undefined);
  const { path } = useLocation();

  useEffect(() => {
    onUnauthorized(() => setSession(ended()));
    let left = true;
    const ask = (tried: number): void =>
      void get<SessionAnswer & Session['user']>('/auth/me').then(
        async (me) => left && setSession(await withServerPreferences(started(me, me))),
        (err: unknown) => {
          if (!left) return;
          // Only a 401 says the session is over. A console that could not tell (its database
          // failing over: a 500, or no answer) is asked again before the page shows the login.
          if ((err instanceof ApiError && err.status === 401) || tried >= ME_RETRY_MS.length) setSession(ended());
          else setTimeout(() => ask(tried + 1), ME_RETRY_MS[tried]);
        },
      );
    ask(0);
    return () => {
      left = false;
    };
  }, []);

  useEffect(() => {
    if (session === undefined) return;
    if (!session && path !== '/login') navigate(`/login?next=${encodeURIComponent(location.pathname + location.search)}`, true);
    if (session && (path === '/' || path === '/login')) navigate(session.user.role === 'OPERATOR' ? '/operator' : '/tasks', true);
  }, [session, path]);

  if (session === undefined) return null;
  if (!session)
    return (
      <PreferencesProvider owner={LOGIN_OWNER}>
        <Localized>
          <LoginPage onLogin={(s) => void withServerPreferences(s).then(setSession)} />
        </Localized>
      </PreferencesProvider>
    );
  // Logged in on the login page: the effect above moves on to the start page; nothing to show meanwhile.
  if (path === '/' || path === '/login') return null;
  const logout = async () => {
    // An OpenID Connect user's logout goes through the provider too (the console says where).
    if (session.user.sso === 'oidc') {
      const answer = await post<{ redirectTo: string }>('/auth/oidc/logout').catch(() => ({ redirectTo: '/login' }));
      return location.assign(answer.redirectTo);
    }
    // The server ends the session and clears the cookie.
    await post('/auth/logout').catch(() => undefined);
    setSession(ended());
  };
  return (
    <PreferencesProvider key={session.owner.key} owner={session.owner}>
      <LiveProvider enabled={session.user.tenantId !== null}>
        <ToastProvider canAck={session.user.role === 'TENANT_ADMIN'}>
          <Localized>
            <Shell session={session} path={path} onLogout={() => void logout()} />
          </Localized>
        </ToastProvider>
      </LiveProvider>
    </PreferencesProvider>
  );
}
