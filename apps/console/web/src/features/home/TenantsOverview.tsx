import { get, qs } from '../../shared/api';
import { ErrorBox } from '../../shared/components';
import { CursorPager, useCursorPages } from '../../shared/CursorPager';
import { fmtDuration, fmtNumber, fmtPercent } from '../../shared/format';
import { useInterval, useLoad } from '../../shared/hooks';
import { t } from '../../shared/i18n/i18n';
import { RUN_STATES, type Dashboard, type LoadCount, type Page } from '../../shared/model';

const PAGE_SIZE = 20;

const count = (c: LoadCount) => `${fmtNumber(c.count)}${c.capped ? '+' : ''}`;

/**
 * The operator's view of every tenant's last hour side by side (GET /api/operator/dashboards, a
 * page of tenants at a time), so the one in trouble shows without opening each; a click opens
 * that tenant's dashboard below.
 */
export function TenantsOverview({ chosen, onChoose, refreshMs }: { chosen: string; onChoose: (tenantId: string) => void; refreshMs: number }) {
  const pages = useCursorPages();
  const { cursor } = pages;
  const page = useLoad(() => get<Page<Dashboard>>(`/operator/dashboards${qs({ limit: PAGE_SIZE, cursor })}`), [cursor]);
  useInterval(() => void page.reload(), refreshMs);
  return (
    <>
      <h2>{t('Every tenant, the last hour')}</h2>
      <ErrorBox error={page.error} />
      <div className="table-wrap">
      <table className="data" aria-label={t('Every tenant, the last hour')}>
        <thead>
          <tr>
            <th>{t('Tenant')}</th>
            <th>{t('Runs in the last hour')}</th>
            <th>{t('Success rate')}</th>
            <th>{t('Lateness p95')}</th>
            <th>{t('Early starts')}</th>
            <th>{t('Open alarms')}</th>
            <th>{t('Executors up')}</th>
            <th>{t('Due')}</th>
            <th>{t('Held by engines')}</th>
            <th>{t('In flight')}</th>
            <th>{t('Oldest due waited')}</th>
          </tr>
        </thead>
        <tbody>
          {(page.data?.items ?? []).map((d) => (
            <tr key={d.tenantId} data-overview-tenant={d.tenantId} aria-current={d.tenantId === chosen ? 'true' : undefined}>
              <td>
                <button type="button" className="btn-small btn-ghost" translate="no" onClick={() => onChoose(d.tenantId)}>
                  {d.tenantId}
                </button>
              </td>
              <td>{fmtNumber(RUN_STATES.reduce((n, s) => n + (d.runs[s] ?? 0), 0))}</td>
              <td>{fmtPercent(d.successRate)}</td>
              <td>{d.latenessP95Ms === null ? '—' : `≤ ${fmtDuration(d.latenessP95Ms)}`}</td>
              <td data-overview="early-starts">{fmtNumber(d.earlyStarts)}</td>
              <td data-overview="alarms">{count(d.openAlarms)}</td>
              <td>{fmtNumber(d.executorsUp)}</td>
              <td data-overview="due">{count(d.backlog.due)}</td>
              <td>{count(d.backlog.held)}</td>
              <td>{count(d.backlog.inFlight)}</td>
              <td>{d.backlog.oldestDueAgeMs === null ? '—' : fmtDuration(d.backlog.oldestDueAgeMs)}</td>
            </tr>
          ))}
        </tbody>
      </table>
      </div>
      <CursorPager pages={pages} nextCursor={page.data?.nextCursor} backLabel={t('Previous tenants')} onLabel={t('Next tenants')} />
    </>
  );
}
