import { useState, type FormEvent } from 'react';
import { get, post } from '../../../shared/api';
import { ErrorBox, Field, useToast } from '../../../shared/components';
import { errorsOf } from '../../../shared/form-errors';
import { useLoad } from '../../../shared/hooks';
import { t } from '../../../shared/i18n/i18n';
import type { Executor, Run, Task } from '../../../shared/model';
import { declaredSchema, ParamsSchemaHelp } from './ParamsSchemaHelp';

/**
 * Runs the task once now with params for this run only (the task keeps its own), written against
 * the schema its handler declares; the API checks them against it and names what does not fit.
 */
export function RunWithParams({ task, onClose }: { task: Task; onClose: () => void }) {
  const toast = useToast();
  const executors = useLoad(() => get<Executor[]>('/executors'), []);
  const schema = declaredSchema(executors.data ?? [], task.executorApp, task.handler);
  const [text, setText] = useState(() => JSON.stringify(task.params ?? {}, null, 2));
  const [errors, setErrors] = useState<Record<string, string>>({});
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    let params: unknown;
    try {
      params = text.trim() === '' ? {} : JSON.parse(text);
    } catch (err) {
      setErrors({ params: t('not valid JSON: {{reason}}', { reason: (err as Error).message }) });
      return;
    }
    try {
      const run = await post<Run>(`/tasks/${task.id}/trigger`, { params });
      setErrors({});
      toast.notify(t('Run #{{id}} created', { id: run.id }), 'info', { to: `/runs/${run.id}`, label: t('Open run #{{id}}', { id: run.id }) });
      onClose();
    } catch (err) {
      setErrors(errorsOf(err, ['params']));
    }
  };
  return (
    <form className="card run-with-params" onSubmit={(e) => void submit(e)} aria-label={t('Run now with params')} data-run-with-params>
      <h2>{t('Run now with params')}</h2>
      <Field label={t('Params of this run (JSON)')} error={errors.params} hint={t('For this run only: the task keeps its own params.')}>
        {(p) => <textarea {...p} name="runParams" rows={5} className="mono" value={text} onChange={(e) => setText(e.target.value)} />}
      </Field>
      {schema ? <ParamsSchemaHelp handler={task.handler} schema={schema} /> : null}
      <ErrorBox error={errors._} />
      <div className="form-actions">
        <button type="submit" className="btn-primary">
          {t('Run now')}
        </button>
        <button type="button" className="btn-ghost" onClick={onClose}>
          {t('Cancel')}
        </button>
      </div>
    </form>
  );
}
