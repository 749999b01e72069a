import { useState, type FormEvent } from 'react';
import { get, qs } from '../../shared/api';
import { ErrorBox, Field, PageHeader, Time } from '../../shared/components';
import { CursorPager, useCursorPages } from '../../shared/CursorPager';
import { DataTable } from '../../shared/DataTable';
import { EmptyState } from '../../shared/EmptyState';
import { errorsOf } from '../../shared/form-errors';
import { fromLocalInput } from '../../shared/format';
import { useLoad } from '../../shared/hooks';
import { t } from '../../shared/i18n/i18n';
import type { Page, TenantEvent } from '../../shared/model';
import { Link } from '../../shared/router';

interface EventFilter {
  name: string;
  q: string;
  from: string;
  to: string;
}

const NO_FILTER: EventFilter = { name: '', q: '', from: '', to: '' };

/**
 * The tenant's events, newest first: by name, time range and a text of the payload (the API
 * examines a bounded slice per page when searching, so a page may hold few matches and still go on).
 */
export function EventsPage() {
  const [draft, setDraft] = useState<EventFilter>(NO_FILTER);
  const [filter, setFilter] = useState<EventFilter>(NO_FILTER);
  const pages = useCursorPages();
  const events = useLoad(
    () =>
      get<Page<TenantEvent>>(
        `/events${qs({ name: filter.name || undefined, q: filter.q || undefined, from: fromLocalInput(filter.from) ?? undefined, to: fromLocalInput(filter.to) ?? undefined, cursor: pages.cursor, limit: 50 })}`,
      ),
    [filter, pages.cursor],
  );
  const errors = events.error ? errorsOf(events.error, ['name', 'q', 'from', 'to']) : {};
  const submit = (e: FormEvent) => {
    e.preventDefault();
    pages.reset();
    setFilter(draft);
  };
  const edit = (field: keyof EventFilter) => (e: { target: { value: string } }) => setDraft((d) => ({ ...d, [field]: e.target.value }));
  return (
    <>
      <PageHeader title={t('Events')} />
      <form className="filters" role="search" aria-label={t('Filter events')} onSubmit={submit}>
        <Field label={t('Event name')} error={errors.name}>
          {(p) => <input {...p} name="name" value={draft.name} placeholder="order.paid" onChange={edit('name')} />}
        </Field>
        <Field label={t('Text in the payload')} error={errors.q} hint={t('2 to 200 characters')}>
          {(p) => <input {...p} type="search" name="q" value={draft.q} onChange={edit('q')} />}
        </Field>
        <Field label={t('Received from')} error={errors.from}>
          {(p) => <input {...p} name="from" type="datetime-local" value={draft.from} onChange={edit('from')} />}
        </Field>
        <Field label={t('Received before')} error={errors.to}>
          {(p) => <input {...p} name="to" type="datetime-local" value={draft.to} onChange={edit('to')} />}
        </Field>
        <div className="field field-button">
          <button type="submit" className="btn-primary">
            {t('Filter')}
          </button>
        </div>
      </form>
      <ErrorBox error={errors._} />
      <DataTable
        label={t('Events')}
        rows={events.data?.items ?? []}
        rowKey={(e) => e.id}
        rowProps={(e) => ({ 'data-event': e.id })}
        empty={<EmptyState title={events.loading ? t('Loading…') : t('No event.')}>{t('Events arrive through POST /api/events or the SDK client’s emitEvent.')}</EmptyState>}
        columns={[
          { header: t('Event'), cell: (e) => <Link to={`/events/${e.id}`}>#{e.id}</Link> },
          { header: t('Name'), cellProps: () => ({ translate: 'no' as const }), cell: (e) => e.name },
          { header: t('Received'), className: 'small', cell: (e) => <Time ms={e.receivedAt} /> },
          { header: t('Runs started'), cell: (e) => (e.runIds.length === 0 ? <span className="muted">{t('none (no task matched)')}</span> : e.runIds.length) },
          { header: t('Payload'), className: 'mono small', cellProps: () => ({ translate: 'no' as const }), cell: (e) => preview(e.payload) },
        ]}
      />
      <CursorPager pages={pages} nextCursor={events.data?.nextCursor} backLabel={t('Newer')} onLabel={t('Older')} />
    </>
  );
}

function preview(payload: unknown): string {
  const text = JSON.stringify(payload);
  return text.length > 120 ? `${text.slice(0, 119)}…` : text;
}
