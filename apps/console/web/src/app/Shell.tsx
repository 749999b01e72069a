import type { Session } from '../shared/api';
import { t } from '../shared/i18n/i18n';
import { codeLabel } from '../shared/labels';
import { useLive } from '../shared/live';
import { Link } from '../shared/router';
import { PreferenceSwitches } from './PreferenceSwitches';
import { Routes } from './Routes';

const TENANT_NAV = [
  ['/home', () => t('Home')],
  ['/tasks', () => t('Tasks')],
  ['/dependencies', () => t('Dependencies')],
  ['/runs', () => t('Runs')],
  ['/events', () => t('Events')],
  ['/executors', () => t('Executors')],
  ['/alarms', () => t('Alarms')],
  ['/stats', () => t('Statistics')],
  ['/calendars', () => t('Calendars')],
  ['/retention', () => t('Retention')],
  ['/webhooks', () => t('Webhooks')],
  ['/users', () => t('Users')],
  ['/audit', () => t('Audit')],
  ['/operator', () => t('Operator')],
] as const;

/** The top bar (brand, navigation by role, live status, the user) over the page of the path. */
export function Shell({ session, path, onLogout }: { session: Session; path: string; onLogout: () => void }) {
  const live = useLive();
  const operator = session.user.role === 'OPERATOR';
  // Users: operators and tenant admins manage users; a viewer does not see the page.
  const nav = operator
    ? TENANT_NAV.filter(([to]) => to === '/home' || to === '/operator' || to === '/users' || to === '/audit')
    : TENANT_NAV.filter(([to]) => (to !== '/users' && to !== '/webhooks' && to !== '/audit') || session.user.role === 'TENANT_ADMIN');
  const canWrite = session.user.role !== 'TENANT_VIEWER';
  return (
    <div className="shell">
      <a className="skip-link" href="#main">
        {t('Skip to content')}
      </a>
      <header className="topbar">
        <Link to={operator ? '/operator' : '/tasks'} className="brand" aria-label={t('Baton home')}>
          <span aria-hidden="true">◢</span> Baton
        </Link>
        <nav aria-label={t('Main')}>
          <ul>
            {nav.map(([to, label]) => (
              <li key={to}>
                <Link to={to} aria-current={path === to || path.startsWith(`${to}/`) ? 'page' : undefined}>
                  {to === '/operator' && !operator ? t('API keys') : label()}
                </Link>
              </li>
            ))}
          </ul>
        </nav>
        <div className="userbox">
          {!operator ? (
            <span className={`live-dot ${live.connected ? 'on' : 'off'}`} role="status" aria-label={live.connected ? t('Live updates connected') : t('Live updates offline')} data-live={live.connected ? 'on' : 'off'}>
              {live.connected ? t('Live') : t('Offline')}
            </span>
          ) : null}
          <Link to="/account" className="user" title={t('{{role}} · my account, change my password', { role: codeLabel(session.user.role) })}>
            <span translate="no">{session.user.username}</span>
            {session.user.tenantId ? <span translate="no">{` @ ${session.user.tenantId}`}</span> : ` ${t('(operator)')}`}
          </Link>
          <PreferenceSwitches />
          <button type="button" className="btn-ghost" onClick={onLogout}>
            {t('Log out')}
          </button>
        </div>
      </header>
      <main id="main" tabIndex={-1}>
        <Routes path={path} operator={operator} canWrite={canWrite} session={session} />
      </main>
    </div>
  );
}
