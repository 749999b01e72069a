import { get } from './api';
import { ErrorBox } from './components';
import { DataTable } from './DataTable';
import { EmptyState } from './EmptyState';
import { fmtDuration, fmtTime } from './format';
import { useInterval, useLoad } from './hooks';
import type { LoadBoard, LoadCount } from './model';

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
        label="Load"
        rows={b?.items}
        rowKey={(t) => t.tenantId}
        rowProps={(t) => ({ 'data-load-tenant': t.tenantId })}
        empty={<EmptyState title="No tenant yet." />}
        columns={[
          operator && { header: 'Tenant', cell: (t) => t.tenantId },
          operator && { header: 'Group', className: 'small', cell: (t) => t.engineGroup },
          { header: 'Due', cellProps: () => ({ 'data-load': 'due', title: 'PENDING and RETRY_WAIT runs whose time has come, not claimed yet' }), cell: (t) => fmtCount(t.due) },
          { header: 'Held by engines', cellProps: () => ({ 'data-load': 'held', title: 'CLAIMED: waiting in an engine for their instant, a token or an executor' }), cell: (t) => fmtCount(t.held) },
          { header: 'At executors', cellProps: () => ({ 'data-load': 'in-flight', title: 'DISPATCHED and ACCEPTED' }), cell: (t) => fmtCount(t.inFlight) },
          {
            header: 'Executors',
            cell: (t) => (
              <>
                <meter min={0} max={Math.max(1, t.executors.capacity)} value={t.executors.inFlight} high={t.executors.capacity * 0.8} aria-label={`Executor load of ${t.tenantId}`} />{' '}
                {t.executors.inFlight} / {t.executors.capacity} <span className="muted small">({t.executors.up} up)</span>
              </>
            ),
          },
          {
            header: 'Oldest due waited',
            cellProps: (t) => ({ 'data-load': 'oldest', title: t.oldestDueAt === null ? undefined : `due ${fmtTime(t.oldestDueAt)}` }),
            cell: (t) =>
              t.oldestDueAgeMs === null ? (
                '—'
              ) : (
                <>
                  {fmtDuration(t.oldestDueAgeMs)}
                  {t.backlogLateSince !== null ? (
                    <>
                      {' '}
                      <span className="badge sev-WARNING" title={`BACKLOG_LATE since ${fmtTime(t.backlogLateSince)}`}>
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
