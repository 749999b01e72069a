import { get, isNotFound } from '../../shared/api';
import { ErrorBox, PageHeader, StateBadge, Time } from '../../shared/components';
import { DataTable } from '../../shared/DataTable';
import { EmptyState } from '../../shared/EmptyState';
import { useLoad } from '../../shared/hooks';
import { t } from '../../shared/i18n/i18n';
import { NotFound } from '../../shared/NotFound';
import type { TenantEventDetail } from '../../shared/model';
import { Link } from '../../shared/router';

/** One event: what was sent, and the runs it started (each linked to its page). */
export function EventDetailPage({ eventId }: { eventId: number }) {
  const event = useLoad(() => get<TenantEventDetail>(`/events/${eventId}`), [eventId]);
  const e = event.data;
  if (isNotFound(event.error)) {
    return (
      <NotFound title={t('Event #{{id}} not found', { id: eventId })}>
        {t('Your tenant has no event #{{id}}.', { id: eventId })} <Link to="/events">{t('All events')}</Link>
      </NotFound>
    );
  }
  return (
    <>
      <PageHeader title={t('Event #{{id}}', { id: eventId })}>
        <Link to="/events" className="btn">
          {t('Events')}
        </Link>
      </PageHeader>
      <ErrorBox error={event.error} />
      {e ? (
        <>
          <dl className="facts" data-event-detail={e.id}>
            <dt>{t('Name')}</dt>
            <dd translate="no">{e.name}</dd>
            <dt>{t('Received')}</dt>
            <dd>
              <Time ms={e.receivedAt} withMs />
            </dd>
            <dt>{t('Idempotency key')}</dt>
            <dd translate="no">{e.idempotencyKey ?? '—'}</dd>
          </dl>
          <h2>{t('Payload')}</h2>
          <pre className="mono" translate="no">
            {JSON.stringify(e.payload, null, 2)}
          </pre>
          <h2>{t('Runs started')}</h2>
          <DataTable
            label={t('Runs started')}
            rows={e.runs}
            rowKey={(r) => r.id}
            rowProps={(r) => ({ 'data-event-run': r.id })}
            empty={<EmptyState title={e.runIds.length === 0 ? t('No task matched this event.') : t('Its runs are no longer kept.')} />}
            columns={[
              { header: t('Run'), cell: (r) => <Link to={`/runs/${r.id}`}>#{r.id}</Link> },
              { header: t('Task'), cellProps: () => ({ translate: 'no' as const }), cell: (r) => r.taskName ?? `#${r.taskId}` },
              { header: t('State'), cell: (r) => <StateBadge state={r.state} /> },
              { header: t('Scheduled'), className: 'small', cell: (r) => <Time ms={r.scheduledAt} /> },
            ]}
          />
        </>
      ) : null}
    </>
  );
}
