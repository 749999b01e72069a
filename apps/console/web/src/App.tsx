import { useEffect, useState, type FormEvent } from 'react';
import { ApiError, get, onUnauthorized, post, setCsrfToken, type Session, type SessionAnswer } from './api';
import { Field, ToastProvider } from './components';
import { LiveProvider, useLive } from './live';
import { Link, match, navigate, useLocation } from './router';
import { SsoSignIn } from './SsoSignIn';
import { AccountPage } from './pages/AccountPage';
import { AlarmsPage } from './pages/AlarmsPage';
import { DependenciesPage } from './pages/DependenciesPage';
import { ExecutorsPage } from './pages/ExecutorsPage';
import { OperatorPage } from './pages/OperatorPage';
import { RunDetailPage } from './pages/RunDetailPage';
import { RunsPage } from './pages/RunsPage';
import { StatsPage } from './pages/StatsPage';
import { TaskEditorPage } from './pages/TaskEditorPage';
import { TasksPage } from './pages/TasksPage';
import { UsersPage } from './pages/UsersPage';
import { WebhooksPage } from './pages/WebhooksPage';
import { AuditPage } from './audit/AuditPage';

const TENANT_NAV = [
  ['/tasks', 'Tasks'],
  ['/dependencies', 'Dependencies'],
  ['/runs', 'Runs'],
  ['/executors', 'Executors'],
  ['/alarms', 'Alarms'],
  ['/stats', 'Statistics'],
  ['/webhooks', 'Webhooks'],
  ['/users', 'Users'],
  ['/audit', 'Audit'],
  ['/operator', 'Operator'],
] as const;

/** A session as the API tells it (login or me): the user for the app, the CSRF token for `api`. */
function started(user: Session['user'], answer: SessionAnswer): Session {
  setCsrfToken(answer.csrfToken);
  return { user: { username: user.username, role: user.role, tenantId: user.tenantId, sso: user.sso ?? null } };
}

function ended(): null {
  setCsrfToken(null);
  return null;
}

export function App() {
  // undefined until GET /auth/me says whether the browser's session cookie is (still) good.
  const [session, setSession] = useState<Session | null | undefined>(undefined);
  const { path } = useLocation();

  useEffect(() => {
    onUnauthorized(() => setSession(ended()));
    get<SessionAnswer & Session['user']>('/auth/me').then(
      (me) => setSession(started(me, me)),
      () => setSession(ended()),
    );
  }, []);

  useEffect(() => {
    if (session === undefined) return;
    if (!session && path !== '/login') navigate(`/login?next=${encodeURIComponent(location.pathname + location.search)}`, true);
    if (session && (path === '/' || path === '/login')) navigate(session.user.role === 'OPERATOR' ? '/operator' : '/tasks', true);
  }, [session, path]);

  if (session === undefined) return null;
  if (!session) return <LoginPage onLogin={setSession} />;
  const logout = async () => {
    // An OpenID Connect user's logout goes through the provider too (the console redirects there).
    if (session.user.sso === 'oidc') return location.assign('/api/auth/oidc/logout');
    // The server ends the session and clears the cookie.
    await post('/auth/logout').catch(() => undefined);
    setSession(ended());
  };
  return (
    <LiveProvider enabled={session.user.tenantId !== null}>
      <ToastProvider canAck={session.user.role === 'TENANT_ADMIN'}>
        <Shell session={session} path={path} onLogout={() => void logout()} />
      </ToastProvider>
    </LiveProvider>
  );
}

function Shell({ session, path, onLogout }: { session: Session; path: string; onLogout: () => void }) {
  const live = useLive();
  const operator = session.user.role === 'OPERATOR';
  // Users: operators and tenant admins manage users; a viewer does not see the page.
  const nav = operator
    ? TENANT_NAV.filter(([to]) => to === '/operator' || to === '/users' || to === '/audit')
    : TENANT_NAV.filter(([to]) => (to !== '/users' && to !== '/webhooks' && to !== '/audit') || session.user.role === 'TENANT_ADMIN');
  const canWrite = session.user.role !== 'TENANT_VIEWER';
  return (
    <div className="shell">
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <header className="topbar">
        <Link to={operator ? '/operator' : '/tasks'} className="brand" aria-label="Baton home">
          <span aria-hidden="true">◢</span> Baton
        </Link>
        <nav aria-label="Main">
          <ul>
            {nav.map(([to, label]) => (
              <li key={to}>
                <Link to={to} aria-current={path === to || path.startsWith(`${to}/`) ? 'page' : undefined}>
                  {label}
                </Link>
              </li>
            ))}
          </ul>
        </nav>
        <div className="userbox">
          {!operator ? (
            <span className={`live-dot ${live.connected ? 'on' : 'off'}`} role="status" aria-label={live.connected ? 'Live updates connected' : 'Live updates offline'} data-live={live.connected ? 'on' : 'off'}>
              {live.connected ? 'Live' : 'Offline'}
            </span>
          ) : null}
          <Link to="/account" className="user" title={`${session.user.role} · my account, change my password`}>
            {session.user.username}
            {session.user.tenantId ? ` @ ${session.user.tenantId}` : ' (operator)'}
          </Link>
          <button type="button" className="btn-ghost" onClick={onLogout}>
            Log out
          </button>
        </div>
      </header>
      <main id="main" tabIndex={-1}>
        <Routes path={path} operator={operator} canWrite={canWrite} session={session} />
      </main>
    </div>
  );
}

function Routes({ path, operator, canWrite, session }: { path: string; operator: boolean; canWrite: boolean; session: Session }) {
  const role = session.user.role;
  if (path === '/operator') return <OperatorPage role={role} />;
  if (path === '/account') return <AccountPage session={session} />;
  if (path === '/audit' && role !== 'TENANT_VIEWER') return <AuditPage operator={operator} />;
  if (path === '/users' && role !== 'TENANT_VIEWER') return <UsersPage operator={operator} me={session.user.username} />;
  if (operator) return <p>Operators manage tenants, engine groups and keys on the Operator page, and users on the Users page.</p>;
  let m: Record<string, string> | null;
  if (path === '/tasks') return <TasksPage canWrite={canWrite} />;
  if (path === '/tasks/new') return <TaskEditorPage taskId={null} canWrite={canWrite} />;
  if ((m = match('/tasks/:id', path))) return <TaskEditorPage key={m.id} taskId={Number(m.id)} canWrite={canWrite} />;
  if (path === '/dependencies') return <DependenciesPage canWrite={canWrite} />;
  if (path === '/runs') return <RunsPage />;
  if ((m = match('/runs/:id', path))) return <RunDetailPage key={m.id} runId={Number(m.id)} canWrite={canWrite} />;
  if (path === '/executors') return <ExecutorsPage canRotate={role === 'TENANT_ADMIN'} />;
  if (path === '/alarms') return <AlarmsPage canWrite={canWrite} />;
  if (path === '/stats') return <StatsPage />;
  if (path === '/webhooks' && role === 'TENANT_ADMIN') return <WebhooksPage />;
  return (
    <div>
      <h1>Not found</h1>
      <p>
        Nothing at {path}. <Link to="/tasks">Go to tasks</Link>
      </p>
    </div>
  );
}

/** A tenant's user names its tenant (user names are unique per tenant only); an operator leaves it empty. */
function LoginPage({ onLogin }: { onLogin: (s: Session) => void }) {
  const [tenant, setTenant] = useState('');
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  useEffect(() => {
    document.title = 'Log in · Baton';
  }, []);
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      // The answer's bearer token is for API clients: the browser's session is the cookie the answer set.
      const answer = await post<SessionAnswer & { user: Session['user'] }>('/auth/login', { ...(tenant.trim() ? { tenant: tenant.trim() } : {}), username, password });
      const next = new URLSearchParams(location.search).get('next');
      onLogin(started(answer.user, answer));
      if (next && next.startsWith('/') && !next.startsWith('/login')) navigate(next, true);
    } catch (err) {
      setError(err instanceof ApiError && err.status === 401 ? 'Wrong tenant, username or password' : (err as Error).message);
    } finally {
      setBusy(false);
    }
  };
  return (
    <main className="login" id="main">
      <form className="card login-card" onSubmit={(e) => void submit(e)} aria-labelledby="login-title">
        <h1 id="login-title">
          <span aria-hidden="true">◢</span> Baton console
        </h1>
        <Field label="Tenant" hint="Empty for an operator">
          {(p) => <input {...p} name="tenant" autoComplete="organization" autoCapitalize="none" value={tenant} onChange={(e) => setTenant(e.target.value)} autoFocus />}
        </Field>
        <Field label="Username">{(p) => <input {...p} name="username" autoComplete="username" value={username} onChange={(e) => setUsername(e.target.value)} required />}</Field>
        <Field label="Password">
          {(p) => <input {...p} name="password" type="password" autoComplete="current-password" value={password} onChange={(e) => setPassword(e.target.value)} required />}
        </Field>
        {error ? (
          <div className="error-box" role="alert">
            {error}
          </div>
        ) : null}
        <button type="submit" className="btn-primary" disabled={busy}>
          {busy ? 'Logging in…' : 'Log in'}
        </button>
      </form>
      <SsoSignIn onSignedIn={(answer) => onLogin(started(answer.user, answer))} />
    </main>
  );
}
