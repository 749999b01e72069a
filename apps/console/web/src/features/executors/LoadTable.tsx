import { get } from '../../shared/api';
import { ErrorBox } from '../../shared/components';
import { DataTable } from '../../shared/DataTable';
import { EmptyState } from '../../shared/EmptyState';
import { fmtDuration, fmtTime } from '../../shared/format';
import { useInterval, useLoad } from '../../shared/hooks';
import type { LoadBoard, LoadCount } from '../../shared/model';
import { t } from '../../shared/i18n/i18n';

/** The figures come from the database; a few seconds between reads is live enough for a backlog. */
const REFRESH_MS = 3000;

/** "10,000+" when counting stopped at the cap. */
function fmtCount(c: LoadCount): string {
  return `${c.count.toLocaleString('en-US')}${c.capped ? '+' : ''}`;
}

/**
 * Tenants' load (GET /api/load: the tenant's own; GET /api/operator/load: every tenant's, the
 * oldest due run first): runs due, held by engines, at executors, the executors' capacity, and how
 * long the oldest due run has waited. Refreshed every few seconds.
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
          operator && { header: t('Tenant'), cell: (x) => x.tenantId },
          operator && { header: t('Group'), className: 'small', cell: (x) => x.engineGroup },
          { header: t('Due'), cellProps: () => ({ 'data-load': 'due', title: 'PENDING and RETRY_WAIT runs whose time has come, not claimed yet' }), cell: (x) => fmtCount(x.due) },
          { header: t('Held by engines'), cellProps: () => ({ 'data-load': 'held', title: 'CLAIMED: waiting in an engine for their instant, a token or an executor' }), cell: (x) => fmtCount(x.held) },
          { header: t('At executors'), cellProps: () => ({ 'data-load': 'in-flight', title: 'DISPATCHED and ACCEPTED' }), cell: (x) => fmtCount(x.inFlight) },
          {
            header: t('Executors'),
            cell: (x) => (
              <>
                <meter min={0} max={Math.max(1, x.executors.capacity)} value={x.executors.inFlight} high={x.executors.capacity * 0.8} aria-label={`Executor load of ${x.tenantId}`} />{' '}
                {x.executors.inFlight} / {x.executors.capacity} <span className="muted small">({x.executors.up} up)</span>
              </>
            ),
          },
          {
            header: t('Oldest due waited'),
            cellProps: (x) => ({ 'data-load': 'oldest', title: x.oldestDueAt === null ? undefined : `due ${fmtTime(x.oldestDueAt)}` }),
            cell: (x) =>
              x.oldestDueAgeMs === null ? (
                '—'
              ) : (
                <>
                  {fmtDuration(x.oldestDueAgeMs)}
                  {x.backlogLateSince !== null ? (
                    <>
                      {' '}
                      <span className="badge sev-WARNING" title={`BACKLOG_LATE since ${fmtTime(x.backlogLateSince)}`}>
                        late
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
          Counts stop at {b.countCap.toLocaleString('en-US')} (“{b.countCap.toLocaleString('en-US')}+”).
          {operator && b.tenants > b.items.length ? ` The ${b.items.length} tenants whose oldest due run waits longest, of ${b.tenants}.` : ''}
        </p>
      ) : null}
    </>
  );
}
