import { useEffect, useRef, useState, type FormEvent } from 'react';
import { del, get, isNotFound, post, put } from '../../../shared/api';
import { ErrorBox, PageHeader, Time, useToast } from '../../../shared/components';
import { errorsOf } from '../../../shared/form-errors';
import { t } from '../../../shared/i18n/i18n';
import { useLoad } from '../../../shared/hooks';
import { NotFound } from '../../../shared/NotFound';
import type { Run, SavedTask, Task } from '../../../shared/model';
import { Link, navigate } from '../../../shared/router';
import { TaskHistory } from '../../audit/TaskHistory';
import { AlarmsSection } from './AlarmsSection';
import { Backfill } from './Backfill';
import { FanOutSection } from './FanOutSection';
import { KeysSection } from './KeysSection';
import { WindowsSection } from './WindowsSection';
import { LimitsSection } from './LimitsSection';
import { confirmManagedEdit, ManagedTaskNotice } from './ManagedTaskNotice';
import { RetrySection } from './RetrySection';
import { RunWithParams } from './RunWithParams';
import { bodyOf, emptyForm, formOf, TASK_FIELDS, type Form } from './task-form';
import { TaskSection } from './TaskSection';
import { TriggerSection } from './TriggerSection';

/** Creates or edits a task: one form of sections (./*Section.tsx), saved whole; run now, delete, backfill. */
export function TaskEditorPage({ taskId, canWrite }: { taskId: number | null; canWrite: boolean }) {
  const toast = useToast();
  const existing = useLoad(() => (taskId === null ? Promise.resolve(null) : get<Task>(`/tasks/${taskId}`)), [taskId]);
  const [form, setForm] = useState<Form>(emptyForm);
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [saving, setSaving] = useState(false);
  useEffect(() => {
    if (existing.data) setForm(formOf(existing.data));
  }, [existing.data]);
  const set = <K extends keyof Form>(key: K, value: Form[K]) => setForm((f) => ({ ...f, [key]: value }));
  // The save button is at the foot of a long form: take the user to the first field it refused.
  const formRef = useRef<HTMLFormElement>(null);
  useEffect(() => {
    formRef.current?.querySelector<HTMLElement>('[aria-invalid="true"]')?.focus();
  }, [errors]);
  const err = (...keys: string[]) => keys.map((k) => errors[k]).filter(Boolean).join('; ') || undefined;
  const section = { form, set, err };

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const { body, local } = bodyOf(form);
    if (Object.keys(local).length) {
      setErrors(local);
      return;
    }
    if (!confirmManagedEdit(existing.data)) return;
    setSaving(true);
    try {
      const saved = taskId === null ? await post<SavedTask>('/tasks', body) : await put<SavedTask>(`/tasks/${taskId}`, { ...body, version: existing.data?.version });
      setErrors({});
      toast.notify(t('Task {{name}} saved', { name: saved.name }));
      // Saved, but it would not run as things stand: say so where the field is, and in a notice.
      for (const w of saved.warnings) toast.notify(t('Saved, but: {{reason}}', { reason: w.reason }), 'error');
      if (taskId === null) navigate(`/tasks/${saved.id}`, true);
      else existing.set(saved);
    } catch (e2) {
      setErrors(errorsOf(e2, TASK_FIELDS));
    } finally {
      setSaving(false);
    }
  };

  const runNow = async () => {
    try {
      const run = await post<Run>(`/tasks/${taskId}/trigger`, {});
      toast.notify(t('Run #{{id}} created', { id: run.id }), 'info', { to: `/runs/${run.id}`, label: t('Open run #{{id}}', { id: run.id }) });
    } catch (e2) {
      toast.notify((e2 as Error).message, 'error');
    }
  };
  const [withParams, setWithParams] = useState(false);
  const copy = async () => {
    const name = window.prompt(t('Name of the copy'), `${form.name}-copy`);
    if (!name) return;
    try {
      const saved = await post<SavedTask>(`/tasks/${taskId}/copy`, { name });
      toast.notify(t('Task {{name}} saved', { name: saved.name }));
      navigate(`/tasks/${saved.id}`);
    } catch (e2) {
      toast.notify((e2 as Error).message, 'error');
    }
  };
  const remove = async () => {
    if (!confirm(t('Delete task {{name}}? Its dependency edges are deleted too; its run history stays.', { name: form.name }))) return;
    try {
      await del(`/tasks/${taskId}?cascade=true`);
      toast.notify(t('Task {{name}} deleted', { name: form.name }));
      navigate('/tasks');
    } catch (e2) {
      toast.notify((e2 as Error).message, 'error');
    }
  };

  if (taskId !== null && isNotFound(existing.error)) {
    return (
      <NotFound title={t('Task #{{id}} not found', { id: taskId })}>
        {t('Your tenant has no task #{{id}}.', { id: taskId })} <Link to="/tasks">{t('All tasks')}</Link>
      </NotFound>
    );
  }

  return (
    <>
      <PageHeader title={taskId === null ? t('New task') : t('Task {{name}}', { name: existing.data?.name ?? '' })}>
        {taskId !== null ? (
          <>
            <Link to={`/runs?taskId=${taskId}`} className="btn">
              {t('Runs')}
            </Link>
            <Link to={`/stats?taskId=${taskId}`} className="btn">
              {t('Statistics')}
            </Link>
            {canWrite && existing.data ? (
              <>
                <button type="button" onClick={() => void runNow()}>
                  {t('Run now')}
                </button>
                <button type="button" onClick={() => setWithParams((v) => !v)} aria-expanded={withParams}>
                  {t('Run with params…')}
                </button>
                <button type="button" onClick={() => void copy()}>
                  {t('Copy…')}
                </button>
                <button type="button" className="btn-danger" onClick={() => void remove()}>
                  {t('Delete')}
                </button>
              </>
            ) : null}
          </>
        ) : null}
      </PageHeader>
      <ManagedTaskNotice task={existing.data} />
      <ErrorBox error={existing.error} />
      {withParams && existing.data ? <RunWithParams task={existing.data} onClose={() => setWithParams(false)} /> : null}
      <form ref={formRef} className="editor" onSubmit={(e) => void submit(e)} aria-label={t('Task')} noValidate>
        <ErrorBox error={errors._} />
        <TaskSection {...section} />
        <TriggerSection {...section} />
        <LimitsSection {...section} />
        <KeysSection {...section} />
        <WindowsSection {...section} />
        <RetrySection {...section} />
        <FanOutSection {...section} />
        <AlarmsSection {...section} />
        {canWrite ? (
          <div className="form-actions">
            <button type="submit" className="btn-primary" disabled={saving}>
              {saving ? t('Saving…') : taskId === null ? t('Create task') : t('Save task')}
            </button>
            <Link to="/tasks" className="btn">
              {t('Cancel')}
            </Link>
          </div>
        ) : null}
        {existing.data ? (
          <p className="muted small">
            {t('Next fire')}: <Time ms={existing.data.nextFireAt} timeZone={existing.data.trigger.timeZone} /> · {t('fired {{count}} times', { count: existing.data.fireCount })} ·{' '}
            {t('version {{version}}', { version: existing.data.version })}
          </p>
        ) : null}
      </form>
      {existing.data && canWrite && (existing.data.trigger.kind === 'CRON' || existing.data.trigger.kind === 'FIXED_RATE') ? <Backfill taskId={existing.data.id} /> : null}
      {existing.data ? <TaskHistory taskId={existing.data.id} timeZone={existing.data.trigger.timeZone} canWrite={canWrite} onRestored={(task) => existing.set(task)} /> : null}
    </>
  );
}

