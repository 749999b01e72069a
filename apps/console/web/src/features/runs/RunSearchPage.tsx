import { useState, type FormEvent } from 'react';
import { get, qs } from '../../shared/api';
import { ErrorBox, Field, PageHeader, StateBadge, Time } from '../../shared/components';
import { DataTable } from '../../shared/DataTable';
import { EmptyState } from '../../shared/EmptyState';
import { errorsOf } from '../../shared/form-errors';
import { fromLocalInput, toLocalInput } from '../../shared/format';
import { useLoad } from '../../shared/hooks';
import { t } from '../../shared/i18n/i18n';
import type { Page, Run, RunSearchPage as SearchPage, Task } from '../../shared/model';
import { Link } from '../../shared/router';

const DAY = 86_400_000;

/**
 * Runs whose error text (or params) contain a text, scheduled in a time range. The API examines a
 * bounded slice of the range per call, newest first; "Search further back" asks for the next.
 */
export function RunSearchPage() {
  const tasks = useLoad(() => get<Page<Task>>('/tasks?limit=500'), []);
  const [q, setQ] = useState('');
  const [field, setField] = useState<'error' | 'params'>('error');
  const [taskId, setTaskId] = useState('');
  const [from, setFrom] = useState(() => toLocalInput(Date.now() - DAY));
  const [to, setTo] = useState(() => toLocalInput(Date.now() + 60_000));
  const [found, setFound] = useState<Run[] | null>(null);
  const [next, setNext] = useState<{ cursor: string | null; searchedFrom: number } | null>(null);
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [busy, setBusy] = useState(false);
  const search = async (cursor?: string) => {
    setBusy(true);
    try {
      const page = await get<SearchPage>(`/runs/search${qs({ q, field, taskId, from: fromLocalInput(from) ?? from, to: fromLocalInput(to) ?? to, limit: 100, cursor })}`);
      setErrors({});
      setFound((cur) => (cursor && cur ? [...cur, ...page.items] : page.items));
      setNext({ cursor: page.nextCursor, searchedFrom: page.searchedFrom });
    } catch (err) {
      setErrors(errorsOf(err, ['q', 'field', 'from', 'to', 'taskId']));
    } finally {
      setBusy(false);
    }
  };
  const submit = (e: FormEvent) => {
    e.preventDefault();
    setFound(null);
    void search();
  };
  return (
    <>
      <PageHeader title={t('Search runs')}>
        <Link to="/runs" className="btn">
          {t('Runs')}
        </Link>
      </PageHeader>
      <form className="filters" role="search" aria-label={t('Search runs')} onSubmit={submit}>
        <Field label={t('Text')} error={errors.q} hint={t('2 to 200 characters, found anywhere in the chosen field')}>
          {(p) => <input {...p} type="search" name="q" value={q} onChange={(e) => setQ(e.target.value)} />}
        </Field>
        <Field label={t('In')} error={errors.field}>
          {(p) => (
            <select {...p} name="field" value={field} onChange={(e) => setField(e.target.value as 'error' | 'params')}>
              <option value="error">{t('the error text')}</option>
              <option value="params">{t('the params (JSON)')}</option>
            </select>
          )}
        </Field>
        <Field label={t('Task')} error={errors.taskId}>
          {(p) => (
            <select {...p} name="taskId" value={taskId} onChange={(e) => setTaskId(e.target.value)}>
              <option value="">{t('All tasks')}</option>
              {(tasks.data?.items ?? []).map((x) => (
                <option key={x.id} value={x.id} translate="no">
                  {x.name}
                </option>
              ))}
            </select>
          )}
        </Field>
        <Field label={t('Scheduled from')} error={errors.from}>
          {(p) => <input {...p} name="from" type="datetime-local" value={from} onChange={(e) => setFrom(e.target.value)} />}
        </Field>
        <Field label={t('Scheduled before')} error={errors.to}>
          {(p) => <input {...p} name="to" type="datetime-local" value={to} onChange={(e) => setTo(e.target.value)} />}
        </Field>
        <div className="field field-button">
          <button type="submit" className="btn-primary" disabled={busy}>
            {t('Search')}
          </button>
        </div>
      </form>
      <ErrorBox error={errors._} />
      {found ? (
        <>
          <DataTable
            label={t('Runs found')}
            rows={found}
            rowKey={(r) => r.id}
            rowProps={(r) => ({ 'data-found-run': r.id })}
            empty={<EmptyState title={t('No run found so far.')}>{next?.cursor ? t('Only part of the range has been searched: search further back.') : t('Try another text, field or time range.')}</EmptyState>}
            columns={[
              { header: t('Run'), cell: (r) => <Link to={`/runs/${r.id}`}>#{r.id}</Link> },
              { header: t('Task'), cellProps: () => ({ translate: 'no' as const }), cell: (r) => r.taskName ?? `#${r.taskId}` },
              { header: t('State'), cell: (r) => <StateBadge state={r.state} /> },
              { header: t('Scheduled'), className: 'small', cell: (r) => <Time ms={r.scheduledAt} /> },
              { header: t('Error'), className: 'mono small', cell: (r) => r.error ?? '' },
            ]}
          />
          {next ? (
            <p className="small muted" data-searched-from>
              {t('Searched back to')} <Time ms={next.searchedFrom} />.
              {next.cursor ? (
                <>
                  {' '}
                  <button type="button" className="btn-small" onClick={() => void search(next.cursor!)} disabled={busy}>
                    {t('Search further back')}
                  </button>
                </>
              ) : (
                ` ${t('The whole range has been searched.')}`
              )}
            </p>
          ) : null}
        </>
      ) : null}
    </>
  );
}
