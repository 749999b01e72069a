import { useState, type FormEvent } from 'react';
import { del, get, post, put } from '../../shared/api';
import { ErrorBox, Field, PageHeader, Time, useToast } from '../../shared/components';
import { DataTable } from '../../shared/DataTable';
import { EmptyState } from '../../shared/EmptyState';
import { errorsOf } from '../../shared/form-errors';
import { displayTimeZone } from '../../shared/format';
import { useLoad } from '../../shared/hooks';
import { t } from '../../shared/i18n/i18n';
import type { Calendar } from '../../shared/model';

const FIELDS = ['name', 'timeZone', 'dates'];

/** `2026-12-25, 2026-12-26` or one per line, as typed: the dates, in order, each once (the API checks each). */
export function datesOf(text: string): string[] {
  return [...new Set(text.split(/[\s,;]+/).filter(Boolean))].sort();
}

/**
 * Exclusion calendars: named sets of local dates (in a time zone) on which the tasks that name
 * the calendar in their editor do not fire. A tenant admin creates, edits and deletes them.
 */
export function CalendarsPage({ canWrite }: { canWrite: boolean }) {
  const toast = useToast();
  const calendars = useLoad(() => get<Calendar[]>('/calendars'), []);
  const [editing, setEditing] = useState<Calendar | null>(null);
  const remove = async (c: Calendar) => {
    if (!window.confirm(t('Delete calendar {{name}}?', { name: c.name }))) return;
    try {
      await del(`/calendars/${c.id}`);
      toast.notify(t('Calendar {{name}} deleted', { name: c.name }));
      await calendars.reload();
    } catch (e) {
      toast.notify((e as Error).message, 'error');
    }
  };
  return (
    <>
      <PageHeader title={t('Calendars')} />
      <p className="muted">{t('A task that names a calendar (Exclusion calendar, in the task editor) does not fire on its dates, in the calendar’s time zone.')}</p>
      <ErrorBox error={calendars.error} />
      <DataTable
        label={t('Calendars')}
        rows={calendars.data}
        rowKey={(c) => c.id}
        rowProps={(c) => ({ 'data-calendar': c.name })}
        empty={<EmptyState title={t('No calendar yet.')}>{canWrite ? t('Create one with the form below.') : t('A tenant admin creates them.')}</EmptyState>}
        columns={[
          { header: t('Name'), cellProps: () => ({ translate: 'no' as const }), cell: (c) => c.name },
          { header: t('Time zone'), className: 'mono small', cell: (c) => c.timeZone },
          { header: t('Dates'), className: 'mono small', cell: (c) => (c.dates.length > 6 ? `${c.dates.slice(0, 6).join(', ')} … (${c.dates.length})` : c.dates.join(', ') || '—') },
          { header: t('Tasks using it'), cell: (c) => c.taskCount ?? '—' },
          { header: t('Created'), className: 'small', cell: (c) => <Time ms={c.createdAt} /> },
          canWrite && {
            header: t('Actions'),
            className: 'actions',
            cell: (c) => (
              <>
                <button type="button" className="btn-small" onClick={() => setEditing(c)} aria-label={t('Edit calendar {{name}}', { name: c.name })}>
                  {t('Edit')}
                </button>
                <button type="button" className="btn-small btn-ghost" onClick={() => void remove(c)} aria-label={t('Delete calendar {{name}}', { name: c.name })}>
                  {t('Delete')}
                </button>
              </>
            ),
          },
        ]}
      />
      {canWrite ? (
        <CalendarForm
          key={editing?.id ?? 'new'}
          calendar={editing}
          onSaved={() => {
            setEditing(null);
            void calendars.reload();
          }}
          onCancel={() => setEditing(null)}
        />
      ) : null}
    </>
  );
}

/** A new calendar, or the one being edited (PUT replaces it: its tasks' next fire times are recomputed). */
function CalendarForm({ calendar, onSaved, onCancel }: { calendar: Calendar | null; onSaved: () => void; onCancel: () => void }) {
  const toast = useToast();
  const [name, setName] = useState(calendar?.name ?? '');
  const [timeZone, setTimeZone] = useState(calendar?.timeZone ?? displayTimeZone());
  const [dates, setDates] = useState(calendar?.dates.join('\n') ?? '');
  const [errors, setErrors] = useState<Record<string, string>>({});
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const body = { name: name.trim(), timeZone: timeZone.trim(), dates: datesOf(dates) };
    try {
      const saved = calendar ? await put<Calendar>(`/calendars/${calendar.id}`, body) : await post<Calendar>('/calendars', body);
      setErrors({});
      toast.notify(t('Calendar {{name}} saved', { name: saved.name }));
      onSaved();
    } catch (err) {
      setErrors(errorsOf(err, FIELDS));
    }
  };
  return (
    <section aria-labelledby="calendar-form-h">
      <h2 id="calendar-form-h">{calendar ? t('Edit calendar {{name}}', { name: calendar.name }) : t('New calendar')}</h2>
      <form className="filters" onSubmit={(e) => void submit(e)} aria-label={calendar ? t('Edit calendar {{name}}', { name: calendar.name }) : t('New calendar')}>
        <Field label={t('Name')} error={errors.name}>
          {(p) => <input {...p} name="calendarName" value={name} onChange={(e) => setName(e.target.value)} />}
        </Field>
        <Field label={t('Time zone')} error={errors.timeZone}>
          {(p) => <input {...p} name="calendarZone" value={timeZone} onChange={(e) => setTimeZone(e.target.value)} spellCheck={false} />}
        </Field>
        <Field label={t('Dates (YYYY-MM-DD, one per line or comma-separated)')} error={errors.dates} className="field-wide">
          {(p) => <textarea {...p} name="calendarDates" rows={4} className="mono" value={dates} onChange={(e) => setDates(e.target.value)} placeholder="2026-12-25" />}
        </Field>
        <div className="field field-button">
          <button type="submit" className="btn-primary">
            {calendar ? t('Save calendar') : t('Create calendar')}
          </button>
        </div>
        {calendar ? (
          <div className="field field-button">
            <button type="button" className="btn-ghost" onClick={onCancel}>
              {t('Cancel')}
            </button>
          </div>
        ) : null}
      </form>
      <ErrorBox error={errors._} />
    </section>
  );
}
