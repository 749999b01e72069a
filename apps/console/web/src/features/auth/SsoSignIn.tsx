import { useEffect, useState, type FormEvent } from 'react';
import { ApiError, get, post, type Session, type SessionAnswer } from '../../shared/api';
import { Field } from '../../shared/components';
import { t } from '../../shared/i18n/i18n';

interface SsoMethods {
  oidc: { name: string; startUrl: string } | null;
  ldap: boolean;
}

type SignedIn = SessionAnswer & { user: Session['user'] };

/**
 * The login page's single sign-on: a "Sign in with <provider>" button (OpenID Connect: the
 * browser goes to the provider and comes back with a session cookie), an LDAP form, and the
 * reason of a refused sign-in (`?sso_error=`, set by the console's callback).
 */
export function SsoSignIn({ onSignedIn }: { onSignedIn: (answer: SignedIn) => void }) {
  const [methods, setMethods] = useState<SsoMethods | null>(null);
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  const [error, setError] = useState<string | null>(() => new URLSearchParams(location.search).get('sso_error'));
  const [busy, setBusy] = useState(false);
  useEffect(() => {
    get<SsoMethods>('/auth/sso').then(setMethods, () => setMethods(null));
  }, []);
  const ldapSubmit = async (e: FormEvent) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      onSignedIn(await post<SignedIn>('/auth/ldap/login', { username, password }));
    } catch (err) {
      setError(err instanceof ApiError && err.status === 401 ? t('Wrong directory username or password') : (err as Error).message);
    } finally {
      setBusy(false);
    }
  };
  if (!methods?.oidc && !methods?.ldap && !error) return null;
  return (
    <section className="card login-card sso-card" aria-label={t('Single sign-on')}>
      {error ? (
        <div className="error-box" role="alert">
          {error}
        </div>
      ) : null}
      {methods?.oidc ? (
        <a className="btn-primary" href={methods.oidc.startUrl} data-testid="oidc-sign-in">
          {t('Sign in with {{provider}}', { provider: methods.oidc.name })}
        </a>
      ) : null}
      {methods?.ldap ? (
        <form onSubmit={(e) => void ldapSubmit(e)} aria-label={t('Sign in with LDAP')}>
          <Field label={t('Directory username')}>{(p) => <input {...p} name="ldap-username" autoComplete="username" value={username} onChange={(e) => setUsername(e.target.value)} required />}</Field>
          <Field label={t('Directory password')}>
            {(p) => <input {...p} name="ldap-password" type="password" autoComplete="current-password" value={password} onChange={(e) => setPassword(e.target.value)} required />}
          </Field>
          <button type="submit" className="btn-ghost" disabled={busy}>
            {busy ? t('Signing in…') : t('Sign in with LDAP')}
          </button>
        </form>
      ) : null}
    </section>
  );
}
