import { Field } from '../../../shared/components';
import { get } from '../../../shared/api';
import { useLoad } from '../../../shared/hooks';
import type { Executor } from '../../../shared/model';
import { ParamsSchemaHelp, declaredSchema } from './ParamsSchemaHelp';
import type { SectionProps } from './task-form';
import { t } from '../../../shared/i18n/i18n';

/** What runs: the name and group, the executor app and its handler, and the params it is given. */
export function TaskSection({ form, set, err }: SectionProps) {
  // The handlers the live executors of the chosen app offer (their heartbeats say), for the handler field's list.
  const executors = useLoad(() => get<Executor[]>('/executors'), []);
  const offered = [...new Set((executors.data ?? []).filter((x) => x.app === form.executorApp && x.state === 'UP').flatMap((x) => x.handlers))].sort();
  const paramsSchema = declaredSchema(executors.data ?? [], form.executorApp, form.handler);
  return (
    <fieldset>
      <legend>{t('Task')}</legend>
      <div className="grid">
        <Field label={t('Name')} error={err('name')}>
          {(p) => <input {...p} name="name" value={form.name} onChange={(e) => set('name', e.target.value)} />}
        </Field>
        <Field label={t('Group')} error={err('group')}>
          {(p) => <input {...p} name="group" value={form.group} onChange={(e) => set('group', e.target.value)} />}
        </Field>
        <Field label={t('Executor app')} error={err('executorApp')}>
          {(p) => <input {...p} name="executorApp" value={form.executorApp} onChange={(e) => set('executorApp', e.target.value)} />}
        </Field>
        <Field label={t('Handler')} error={err('handler')} hint={offered.length ? undefined : form.executorApp ? t('No live executor of app "{{app}}" says what it offers.', { app: form.executorApp }) : undefined}>
          {(p) => <input {...p} name="handler" list="offered-handlers" value={form.handler} onChange={(e) => set('handler', e.target.value)} />}
        </Field>
        <datalist id="offered-handlers">
          {offered.map((h) => (
            <option key={h} value={h} />
          ))}
        </datalist>
      </div>
      <Field label={t('Params (JSON)')} error={err('params')}>
        {(p) => <textarea {...p} name="params" rows={3} className="mono" value={form.params} onChange={(e) => set('params', e.target.value)} />}
      </Field>
      {paramsSchema ? <ParamsSchemaHelp handler={form.handler} schema={paramsSchema} /> : null}
    </fieldset>
  );
}
