import { useState, type FormEvent } from 'react';
import { del, get, put } from '../../shared/api';
import { ErrorBox, Field, PageHeader, useToast } from '../../shared/components';
import { DataTable } from '../../shared/DataTable';
import { EmptyState } from '../../shared/EmptyState';
import { errorsOf } from '../../shared/form-errors';
import { fmtDuration, parseDuration } from '../../shared/format';
import { useLoad } from '../../shared/hooks';
import { t } from '../../shared/i18n/i18n';
import type { Page, Retention, RetentionValues, Task } from '../../shared/model';

/** A field of the retention forms: empty is null (the ceiling, or the tenant's), a duration or a number as typed otherwise. */
const durationOrNull = (v: string): unknown => (v.trim() === '' ? null : (parseDuration(v) ?? v));
const countOrNull = (v: string): unknown => (v.trim() === '' ? null : Number.isFinite(Number(v)) ? Number(v) : v);
const shown = (ms: number | null) => (ms === null ? '' : fmtDuration(ms));

/** How long ended runs, their logs and alarms are kept: the cluster's ceiling, the tenant's policy, and per-task overrides. */
export function RetentionPage({ canWrite }: { canWrite: boolean }) {
  const retention = useLoad(() => get<Retention>('/retention'), []);
  const tasks = useLoad(() => get<Page<Task>>('/tasks?limit=500'), []);
  const r = retention.data;
  const taskName = new Map((tasks.data?.items ?? []).map((x) => [x.id, x.name]));
  const row = (label: string, v: RetentionValues, key: string) => ({ label, v, key });
  return (
    <>
      <PageHeader title={t('Retention')} />
      <p className="muted">{t('Ended runs (with their logs) and alarms older than this are deleted; the newest runs of each task are kept whatever their age.')}</p>
      <ErrorBox error={retention.error} />
      {r ? (
        <DataTable
          label={t('Retention in force')}
          rows={[row(t('Cluster ceiling'), r.ceiling, 'ceiling'), row(t('This tenant (in force)'), r.effective, 'effective')]}
          rowKey={(x) => x.key}
          rowProps={(x) => ({ 'data-retention': x.key })}
          empty={null}
          columns={[
            { header: '', cell: (x) => <strong>{x.label}</strong> },
            { header: t('Runs'), cell: (x) => fmtDuration(x.v.runsMs) },
            { header: t('Logs'), cell: (x) => fmtDuration(x.v.logsMs) },
            { header: t('Alarms'), cell: (x) => fmtDuration(x.v.alarmsMs) },
            { header: t('Newest runs kept per task'), cell: (x) => x.v.minRunsKept },
          ]}
        />
      ) : null}
      {r && canWrite ? <TenantRetentionForm retention={r} onSaved={(next) => retention.set(next)} /> : null}
      <h2>{t('Task overrides')}</h2>
      <DataTable
        label={t('Task overrides')}
        rows={r?.tasks}
        rowKey={(x) => x.taskId}
        rowProps={(x) => ({ 'data-retention-task': x.taskId })}
        empty={<EmptyState title={t('No task has its own retention.')}>{canWrite ? t('Give one below: it keeps its runs longer or shorter than the tenant, up to the ceiling.') : null}</EmptyState>}
        columns={[
          { header: t('Task'), cellProps: () => ({ translate: 'no' as const }), cell: (x) => taskName.get(x.taskId) ?? `#${x.taskId}` },
          { header: t('Runs'), cell: (x) => (x.runsMs === null ? t('the tenant’s') : fmtDuration(x.runsMs)) },
          { header: t('Newest runs kept'), cell: (x) => (x.minRunsKept === null ? t('the tenant’s') : x.minRunsKept) },
          { header: t('In force'), className: 'small', cell: (x) => `${fmtDuration(x.effective.runsMs)} · ${x.effective.minRunsKept}` },
          canWrite && {
            header: t('Actions'),
            cell: (x) => <RemoveOverride taskId={x.taskId} name={taskName.get(x.taskId) ?? `#${x.taskId}`} onRemoved={() => void retention.reload()} />,
          },
        ]}
      />
      {canWrite ? <TaskOverrideForm tasks={tasks.data?.items ?? []} onSaved={(next) => retention.set(next)} /> : null}
    </>
  );
}

function TenantRetentionForm({ retention, onSaved }: { retention: Retention; onSaved: (r: Retention) => void }) {
  const toast = useToast();
  const [runs, setRuns] = useState(shown(retention.tenant.runsMs));
  const [logs, setLogs] = useState(shown(retention.tenant.logsMs));
  const [alarms, setAlarms] = useState(shown(retention.tenant.alarmsMs));
  const [kept, setKept] = useState(retention.tenant.minRunsKept === null ? '' : String(retention.tenant.minRunsKept));
  const [errors, setErrors] = useState<Record<string, string>>({});
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    try {
      const next = await put<Retention>('/retention', { runsMs: durationOrNull(runs), logsMs: durationOrNull(logs), alarmsMs: durationOrNull(alarms), minRunsKept: countOrNull(kept) });
      setErrors({});
      toast.notify(t('Retention saved'));
      onSaved(next);
    } catch (err) {
      setErrors(errorsOf(err, ['runsMs', 'logsMs', 'alarmsMs', 'minRunsKept']));
    }
  };
  const ceiling = retention.ceiling;
  return (
    <form className="filters" onSubmit={(e) => void submit(e)} aria-label={t("The tenant's retention")}>
      <Field label={t('Keep runs for')} error={errors.runsMs} hint={t('At most {{max}}; empty: the ceiling. 30d, 12h…', { max: fmtDuration(ceiling.runsMs) })}>
        {(p) => <input {...p} name="runsMs" value={runs} onChange={(e) => setRuns(e.target.value)} />}
      </Field>
      <Field label={t('Keep logs for')} error={errors.logsMs} hint={t('At most {{max}}; empty: the ceiling. 30d, 12h…', { max: fmtDuration(ceiling.logsMs) })}>
        {(p) => <input {...p} name="logsMs" value={logs} onChange={(e) => setLogs(e.target.value)} />}
      </Field>
      <Field label={t('Keep alarms for')} error={errors.alarmsMs} hint={t('At most {{max}}; empty: the ceiling. 30d, 12h…', { max: fmtDuration(ceiling.alarmsMs) })}>
        {(p) => <input {...p} name="alarmsMs" value={alarms} onChange={(e) => setAlarms(e.target.value)} />}
      </Field>
      <Field label={t('Newest runs kept per task')} error={errors.minRunsKept} hint={t('At most {{max}}; empty: the ceiling.', { max: ceiling.minRunsKept })}>
        {(p) => <input {...p} name="minRunsKept" inputMode="numeric" value={kept} onChange={(e) => setKept(e.target.value)} />}
      </Field>
      <div className="field field-button">
        <button type="submit" className="btn-primary">
          {t('Save retention')}
        </button>
      </div>
      <ErrorBox error={errors._} />
    </form>
  );
}

function TaskOverrideForm({ tasks, onSaved }: { tasks: Task[]; onSaved: (r: Retention) => void }) {
  const toast = useToast();
  const [taskId, setTaskId] = useState('');
  const [runs, setRuns] = useState('');
  const [kept, setKept] = useState('');
  const [errors, setErrors] = useState<Record<string, string>>({});
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    try {
      const next = await put<Retention>(`/retention/tasks/${taskId}`, { runsMs: durationOrNull(runs), minRunsKept: countOrNull(kept) });
      setErrors({});
      toast.notify(t('Retention saved'));
      onSaved(next);
    } catch (err) {
      setErrors(errorsOf(err, ['runsMs', 'minRunsKept']));
    }
  };
  return (
    <form className="filters" onSubmit={(e) => void submit(e)} aria-label={t('Override a task')}>
      <Field label={t('Task')}>
        {(p) => (
          <select {...p} name="overrideTask" value={taskId} onChange={(e) => setTaskId(e.target.value)} required>
            <option value="">{t('Choose…')}</option>
            {tasks.map((x) => (
              <option key={x.id} value={x.id} translate="no">
                {x.name}
              </option>
            ))}
          </select>
        )}
      </Field>
      <Field label={t('Keep its runs for')} error={errors.runsMs}>
        {(p) => <input {...p} name="overrideRuns" value={runs} onChange={(e) => setRuns(e.target.value)} placeholder={t('the tenant’s')} />}
      </Field>
      <Field label={t('Newest runs kept')} error={errors.minRunsKept}>
        {(p) => <input {...p} name="overrideKept" inputMode="numeric" value={kept} onChange={(e) => setKept(e.target.value)} placeholder={t('the tenant’s')} />}
      </Field>
      <div className="field field-button">
        <button type="submit" disabled={!taskId}>
          {t('Save override')}
        </button>
      </div>
      <ErrorBox error={errors._} />
    </form>
  );
}

function RemoveOverride({ taskId, name, onRemoved }: { taskId: number; name: string; onRemoved: () => void }) {
  const toast = useToast();
  const remove = async () => {
    try {
      await del(`/retention/tasks/${taskId}`);
      onRemoved();
    } catch (e) {
      toast.notify((e as Error).message, 'error');
    }
  };
  return (
    <button type="button" className="btn-small btn-ghost" onClick={() => void remove()} aria-label={t('Remove the override of {{task}}', { task: name })}>
      {t('Remove')}
    </button>
  );
}
