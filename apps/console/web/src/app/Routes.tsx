import type { Session } from '../shared/api';
import { t } from '../shared/i18n/i18n';
import { NotFound } from '../shared/NotFound';
import { Link, match } from '../shared/router';
import { AccountPage } from '../features/account/AccountPage';
import { AlarmsPage } from '../features/alarms/AlarmsPage';
import { AuditPage } from '../features/audit/AuditPage';
import { CalendarsPage } from '../features/calendars/CalendarsPage';
import { DependenciesPage } from '../features/dependencies/DependenciesPage';
import { EventDetailPage } from '../features/events/EventDetailPage';
import { EventsPage } from '../features/events/EventsPage';
import { ExecutorsPage } from '../features/executors/ExecutorsPage';
import { HomePage } from '../features/home/HomePage';
import { OperatorPage } from '../features/operator/OperatorPage';
import { RunDetailPage } from '../features/runs/RunDetailPage';
import { RetentionPage } from '../features/retention/RetentionPage';
import { RunSearchPage } from '../features/runs/RunSearchPage';
import { RunsPage } from '../features/runs/RunsPage';
import { StatsPage } from '../features/stats/StatsPage';
import { TaskEditorPage } from '../features/tasks/editor/TaskEditorPage';
import { TasksPage } from '../features/tasks/TasksPage';
import { UsersPage } from '../features/users/UsersPage';
import { WebhooksPage } from '../features/webhooks/WebhooksPage';

/** The page of a path, by role; anything else is the app's own "not found" page. */
export function Routes({ path, operator, canWrite, session }: { path: string; operator: boolean; canWrite: boolean; session: Session }) {
  const role = session.user.role;
  if (path === '/home') return <HomePage operator={operator} />;
  if (path === '/operator') return <OperatorPage role={role} />;
  if (path === '/account') return <AccountPage session={session} />;
  if (path === '/audit' && role !== 'TENANT_VIEWER') return <AuditPage operator={operator} />;
  if (path === '/users' && role !== 'TENANT_VIEWER') return <UsersPage operator={operator} me={session.user} />;
  if (operator) return <NotFoundPage path={path} home="/operator" />;
  let m: Record<string, string> | null;
  let id: number | null = null;
  if (path === '/tasks') return <TasksPage canWrite={canWrite} />;
  if (path === '/tasks/new') return <TaskEditorPage taskId={null} canWrite={canWrite} />;
  if ((m = match('/tasks/:id', path)) && (id = pathId(m.id)) !== null) return <TaskEditorPage key={id} taskId={id} canWrite={canWrite} />;
  if (path === '/dependencies') return <DependenciesPage canWrite={canWrite} />;
  if (path === '/runs') return <RunsPage canWrite={canWrite} />;
  if (path === '/runs/search') return <RunSearchPage />;
  if ((m = match('/runs/:id', path)) && (id = pathId(m.id)) !== null) return <RunDetailPage key={id} runId={id} canWrite={canWrite} />;
  if (path === '/events') return <EventsPage />;
  if ((m = match('/events/:id', path)) && (id = pathId(m.id)) !== null) return <EventDetailPage key={id} eventId={id} />;
  if (path === '/executors') return <ExecutorsPage canRotate={role === 'TENANT_ADMIN'} />;
  if (path === '/alarms') return <AlarmsPage canWrite={canWrite} />;
  if (path === '/stats') return <StatsPage />;
  if (path === '/calendars') return <CalendarsPage canWrite={canWrite} />;
  if (path === '/retention') return <RetentionPage canWrite={role === 'TENANT_ADMIN'} />;
  if (path === '/webhooks' && role === 'TENANT_ADMIN') return <WebhooksPage />;
  return <NotFoundPage path={path} home="/tasks" />;
}

/** The id in a detail page's path as the API takes ids (a positive integer, canonical decimal), or null: no object has it. */
function pathId(segment: string): number | null {
  return /^[1-9]\d*$/.test(segment) && Number.isSafeInteger(Number(segment)) ? Number(segment) : null;
}

/** Any path the console has no page for (the server answers the app for every non-API path). */
function NotFoundPage({ path, home }: { path: string; home: string }) {
  return (
    <NotFound title={t('Not found')}>
      {t('Nothing at')} <code translate="no">{path}</code>. <Link to={home}>{t('Go to the start page')}</Link>
    </NotFound>
  );
}
