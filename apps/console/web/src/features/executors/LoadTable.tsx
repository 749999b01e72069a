import { get } from '../../shared/api';
import { ErrorBox } from '../../shared/components';
import { DataTable } from '../../shared/DataTable';
import { EmptyState } from '../../shared/EmptyState';
import { fmtDuration, fmtNumber, fmtTime } from '../../shared/format';
import { useInterval, useLoad } from '../../shared/hooks';
import { executorLoad } from '@baton/domain/load/tenant-load';
import type { LoadBoard, LoadCount } from '../../shared/model';
import { t } from '../../shared/i18n/i18n';

/** The figures come from the database; a few seconds between reads is live enough for a backlog. */
const REFRESH_MS = 3000;

/** "10,000+" when counting stopped at the cap. */
function fmtCount(c: LoadCount): string {
  return `${fmtNumber(c.count)}${c.capped ? '+' : ''}`;
}

/**
 * Tenants' load (GET /api/load: the tenant's own; GET /api/operator/load: every tenant's, the
 * oldest due run first): runs due, held by engines, at executors (their instant come), sent ahead
 * to executors (waiting there for their instant: not load), the executors' load and capacity, and
 * how long the oldest due run has waited. Refreshed every few seconds.
 */
export function LoadTable({ operator }: { operator: boolean }) {
  const board = useLoad(() => get<LoadBoard>(operator ? '/operator/load' : '/load'), [operator]);
  useInterval(() => void board.reload(), REFRESH_MS);
  const b = board.data;
  return (
    <>
      <ErrorBox error={board.error} />
      <DataTable
        label={t('Load')}
        rows={b?.items}
        rowKey={(x) => x.tenantId}
        rowProps={(x) => ({ 'data-load-tenant': x.tenantId })}
        empty={<EmptyState title={t('No tenant yet.')} />}
        columns={[
          operator && { header: t('Tenant'), cellProps: () => ({ translate: 'no' as const }), cell: (x) => x.tenantId },
          operator && { header: t('Group'), className: 'small', cellProps: () => ({ translate: 'no' as const }), cell: (x) => x.engineGroup },
          { header: t('Due'), cellProps: () => ({ 'data-load': 'due', title: t('PENDING and RETRY_WAIT runs whose time has come, not claimed yet') }), cell: (x) => fmtCount(x.due) },
          { header: t('Held by engines'), cellProps: () => ({ 'data-load': 'held', title: t('CLAIMED: waiting in an engine for their instant, a token or an executor') }), cell: (x) => fmtCount(x.held) },
          { header: t('At executors'), cellProps: () => ({ 'data-load': 'in-flight', title: t('DISPATCHED and ACCEPTED whose instant has come: running, or waiting at their executor for a worker') }), cell: (x) => fmtCount(x.inFlight) },
          { header: t('Sent ahead'), cellProps: () => ({ 'data-load': 'sent-ahead', title: t('DISPATCHED and ACCEPTED sent ahead of their instant, waiting for it at their executor: a place there, no worker') }), cell: (x) => fmtCount(x.sentAhead) },
          {
            header: t('Executors'),
            cell: (x) => {
              // What they reported in flight counts the runs sent ahead to them: not their load.
              const load = executorLoad(x.executors.inFlight, x.sentAhead.count);
              return (
                <>
                  <meter min={0} max={Math.max(1, x.executors.capacity)} value={load} high={x.executors.capacity * 0.8} aria-label={t('Executor load of {{tenant}}', { tenant: x.tenantId })} />{' '}
                  <span data-load="executors">
                    {load} / {x.executors.capacity}
                  </span>{' '}
                  <span className="muted small">{t('({{count}} up)', { count: x.executors.up })}</span>
                </>
              );
            },
          },
          {
            header: t('Oldest due waited'),
            cellProps: (x) => ({ 'data-load': 'oldest', title: x.oldestDueAt === null ? undefined : t('due {{time}}', { time: fmtTime(x.oldestDueAt) }) }),
            cell: (x) =>
              x.oldestDueAgeMs === null ? (
                '—'
              ) : (
                <>
                  {fmtDuration(x.oldestDueAgeMs)}
                  {x.backlogLateSince !== null ? (
                    <>
                      {' '}
                      <span className="badge sev-WARNING" title={t('BACKLOG_LATE since {{time}}', { time: fmtTime(x.backlogLateSince) })}>
                        {t('late')}
                      </span>
                    </>
                  ) : null}
                </>
              ),
          },
        ]}
      />
      {b ? (
        <p className="muted small">
          {t('Counts stop at {{cap}} (“{{cap}}+”).', { cap: fmtNumber(b.countCap) })}
          {operator && b.tenants > b.items.length ? ` ${t('The {{shown}} tenants whose oldest due run waits longest, of {{count}}.', { shown: b.items.length, count: b.tenants })}` : ''}
        </p>
      ) : null}
    </>
  );
}
