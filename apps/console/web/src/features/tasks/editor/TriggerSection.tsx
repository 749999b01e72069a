import { Field } from '../../../shared/components';
import { displayTimeZone } from '../../../shared/format';
import { TRIGGER_KINDS, type TriggerKind } from '../../../shared/model';
import { CronFields } from './CronFields';
import type { SectionProps } from './task-form';
import { t } from '../../../shared/i18n/i18n';

const KIND_LABEL: Record<TriggerKind, () => string> = { MANUAL: () => t('Manual'), FIXED_RATE: () => t('Fixed rate'), FIXED_DELAY: () => t('Fixed delay'), CRON: () => t('Cron'), ONCE: () => t('Once'), EVENT: () => t('Event') };

/** When the task fires: the kind of trigger, its own fields, and the window and limits of its fires. */
export function TriggerSection({ form, set, err }: SectionProps) {
  return (
    <fieldset>
      <legend>{t('Trigger')}</legend>
      <div className="radio-row" role="radiogroup" aria-label={t('Trigger type')}>
        {TRIGGER_KINDS.map((k) => (
          <label key={k} className="radio">
            <input type="radio" name="trigger-kind" value={k} checked={form.kind === k} onChange={() => set('kind', k)} /> {KIND_LABEL[k]()}
          </label>
        ))}
      </div>
      {err('trigger', 'trigger.kind') ? (
        <div className="field-error" role="alert" data-field-error>
          {err('trigger', 'trigger.kind')}
        </div>
      ) : null}
      {form.kind === 'CRON' ? <CronFields form={form} set={set} err={err} /> : null}
      {form.kind === 'FIXED_RATE' ? (
        <Field label={t('Interval (ms, or 30s, 5m, 1h)')} error={err('trigger.intervalMs')} hint={t('Fires every interval, from the start time (or creation).')}>
          {(p) => <input {...p} name="intervalMs" inputMode="numeric" value={form.intervalMs} onChange={(e) => set('intervalMs', e.target.value)} />}
        </Field>
      ) : null}
      {form.kind === 'FIXED_DELAY' ? (
        <Field label={t('Delay after each run (ms, or 30s, 5m, 1h)')} error={err('trigger.delayMs')} hint={t('The next run is due this long after the previous one finished.')}>
          {(p) => <input {...p} name="delayMs" inputMode="numeric" value={form.delayMs} onChange={(e) => set('delayMs', e.target.value)} />}
        </Field>
      ) : null}
      {form.kind === 'ONCE' ? (
        <Field label={t('At (your display time zone, {{zone}})', { zone: displayTimeZone() })} error={err('trigger.at')}>
          {(p) => <input {...p} name="at" type="datetime-local" step="1" value={form.at} onChange={(e) => set('at', e.target.value)} />}
        </Field>
      ) : null}
      {form.kind === 'MANUAL' ? <p className="muted">{t('Runs only when triggered by hand, by the API or by a parent task.')}</p> : null}
      {form.kind === 'EVENT' ? (
        <>
          <Field label={t('Event name')} error={err('trigger.event')} hint={t('Each event of this name the tenant sends (POST /api/events) starts a run, if its payload passes the filter.')}>
            {(p) => <input {...p} name="eventName" value={form.eventName} placeholder="order.paid" onChange={(e) => set('eventName', e.target.value)} />}
          </Field>
          <Field label={t('Filter (JSON)')} error={err('trigger.filter')} hint={t('JSON path → the value there, or {"exists": true}; every entry must hold. {} takes every event.')}>
            {(p) => <textarea {...p} name="eventFilter" rows={3} className="mono" value={form.eventFilter} onChange={(e) => set('eventFilter', e.target.value)} />}
          </Field>
          <Field label={t('Params from the payload (JSON, optional)')} error={err('trigger.params')} hint={t('Param name → JSON path of the payload. Empty: the whole payload is the params.')}>
            {(p) => <textarea {...p} name="eventParams" rows={3} className="mono" value={form.eventParams} placeholder='{"orderId": "order.id"}' onChange={(e) => set('eventParams', e.target.value)} />}
          </Field>
        </>
      ) : null}
      {form.kind !== 'MANUAL' && form.kind !== 'EVENT' ? (
        <div className="grid">
          <Field label={t('Start at (optional)')} error={err('startAt')}>
            {(p) => <input {...p} name="startAt" type="datetime-local" value={form.startAt} onChange={(e) => set('startAt', e.target.value)} />}
          </Field>
          <Field label={t('End at (optional)')} error={err('endAt')}>
            {(p) => <input {...p} name="endAt" type="datetime-local" value={form.endAt} onChange={(e) => set('endAt', e.target.value)} />}
          </Field>
          <Field label={t('Maximum fires (optional)')} error={err('maxFires')}>
            {(p) => <input {...p} name="maxFires" inputMode="numeric" value={form.maxFires} onChange={(e) => set('maxFires', e.target.value)} />}
          </Field>
          <Field label={t('Exclusion calendar (optional)')} error={err('calendarName')}>
            {(p) => <input {...p} name="calendarName" value={form.calendarName} onChange={(e) => set('calendarName', e.target.value)} />}
          </Field>
        </div>
      ) : null}
    </fieldset>
  );
}
