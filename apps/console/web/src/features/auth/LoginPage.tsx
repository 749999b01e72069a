import { useEffect, useState, type FormEvent } from 'react';
import { ApiError, post, type Session, type SessionAnswer } from '../../shared/api';
import { Field } from '../../shared/components';
import { t } from '../../shared/i18n/i18n';
import { navigate } from '../../shared/router';
import { started } from '../../shared/session';
import { PreferenceSwitches } from '../../app/PreferenceSwitches';
import { SsoSignIn } from './SsoSignIn';

/** A tenant's user names its tenant (user names are unique per tenant only); an operator leaves it empty. */
export function LoginPage({ onLogin }: { onLogin: (s: Session) => void }) {
  const [tenant, setTenant] = useState('');
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  useEffect(() => {
    document.title = `${t('Log in')} · Baton`;
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
      setError(err instanceof ApiError && err.status === 401 ? t('Wrong tenant, username or password') : (err as Error).message);
    } finally {
      setBusy(false);
    }
  };
  return (
    <main className="login" id="main">
      <form className="card login-card" onSubmit={(e) => void submit(e)} aria-labelledby="login-title">
        <h1 id="login-title">
          <span aria-hidden="true">◢</span> {t('Baton console')}
        </h1>
        <Field label={t('Tenant')} hint={t('Empty for an operator')}>
          {(p) => <input {...p} name="tenant" autoComplete="organization" autoCapitalize="none" value={tenant} onChange={(e) => setTenant(e.target.value)} autoFocus />}
        </Field>
        <Field label={t('Username')}>{(p) => <input {...p} name="username" autoComplete="username" value={username} onChange={(e) => setUsername(e.target.value)} required />}</Field>
        <Field label={t('Password')}>
          {(p) => <input {...p} name="password" type="password" autoComplete="current-password" value={password} onChange={(e) => setPassword(e.target.value)} required />}
        </Field>
        {error ? (
          <div className="error-box" role="alert">
            {error}
          </div>
        ) : null}
        <button type="submit" className="btn-primary" disabled={busy}>
          {busy ? t('Logging in…') : t('Log in')}
        </button>
      </form>
      <SsoSignIn onSignedIn={(answer) => onLogin(started(answer.user, answer))} />
      <div className="login-prefs">
        <PreferenceSwitches />
      </div>
    </main>
  );
}
