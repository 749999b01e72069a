import { useState } from 'react';
import { get } from '../../shared/api';
import { ErrorBox, Field, PageHeader, StateBadge, Time } from '../../shared/components';
import { fmtDuration, fmtNumber, fmtPercent } from '../../shared/format';
import { useInterval, useLoad } from '../../shared/hooks';
import { t } from '../../shared/i18n/i18n';
import { RUN_STATES, type Dashboard, type LoadCount, type Tenant } from '../../shared/model';
import { Link } from '../../shared/router';
import { TenantsOverview } from './TenantsOverview';

const REFRESH_MS = 5000;

const count = (c: LoadCount) => `${fmtNumber(c.count)}${c.capped ? '+' : ''}`;

/** A tenant's last hour at a glance (GET /api/dashboard); for an operator, every tenant's side by side and the chosen one's (GET /api/operator/tenants/:id/dashboard). */
export function HomePage({ operator }: { operator: boolean }) {
  const tenants = useLoad(() => (operator ? get<Tenant[]>('/operator/tenants') : Promise.resolve([] as Tenant[])), [operator]);
  const [chosen, setChosen] = useState('');
  const tenantId = operator ? chosen || tenants.data?.[0]?.id || '' : '';
  const board = useLoad(() => (operator && !tenantId ? Promise.resolve(undefined) : get<Dashboard>(operator ? `/operator/tenants/${encodeURIComponent(tenantId)}/dashboard` : '/dashboard')), [operator, tenantId]);
  useInterval(() => void board.reload(), REFRESH_MS);
  const d = board.data;
  const ended = d ? RUN_STATES.filter((s) => (d.runs[s] ?? 0) > 0) : [];
  return (
    <>
      <PageHeader title={t('Home')}>
        {d ? (
          <span className="muted small">
            {t('As of')} <Time ms={d.at} />
          </span>
        ) : null}
      </PageHeader>
      {operator ? <TenantsOverview chosen={tenantId} onChoose={setChosen} refreshMs={REFRESH_MS} /> : null}
      {operator ? (
        <form className="filters" onSubmit={(e) => e.preventDefault()} aria-label={t('Tenant')}>
          <Field label={t('Tenant')}>
            {(p) => (
              <select {...p} name="dashboardTenant" value={tenantId} onChange={(e) => setChosen(e.target.value)}>
                {(tenants.data ?? []).map((x) => (
                  <option key={x.id} value={x.id} translate="no">
                    {x.id}
                  </option>
                ))}
              </select>
            )}
          </Field>
        </form>
      ) : null}
      <ErrorBox error={tenants.error ?? board.error} />
      {d ? (
        <>
          <dl className="kpis" aria-label={t('The last hour')} data-dashboard={d.tenantId}>
            <div className="card">
              <dt>{t('Runs in the last hour')}</dt>
              <dd data-kpi="runs">{fmtNumber(RUN_STATES.reduce((n, s) => n + (d.runs[s] ?? 0), 0))}</dd>
            </div>
            <div className="card">
              <dt>{t('Success rate')}</dt>
              <dd data-kpi="success">{fmtPercent(d.successRate)}</dd>
            </div>
            <div className="card" title={t('First attempts only; an upper bound, from fixed buckets')}>
              <dt>{t('Lateness p95')}</dt>
              <dd data-kpi="lateness">{d.latenessP95Ms === null ? '—' : `≤ ${fmtDuration(d.latenessP95Ms)}`}</dd>
            </div>
            <div className="card" title={t('Runs whose handler started more than 20 ms before their instant: a defect, each one also raised as a RUN_STARTED_EARLY alarm')}>
              <dt>{t('Early starts')}</dt>
              <dd data-kpi="early-starts">{fmtNumber(d.earlyStarts)}</dd>
            </div>
            <div className="card">
              <dt>{operator ? t('Open alarms') : <Link to="/alarms">{t('Open alarms')}</Link>}</dt>
              <dd data-kpi="alarms">{count(d.openAlarms)}</dd>
            </div>
            <div className="card">
              <dt>{operator ? t('Executors up') : <Link to="/executors">{t('Executors up')}</Link>}</dt>
              <dd data-kpi="executors">{fmtNumber(d.executorsUp)}</dd>
            </div>
          </dl>
          <h2>{t('Runs by state')}</h2>
          <p className="state-counts" data-runs-by-state>
            {ended.length
              ? ended.map((s) => (
                  <span key={s} className="state-count">
                    <StateBadge state={s} /> {fmtNumber(d.runs[s])}
                  </span>
                ))
              : t('No run in the last hour.')}
          </p>
          <h2>{t('Backlog')}</h2>
          <dl className="kpis" aria-label={t('Backlog')}>
            <div className="card" title={t('PENDING and RETRY_WAIT runs whose time has come, not claimed yet')}>
              <dt>{t('Due')}</dt>
              <dd data-kpi="due">{count(d.backlog.due)}</dd>
            </div>
            <div className="card" title={t('CLAIMED: waiting in an engine for their instant, a token or an executor')}>
              <dt>{t('Held by engines')}</dt>
              <dd data-kpi="held">{count(d.backlog.held)}</dd>
            </div>
            <div className="card" title={t('DISPATCHED and ACCEPTED whose instant has come: running, or waiting at their executor for a worker')}>
              <dt>{t('In flight')}</dt>
              <dd data-kpi="in-flight">{count(d.backlog.inFlight)}</dd>
            </div>
            <div className="card" title={t('DISPATCHED and ACCEPTED sent ahead of their instant, waiting for it at their executor: a place there, no worker')}>
              <dt>{t('Sent ahead')}</dt>
              <dd data-kpi="sent-ahead">{count(d.backlog.sentAhead)}</dd>
            </div>
            <div className="card">
              <dt>{t('Oldest due waited')}</dt>
              <dd data-kpi="oldest">{d.backlog.oldestDueAgeMs === null ? '—' : fmtDuration(d.backlog.oldestDueAgeMs)}</dd>
            </div>
          </dl>
        </>
      ) : null}
    </>
  );
}
